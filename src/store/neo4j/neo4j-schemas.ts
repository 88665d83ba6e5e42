// Schemas, customer policy, settings and blocklist on Neo4j; each method runs in a store transaction (it receives its Query).
import { LRUCache } from 'lru-cache';
import type { BlockRule } from '../../domain/blocklist';
import { DomainError } from '../../domain/errors';
import {
  canonicalDeclaration,
  type CustomerPolicy,
  type CustomerSettings,
  DEFAULT_SETTINGS,
  type IdTypeDeclaration,
  type SchemaRecord,
} from '../../domain/model';
import type { PutSchemaOutcome } from '../../domain/ports/protections';
import { refuseConflictingDeclarations, secureTypeInUse } from '../../domain/refusals';
import { compareCodePoints } from '../../domain/code-point-order';
import { blocklistDigest } from './kept-policies';
import type { DeclaredType, PolicyRow, StoredDeclaration } from './policy-row';
import { guardWholeSchema } from './schema-guards';
import { int, type Query, rowsByAsk, together } from './query';

export type { PolicyRow } from './policy-row';

const toDeclaration = (t: StoredDeclaration): IdTypeDeclaration =>
  canonicalDeclaration({ type: t.type, secure: t.secure, links: t.links, maxHolders: t.maxHolders ?? undefined });

const toSchemaRecord = (schemaId: string, declared: DeclaredType[]): SchemaRecord => ({
  schemaId,
  idTypes: [...declared].sort((a, b) => a.position - b.position).map(toDeclaration),
});

/** What a policy read names: the customer, and the schema to read with its policy (null: none). */
export interface PolicyAsk {
  customerId: string;
  schemaId: string | null;
}

/** Customers whose parsed blocklist the store keeps (see parsedRules). */
const PARSED_RULES_KEPT = 1_000;

/** What deleteSchema answers for a schema that still has nodes (and what a uniqueness violation means for it). */
export const schemaInUse = (schemaId: string) => new DomainError('schema_in_use', `Schema '${schemaId}' still has nodes; remove them first.`);

export class Neo4jSchemas {
  /**
   * The blocklist text each customer had at its last read, with the rules parsed from it. Every node write reads the
   * customer's policy; handing out the same array for the same text lets the domain reuse the rules it compiled
   * for that array, instead of parsing and fingerprinting up to 100,000 values on every write. Invalidation: an
   * entry is used only while the text read from Neo4j is the one it was parsed from (each read compares them, so a
   * put by any process is seen at the next read); past PARSED_RULES_KEPT customers the least recently read goes.
   */
  private readonly parsedRules = new LRUCache<string, { text: string; rules: BlockRule[] }>({ max: PARSED_RULES_KEPT });

  // ---- schemas

  async put(q: Query, customerId: string, schema: SchemaRecord, writeId: string): Promise<PutSchemaOutcome> {
    const customer = customerId;
    const schemaId = schema.schemaId;
    const idTypes = schema.idTypes.map((t) => ({
      type: t.type,
      secure: t.secure,
      links: t.links !== false,
      maxHolders: t.maxHolders === undefined ? null : int(t.maxHolders),
    }));
    // Waits for node writes of the schema in flight, and holds off new ones (see schema.guard.cypher).
    await guardWholeSchema(q, customer, schemaId, writeId);
    // null for a schema stored before createdBy existed: not created now.
    const [lock] = await q<{ created: boolean | null }>('schema.lock', { customer, schemaId, write: writeId });
    const created = lock?.created === true;
    // Lock the declared types in name order before reading their flags (see idtype.lock.cypher).
    const byName = [...idTypes].sort((a, b) => compareCodePoints(a.type, b.type));
    const locked = await q<{ type: string; wasSecure: boolean }>('idtype.lock', { customer, idTypes: byName, write: writeId });
    const others = await q<{ schemaId: string; declaration: StoredDeclaration }>('schema.other-declarations', { customer, schemaId, idTypes });
    refuseConflictingDeclarations(
      schema.idTypes,
      others.map((o) => ({ schemaId: o.schemaId, declaration: toDeclaration(o.declaration) })),
    );
    // Turning secure off while IDs of the type are held would show them to anyone (docs/keeping-people-apart.md). The IdType
    // lock is held, and node writes that add IDs hold a schema guard, which this put holds all of: no ID of the
    // type can be added between this check and the commit.
    for (const declared of schema.idTypes) {
      if (declared.secure || !locked.some((l) => l.type === declared.type && l.wasSecure)) continue;
      const [row] = await q<{ held: boolean }>('idtype.held', { customer, type: declared.type });
      if (row?.held) throw secureTypeInUse(declared.type);
    }
    if (!created) {
      const [held] = await q<{ type: string }>('schema.held-dropped-types', { customer, schemaId, keptTypes: idTypes.map((t) => t.type) });
      if (held) {
        throw new DomainError('schema_in_use', `ID type '${held.type}' cannot be dropped: nodes of schema '${schemaId}' still hold IDs of it.`);
      }
    }
    // IDs of a type this put makes secure carry the SecureId label from now on, as new ones do (id.mark-secure.cypher).
    const madeSecure = idTypes.filter((t) => t.secure && locked.some((l) => l.type === t.type && !l.wasSecure)).map((t) => t.type);
    await together(
      q('schema.declare', { customer, schemaId, idTypes }),
      ...(madeSecure.length > 0 ? [q('id.mark-secure', { customer, types: madeSecure })] : []),
    );
    await q('idtype.delete-orphans', { customer });
    return { created };
  }

