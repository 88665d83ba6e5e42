// The explorer's read (docs/explorer.md): the nodes a search reaches, each with every ID it holds, so that a page
// can draw the person. The search's rules on the start and its bounds apply; what is answered is cut to
// max_nodes nodes, nearest first, so that a cut drawing stays connected.
import { compareCodePoints, byTypeThenId } from './code-point-order';
import { type AnswerRoom, ID_OVERHEAD, type IdPair, type IdTypeDeclaration, type Step } from './model';
import type { Actor } from './nodes';
import { checkStart, refuseIncompleteStart, searchTypes, type StartBody, startOf } from './search';
import type { GraphQuery, IdentityReadStore } from './ports/identity-reads';

export type { GraphComponent, GraphNodeRecord, GraphQuery } from './ports/identity-reads';

export interface GraphBody {
  match: { from: StartBody; step?: Step };
  max_nodes?: number;
}

/** max_nodes when the request gives none (openapi.yaml: 1 to 2,000). */
export const DEFAULT_GRAPH_NODES = 500;

/** A node the traversal reached, before its IDs are read: what cutGraph orders and counts by. */
export interface GraphCandidate<Ref> {
  /** The store's own handle of the node (a primary key, an element id). */
  ref: Ref;
  /** How far from the start, in nodes (see cutGraph). */
  level: number;
  /** A start node of the search (what `exclude` leaves out). */
  start: boolean;
  schemaId: string;
  key: IdPair;
  /** How many IDs the node holds. */
  idCount: number;
  /** The characters its visible IDs add to the answer (ID_OVERHEAD each, with type and value), when the store reads them with the node. */
  idChars?: number;
}

/**
 * Which reached nodes a store answers, in the order it answers them: by level (0 for the start nodes: the keyed
 * node, or the holders of the `where` ID; for step ALL from an ID that links, all its holders, whatever the
 * schema; 1 for the nodes sharing an ID with one of them, and so on), then schema, key type and key id in
 * code-point order; without the start nodes when `exclude`; at most answerNodes of them, and only as many as hold
 * maxIds IDs between them (an ID counted once per holder: the answer's size), stopping at the first that does
 * not fit. Level by level, every answered node but a start one shares an ID with an answered node nearer the
 * start, so a cut drawing stays connected.
 *
 * A key of a hidden type (secure, caller without a token) is answered as `"id": null`, and its value orders
 * nothing: such nodes (all of one schema and key type, since secure is a property of the type) follow one another
 * in the store's own order of its handles, which comes from when the node was stored, never from an ID's value.
 */
export function cutGraph<Ref extends number | string>(
  candidates: readonly GraphCandidate<Ref>[],
  limits: Pick<GraphQuery, 'answerNodes' | 'maxIds' | 'exclude' | 'hiddenTypes'>,
): { chosen: GraphCandidate<Ref>[]; truncated: boolean } {
  const hidden = new Set(limits.hiddenTypes);
  const ordered = candidates
    .filter((c) => !(limits.exclude && c.start))
    .sort(
      (a, b) =>
        a.level - b.level ||
        compareCodePoints(a.schemaId, b.schemaId) ||
        compareCodePoints(a.key.type, b.key.type) ||
        (hidden.has(a.key.type) ? compareRefs(a.ref, b.ref) : compareCodePoints(a.key.id, b.key.id)),
    );
  const chosen: GraphCandidate<Ref>[] = [];
  let ids = 0;
  for (const candidate of ordered) {
    if (chosen.length === limits.answerNodes || ids + candidate.idCount > limits.maxIds) break;
    chosen.push(candidate);
    ids += candidate.idCount;
  }
  return { chosen, truncated: chosen.length < ordered.length };
}

/** Handles in a stable order: primary keys by number, element ids (Neo4j) by their digits' number, then code points. */
function compareRefs(a: number | string, b: number | string): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const [x, y] = [String(a), String(b)];
  return x.length - y.length || compareCodePoints(x, y);
}

