// Why two starts are one person: one shortest chain of nodes, each sharing an ID (its `via`) with the one before.
import { compareCodePoints } from './code-point-order';
import { DomainError } from './errors';
import type { IdPair } from './model';
import type { Actor } from './nodes';
import { checkStart, startOf, type StartBody } from './search';
import type { Chain, ChainNode, IdentityReadStore } from './ports/identity-reads';
import { at } from './invariant';

export type { Chain, ChainNode, WhyFound, WhyQuery, WhyStart } from './ports/identity-reads';

export interface WhyBody {
  from: Omit<StartBody, 'exclude'>;
  to: Omit<StartBody, 'exclude'>;
  max_hops?: number;
}

export const DEFAULT_MAX_HOPS = 10;
/** How far a store looks for a chain, whatever max_hops says (its largest value): so a longer chain is told from none. */
export const WHY_SEARCH_HOPS = 50;

type ShownId = IdPair | { type: string; id: null; secure: true };
type PathStep = { node: { schema: string; key: ShownId } } | { via: ShownId };

export interface WhyAnswer {
  linked: boolean;
  hops: number | null;
  path: PathStep[];
  reason?: 'max_hops';
}

export interface WhyLimits {
  traversalMaxNodes: number;
  traversalMaxIds: number;
}

export class WhyService {
  constructor(
    private readonly store: Pick<IdentityReadStore, 'why'>,
    private readonly limits: WhyLimits,
  ) {}

  async why(actor: Actor, body: WhyBody): Promise<WhyAnswer> {
    refuseIncomplete(body.from, 'from');
    refuseIncomplete(body.to, 'to');
    // The policy is read with the search: on Neo4j, in its statement.
    const { found, policy } = await this.store.why({
      customerId: actor.customerId,
      from: startOf(body.from),
      to: startOf(body.to),
      authenticated: actor.authenticated,
      maxNodes: this.limits.traversalMaxNodes,
      maxIds: this.limits.traversalMaxIds,
      check: (read, fromSchema, toSchema) => {
        checkStart(actor, body.from, read, fromSchema);
        checkStart(actor, body.to, read, toSchema);
      },
    });
    if (found.missing !== undefined) throw new DomainError('node_not_found', `No node holds the start given as '${found.missing}'.`);
    const { chain } = found;
    if (!chain) return { linked: false, hops: null, path: [] };
    if (chain.vias.length > (body.max_hops ?? DEFAULT_MAX_HOPS)) return { linked: false, hops: null, path: [], reason: 'max_hops' };
    const hidden = new Set(maskedFor(actor.authenticated, policy));
    const shown = (id: IdPair): ShownId => (hidden.has(id.type) ? { type: id.type, id: null, secure: true } : { type: id.type, id: id.id });
    const path: PathStep[] = [];
    chain.nodes.forEach((node, i) => {
      if (i > 0) path.push({ via: shown(chain.vias[i - 1] as IdPair) });
      path.push({ node: { schema: node.schemaId, key: shown(node.key) } });
    });
    return { linked: true, hops: chain.vias.length, path };
  }
}

/** The types whose values a caller may not see, which the tie rule compares as equal: the secure ones, without a token. */
export function maskedFor(authenticated: boolean, policy: { secureTypes: Iterable<string> }): string[] {
  return authenticated ? [] : [...policy.secureTypes];
}

function refuseIncomplete(start: WhyBody['from'], name: 'from' | 'to'): void {
  if (start.key && start.schema === undefined) throw new DomainError('invalid_search', `${name}.key needs ${name}.schema.`);
  if (!start.where && !start.key) throw new DomainError('invalid_search', `Give ${name}.schema with ${name}.key, or ${name}.where.`);
}

const NONE: ReadonlySet<string> = new Set();

/**
 * IDs as the caller sees them, in code-point order: type, then id, but the ids of a masked type (one whose values the
 * caller may not see) compare equal, so the order never tells a hidden value from another.
 */
export const compareIds = (a: IdPair, b: IdPair, masked: ReadonlySet<string> = NONE): number =>
  compareCodePoints(a.type, b.type) || (masked.has(a.type) ? 0 : compareCodePoints(a.id, b.id));

/** Node keys in code-point order: schema, key type, key id (equal when the key's type is masked). */
export const compareNodes = (a: ChainNode, b: ChainNode, masked: ReadonlySet<string> = NONE): number =>
  compareCodePoints(a.schemaId, b.schemaId) || compareIds(a.key, b.key, masked);

/**
 * The tie rule among equal shortest chains: the smaller in code-point order of its vias, then of its node keys, as
 * the caller sees them (`masked`: the types whose values compare equal). With nothing masked no two chains compare
 * equal; with masked types, chains that compare equal differ only in values the caller is not shown.
 */
export function compareChains(a: Chain, b: Chain, masked: ReadonlySet<string> = NONE): number {
  if (a.vias.length !== b.vias.length) return a.vias.length - b.vias.length;
  for (let i = 0; i < a.vias.length; i++) {
    const c = compareIds(at(a.vias, i), at(b.vias, i), masked);
    if (c !== 0) return c;
  }
  for (let i = 0; i < a.nodes.length; i++) {
    const c = compareNodes(at(a.nodes, i), at(b.nodes, i), masked);
    if (c !== 0) return c;
  }
  return 0;
}
