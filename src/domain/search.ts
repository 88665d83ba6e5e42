// The ID search: which start nodes, who may see what, then one store traversal.
import { DomainError } from './errors';
import type { AnswerRoom, CustomerPolicy, IdPair, SchemaRecord, SearchQuery, SearchResult, Step } from './model';
import type { Actor } from './nodes';
import { requireTokenIfAsked } from './policy';
import type { IdentityReadStore } from './ports/identity-reads';

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
    private readonly store: Pick<IdentityReadStore, 'search'>,
    private readonly limits: SearchLimits,
  ) {}

  async search(actor: Actor, body: SearchBody, answerRoom?: AnswerRoom): Promise<SearchResult> {
    const { from } = body.match;
    refuseIncompleteStart(from);
    const limit = body.limit ?? Math.min(DEFAULT_SEARCH_LIMIT, this.limits.searchMaxLimit);
    if (limit > this.limits.searchMaxLimit) {
      throw new DomainError('validation_failed', 'limit is too large.', [{ path: '/body/limit', message: `must be <= ${this.limits.searchMaxLimit}` }]);
    }
    // The policy is read with the search: on Neo4j, in its statement.
    return this.store.search({
      customerId: actor.customerId,
      ...startOf(from),
      step: body.match.step ?? 'ALL',
      exclude: from.exclude ?? false,
      ...(body.match.having?.type !== undefined ? { havingType: body.match.having.type } : {}),
      authenticated: actor.authenticated,
      limit,
      maxNodes: this.limits.traversalMaxNodes,
      maxIds: this.limits.traversalMaxIds,
      ...(answerRoom ? { answerRoom } : {}),
      check: (policy, schema) => checkStart(actor, from, policy, schema),
    });
  }
}

/** The types a search hides (secure ones, from a caller without a token) and never steps through (`links: false`). */
export const searchTypes = (policy: CustomerPolicy, authenticated: boolean): Pick<SearchQuery, 'hiddenTypes' | 'unlinkedTypes'> => ({
  hiddenTypes: authenticated ? [] : [...policy.secureTypes],
  unlinkedTypes: [...policy.unlinkedTypes],
});

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
 * The search's rules on its start, for a start refuseIncompleteStart let through, given the customer's policy and
 * the start's schema (undefined when absent or not named): the customer's required token, the schema and the key's
 * type, and a token for a start from a secure type.
 */
export function checkStart(actor: Actor, from: StartBody, policy: CustomerPolicy, schema: SchemaRecord | undefined): void {
  // The token requirement is answered before anything the schema says, so that a caller without a token learns
  // nothing of the customer's schemas.
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
}

/** The start of a checked StartBody, as a store's query names it. */
export const startOf = (from: StartBody): Pick<SearchQuery, 'key' | 'where'> => ({
  ...(from.key && from.schema !== undefined ? { key: { schemaId: from.schema, key: from.key } } : {}),
  ...(from.where ? { where: { id: from.where, ...(from.schema !== undefined ? { schemaId: from.schema } : {}) } } : {}),
});