/**
 * The size a graph answer is counted at before the IDs of its nodes are read, in characters of its JSON: each
 * answered node's schema and key (a hidden key's value not counted: it is answered as null) and `idChars`, what
 * its visible IDs add (ID_OVERHEAD each, with type and value). Both stores count alike, so that they refuse alike.
 */
export function graphAnswerSize(
  chosen: ReadonlyArray<Pick<GraphCandidate<unknown>, 'schemaId' | 'key'> & { idChars: number }>,
  hiddenTypes: readonly string[],
): number {
  const hidden = new Set(hiddenTypes);
  let size = 64;
  for (const c of chosen) size += 64 + c.schemaId.length + c.key.type.length + (hidden.has(c.key.type) ? 0 : c.key.id.length) + c.idChars;
  return size;
}

/** idChars of one ID. */
export const idChars = (id: IdPair): number => ID_OVERHEAD + id.type.length + id.id.length;

/** An ID type as the graph's answer describes it, so that a page can tell the IDs that link nothing. */
export interface GraphType {
  type: string;
  secure: boolean;
  links: boolean;
  max_holders?: number;
}

export interface GraphNode {
  schema: string;
  /** id is null when the key's type is secure and the caller sent no token. */
  key: { type: string; id: string | null };
  ids: IdPair[];
}

export interface GraphAnswer {
  nodes: GraphNode[];
  truncated: boolean;
  types: GraphType[];
}

export interface GraphLimits {
  traversalMaxNodes: number;
  traversalMaxIds: number;
}

export class GraphService {
  constructor(
    private readonly store: Pick<IdentityReadStore, 'graph'>,
    private readonly limits: GraphLimits,
  ) {}

  async graph(actor: Actor, body: GraphBody, answerRoom?: AnswerRoom): Promise<GraphAnswer> {
    const { from } = body.match;
    refuseIncompleteStart(from);
    // The policy is read with the graph: on Neo4j, in its statement.
    const { component, policy, declarations } = await this.store.graph({
      customerId: actor.customerId,
      ...startOf(from),
      step: body.match.step ?? 'ALL',
      exclude: from.exclude ?? false,
      authenticated: actor.authenticated,
      maxNodes: this.limits.traversalMaxNodes,
      maxIds: this.limits.traversalMaxIds,
      answerNodes: body.max_nodes ?? DEFAULT_GRAPH_NODES,
      ...(answerRoom ? { answerRoom } : {}),
      check: (read, schema) => checkStart(actor, from, read, schema),
    });
    // As the search: secure IDs only for a caller with a token; a secure key keeps its type, not its value.
    const hidden = new Set(searchTypes(policy, actor.authenticated).hiddenTypes);
    const nodes = component.nodes.map((n) => ({
      schema: n.schemaId,
      key: { type: n.key.type, id: hidden.has(n.key.type) ? null : n.key.id },
      ids: n.ids.filter((id) => !hidden.has(id.type)).sort(byTypeThenId),
    }));
    return { nodes, truncated: component.truncated, types: typesOf(nodes, declarations) };
  }
}

/** The declarations of the types the answer names (one per customer: docs/keeping-people-apart.md), in code-point order. */
function typesOf(nodes: readonly GraphNode[], declarations: readonly IdTypeDeclaration[]): GraphType[] {
  const named = new Set<string>();
  for (const n of nodes) {
    named.add(n.key.type);
    for (const id of n.ids) named.add(id.type);
  }
  const declared = new Map(declarations.map((t) => [t.type, t]));
  return [...named].sort(compareCodePoints).map((type) => {
    const t = declared.get(type);
    // Every held type is declared by its node's schema (schema_in_use keeps it so); the defaults only if a schema
    // replacement came between the reads of a store that reads them apart.
    return { type, secure: t?.secure ?? false, links: t?.links !== false, ...(t?.maxHolders !== undefined ? { max_holders: t.maxHolders } : {}) };
  });
}