  /** What the put that carries `writeId` answered, when the schema carries it (schema.last-write.cypher); else undefined. */
  async putBy(q: Query, customerId: string, schemaId: string, writeId: string): Promise<PutSchemaOutcome | undefined> {
    const [row] = await q<{ lastWrite: string | null; created: boolean | null }>('schema.last-write', { customer: customerId, schemaId });
    return row?.lastWrite === writeId ? { created: row.created === true } : undefined;
  }

  async get(q: Query, customerId: string, schemaId: string): Promise<SchemaRecord | undefined> {
    const [row] = await q<{ schemaId: string; idTypes: DeclaredType[] }>('schema.get', { customer: customerId, schemaId });
    return row ? toSchemaRecord(row.schemaId, row.idTypes) : undefined;
  }

  async list(q: Query, customerId: string): Promise<SchemaRecord[]> {
    const rows = await q<{ schemaId: string; idTypes: DeclaredType[] }>('schema.list', { customer: customerId });
    return rows.map((row) => toSchemaRecord(row.schemaId, row.idTypes)).sort((a, b) => compareCodePoints(a.schemaId, b.schemaId));
  }

  async delete(q: Query, customerId: string, schemaId: string, writeId: string): Promise<void> {
    // Guards before the schema vertex, in the lock order every transaction keeps (see schema.guard.cypher).
    await guardWholeSchema(q, customerId, schemaId, writeId);
    const [lock] = await q<{ inUse: boolean }>('schema.lock-for-delete', { customer: customerId, schemaId });
    if (!lock) throw new DomainError('schema_not_found', `Schema '${schemaId}' does not exist.`);
    if (lock.inUse) throw schemaInUse(schemaId);
    await q('schema.delete', { customer: customerId, schemaId });
    await q('idtype.delete-orphans', { customer: customerId });
  }

  /** Whether the schema is gone (schema.last-write.cypher finds no vertex). */
  async isGone(q: Query, customerId: string, schemaId: string): Promise<boolean> {
    return (await q('schema.last-write', { customer: customerId, schemaId })).length === 0;
  }

  // ---- customer policy

  /** customer.policy.cypher; with a schemaId, that schema too (no statement matches a null schemaId). */
  async policyRow(q: Query, ask: PolicyAsk): Promise<PolicyRow | undefined> {
    const [row] = await q<PolicyRow>('customer.policy', { customer: ask.customerId, schemaId: ask.schemaId });
    return row;
  }

  /** policyRow for many asks in one statement (customer.policy-many.cypher); the rows in the asks' order. */
  async policyRows(q: Query, asks: PolicyAsk[]): Promise<Array<PolicyRow | undefined>> {
    const sent = asks.map((ask, index) => ({ index: int(index), customer: ask.customerId, schemaId: ask.schemaId }));
    const rows = await q<PolicyRow & { index: number }>('customer.policy-many', { asks: sent });
    return rowsByAsk(rows, asks.length).map(([row]) => row);
  }

  /** What customer.policy.cypher answers (also the `policy` column of search.one, search.all, graph.one and graph.all), as the domain has it. */
  policyOf(customerId: string, row: PolicyRow | undefined): { schema: SchemaRecord | undefined; policy: CustomerPolicy } {
    const [settings] = row?.settings ?? [];
    const [rules] = row?.blocklist ?? [];
    const [schema] = row?.schema ?? [];
    return {
      schema: schema ? toSchemaRecord(schema.schemaId, schema.idTypes) : undefined,
      policy: {
        settings: settings ? { requireToken: settings.requireToken, timezone: settings.timezone } : { ...DEFAULT_SETTINGS },
        blockRules: rules === undefined ? [] : this.parsedBlocklist(customerId, rules),
        secureTypes: new Set(row?.secureTypes ?? []),
        unlinkedTypes: new Set(row?.unlinkedTypes ?? []),
      },
    };
  }

  private parsedBlocklist(customerId: string, text: string): BlockRule[] {
    const kept = this.parsedRules.get(customerId);
    if (kept?.text === text) return kept.rules;
    const rules = JSON.parse(text) as BlockRule[];
    this.parsedRules.set(customerId, { text, rules });
    return rules;
  }

  // ---- settings and blocklist

  async putSettings(q: Query, customerId: string, settings: CustomerSettings): Promise<void> {
    await q('settings.put', { customer: customerId, requireToken: settings.requireToken, timezone: settings.timezone });
  }

  async putBlocklist(q: Query, customerId: string, rules: BlockRule[]): Promise<void> {
    const text = JSON.stringify(rules);
    await q('blocklist.put', { customer: customerId, rules: text, digest: blocklistDigest(text) });
  }
}
