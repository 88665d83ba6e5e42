// The ID search: which start nodes, who may see what, then one store traversal.
import { DomainError } from './errors';
import type { AnswerRoom, CustomerPolicy, IdPair, SearchQuery, SearchResult, Step } from './model';
import type { Actor } from './nodes';
import { requireTokenIfAsked } from './policy';
import type { Store } from './store';

/** Where a search (and a graph) starts: a keyed node, or every node holding an ID (of one schema, when given). */
export interface StartBody {
  schema?: string;
  key?: IdPair;
  where?: IdPair;
  exclude?: boolean;
}

export interface SearchBody {
  match: {
    from: StartBody;
    step?: Step;
    having?: { type?: string };
  };
  limit?: number;
}

export interface SearchLimits {
  searchMaxLimit: number;
  traversalMaxNodes: number;
  traversalMaxIds: number;
}

export const DEFAULT_SEARCH_LIMIT = 10000;

export class SearchService {
  constructor(
    private readonly store: Store,
    private readonly limits: SearchLimits,
  ) {}

  async search(actor: Actor, body: SearchBody, answerRoom?: AnswerRoom): Promise<SearchResult> {
    const { from } = body.match;
    refuseIncompleteStart(from);
    const limit = body.limit ?? Math.min(DEFAULT_SEARCH_LIMIT, this.limits.searchMaxLimit);
    if (limit > this.limits.searchMaxLimit) {
      throw new DomainError('validation_failed', 'limit is too large.', [
        { path: '/body/limit', message: `must be <= ${this.limits.searchMaxLimit}` },
      ]);
    }
    const { secureTypes, unlinkedTypes } = await checkedStart(this.store, actor, from);
    return this.store.search({
      customerId: actor.customerId,
      ...startOf(from),
      step: body.match.step ?? 'ALL',
      exclude: from.exclude ?? false,
      ...(body.match.having?.type !== undefined ? { havingType: body.match.having.type } : {}),
      hiddenTypes: actor.authenticated ? [] : [...secureTypes],
      unlinkedTypes: [...unlinkedTypes],
      limit,
      maxNodes: this.limits.traversalMaxNodes,
      maxIds: this.limits.traversalMaxIds,
      ...(answerRoom ? { answerRoom } : {}),
    });
  }
}

/** invalid_search unless the start names a keyed node (schema with key) or an ID (where). */
export function refuseIncompleteStart(from: StartBody): void {
  if (!from.where && !(from.schema !== undefined && from.key)) {
    throw new DomainError('invalid_search', 'Give match.from.schema with match.from.key, or match.from.where.');
  }
  if (from.key && from.schema === undefined) {
    throw new DomainError('invalid_search', 'match.from.key needs match.from.schema.');
  }
}

/**
 * The search's rules on its start, for a start refuseIncompleteStart let through: the customer's required token,
 * the schema and the key's type, and a token for a start from a secure type. Answers the customer's policy.
 */
export async function checkedStart(store: Store, actor: Actor, from: StartBody): Promise<CustomerPolicy> {
  // One read (on Neo4j one statement). The token requirement is answered before anything the schema says, so
  // that a caller without a token learns nothing of the customer's schemas.
  const { schema, policy } =
    from.schema === undefined ? { schema: undefined, policy: await store.customerPolicy(actor.customerId) } : await store.schemaWithPolicy(actor.customerId, from.schema);
  requireTokenIfAsked(actor, policy);
  if (from.schema !== undefined) {
    if (!schema) throw new DomainError('schema_not_found', `Schema '${from.schema}' does not exist.`);
    const declared = new Set(schema.idTypes.map((t) => t.type));
    if (from.key && !declared.has(from.key.type)) {
      throw new DomainError('key_type_not_in_schema', `Key type '${from.key.type}' is not an ID type of schema '${from.schema}'.`, [
        { path: '/body/match/from/key/type', message: `is not declared by schema '${from.schema}'` },
      ]);
    }
  }
  const startsFromSecure = [from.key, from.where].some((id) => id !== undefined && policy.secureTypes.has(id.type));
  if (startsFromSecure && !actor.authenticated) {
    throw new DomainError('authentication_required', 'A search that starts from a secure ID type needs a bearer token.');
  }
  return policy;
}

/** The start of a checked StartBody, as a store's query names it. */
export const startOf = (from: StartBody): Pick<SearchQuery, 'key' | 'where'> => ({
  ...(from.key && from.schema !== undefined ? { key: { schemaId: from.schema, key: from.key } } : {}),
  ...(from.where ? { where: { id: from.where, ...(from.schema !== undefined ? { schemaId: from.schema } : {}) } } : {}),
});
