// Schemas, settings and blocked values on the wire (snake_case) and in the domain (camelCase): what the admin routes
// answer and take, and what an export's lines hold.
import type { BlockRule } from '../domain/blocklist';
import type { CustomerSettings, IdTypeDeclaration, SchemaRecord } from '../domain/model';
import type { components } from '../generated/openapi';
import { present } from '../domain/invariant';

/** `links` always, `max_holders` only when set (docs/keeping-people-apart.md). */
export const idTypeBody = (t: IdTypeDeclaration) => ({
  type: t.type,
  secure: t.secure,
  links: t.links !== false,
  ...(t.maxHolders !== undefined ? { max_holders: t.maxHolders } : {}),
});
export const schemaBody = (s: SchemaRecord) => ({ schema_id: s.schemaId, id_types: s.idTypes.map(idTypeBody) });

type IdTypeInput = components['schemas']['SchemaDefinition']['id_types'][number];
export const toDeclaration = (t: IdTypeInput) => ({
  type: t.type,
  ...(t.secure !== undefined ? { secure: t.secure } : {}),
  ...(t.links !== undefined ? { links: t.links } : {}),
  ...(t.max_holders !== undefined ? { maxHolders: t.max_holders } : {}),
});

export const settingsBody = (s: CustomerSettings) => ({ require_token: s.requireToken, timezone: s.timezone });

type BlockRuleInput = components['schemas']['BlockRule'];
export const toBlockRule = (r: BlockRuleInput): BlockRule => ({
  type: r.type,
  ...(r.values !== undefined ? { values: r.values } : {}),
  ...(r.pattern !== undefined ? { pattern: r.pattern } : {}),
  ignoreCase: r.ignore_case ?? false,
  confusables: r.confusables ?? false,
});
// A rule stored before confusables existed has none: it never compared lookalikes.
export const blockRuleBody = (r: BlockRule): components['schemas']['StoredBlockRule'] =>
  r.values !== undefined
    ? { type: r.type, values: r.values, ignore_case: r.ignoreCase, confusables: r.confusables ?? false }
    : { type: r.type, pattern: present(r.pattern, "a rule's pattern, as it has no values"), ignore_case: r.ignoreCase, confusables: r.confusables ?? false };
