// The reads of the ID search and of the explorer's graph on SQLite: start nodes, the breadth-first traversal over
// the bipartite graph of nodes and IDs, and what each answers. Synchronous, on the connection it is given: the
// store's own (src/store/sqlite/sqlite-store.ts), or a read-only one of its own in a worker thread.
/* eslint-disable @typescript-eslint/only-throw-error -- TOO_BIG_FOR_THE_EVENT_LOOP is a sentinel, caught by the store: no Error or stack to build */
import type Database from 'better-sqlite3';
import { DomainError } from '../../domain/errors';
import { cutGraph, graphAnswerSize, type GraphComponent, type GraphQuery } from '../../domain/graph';
import { answerSize, ID_OVERHEAD, MAX_ID_CHARS, type AnswerRoom, type IdPair, type SearchQuery, type SearchResult } from '../../domain/model';
import { present } from '../../domain/invariant';
import { tooManyIdsToRead } from '../../domain/refusals';

/** What a traversal reads from a query: its step, `links: false` types and bounds. */
export type TraversalBounds = Pick<SearchQuery, 'step' | 'unlinkedTypes' | 'maxNodes' | 'maxIds'>;

/**
 * What search and graph throw, given InlineBounds, once they have read more than them: the store then runs the
 * same read on its read pool instead (src/store/sqlite/read-pool.ts). A symbol: no stack to capture.
 */
export const TOO_BIG_FOR_THE_EVENT_LOOP: unique symbol = Symbol('too big for the event loop');

/** How much a read may read on the event loop (SQLITE_INLINE_NODES, SQLITE_INLINE_IDS, SQLITE_INLINE_BYTES). */
export interface InlineBounds {
  /** Nodes visited. */
  nodes: number;
  /** Distinct IDs read (their primary keys, in the traversal). */
  ids: number;
  /** Characters of ID types and values read into the answer (its size as answerSize counts it). */
  bytes: number;
}

/**
 * What a person is read like (an erase of scope person, eligibility, impressions): step ALL from the holders, the
 * bounds and `links: false` types coming from the request.
 */
export const PERSON_SEARCH: Pick<SearchQuery, 'step' | 'exclude' | 'hiddenTypes' | 'limit'> = { step: 'ALL', exclude: false, hiddenTypes: [], limit: 0 };

/** Up to this many target nodes, search results are filtered in JS; beyond, in SQL (see heldIdsSorted). */
const FEW_TARGETS = 64;

/** A list of primary keys as JSON (json_each reads it), and a LIMIT. */
type KeysAndLimit = [keys: string, limit: number];
/** What the IDs of nodes weigh: count, characters, visible count, visible characters (heldSize). */
type HeldSize = [count: number, chars: number, visible: number, visibleChars: number];
/** The filters of a search's results, bound by name. */
type ResultFilter = { targets: string; having: string | null; hidden: string };

export class SqliteSearch {
  private readonly s;
  /**
   * Runs a read in one read transaction: it sees one snapshot, even with another connection committing between its
   * statements (the read pool's threads read beside the store's writes), and takes the WAL's read lock once instead
   * of once per statement (search ONE: 31–34 µs instead of 38–41, measured on the quick graph).
   */
  private readonly inSnapshot: <T>(read: () => T) => T;

  constructor(db: Database.Database) {
    const snapshot = db.transaction((read: () => void) => read());
    // A transaction function is typed by the function it wraps, not per call: each read hands its answer out.
    this.inSnapshot = <T>(read: () => T): T => {
      let answer: { value: T } | undefined;
      snapshot(() => {
        answer = { value: read() };
      });
      return present(answer, 'the answer of a read in a snapshot').value;
    };
    this.s = {
      findNode: db
        .prepare<[customerId: string, schemaId: string, keyType: string, keyId: string], number>(
          'SELECT node_pk FROM nodes WHERE customer_id = ? AND schema_id = ? AND key_type = ? AND key_id = ?',
        )
        .pluck(),
      findId: db
        .prepare<[customerId: string, type: string, value: string], number>('SELECT id_pk FROM ids WHERE customer_id = ? AND type = ? AND value = ?')
        .pluck(),
      holds: db.prepare<[nodePk: number, idPk: number], 1>('SELECT 1 FROM node_ids WHERE node_pk = ? AND id_pk = ?').pluck(),
      startByWhere: db
        .prepare<[customerId: string, type: string, value: string], number>(
          'SELECT ni.node_pk FROM ids i JOIN node_ids ni ON ni.id_pk = i.id_pk WHERE i.customer_id = ? AND i.type = ? AND i.value = ?',
        )
        .pluck(),
      startByWhereInSchema: db
        .prepare<[customerId: string, type: string, value: string, schemaId: string], number>(
          'SELECT ni.node_pk FROM ids i JOIN node_ids ni ON ni.id_pk = i.id_pk JOIN nodes n ON n.node_pk = ni.node_pk ' +
            'WHERE i.customer_id = ? AND i.type = ? AND i.value = ? AND n.schema_id = ?',
        )
        .pluck(),
      // LIMIT: one row past the traversal's bound proves the search too large without reading the rest. CAST, because
      // SQLite plans with a bare `LIMIT ?`'s value and so prepares the statement again on every bind (measured:
      // 9–13 µs a call instead of 3–5 µs).
      idsOfNodes: db
        .prepare<KeysAndLimit, number>('SELECT DISTINCT id_pk FROM node_ids WHERE node_pk IN (SELECT value FROM json_each(?)) LIMIT CAST(? AS INTEGER)')
        .pluck(),
      // The same with each ID's type, for a customer with `links: false` types: the traversal reads those IDs (they
      // count and are returned) but steps only through the others. A lookup of ids by primary key per row, paid only
      // by such customers.
      typedIdsOfNodes: db
        .prepare<KeysAndLimit, [idPk: number, type: string]>(
          'SELECT DISTINCT ni.id_pk, i.type FROM node_ids ni JOIN ids i ON i.id_pk = ni.id_pk ' +
            'WHERE ni.node_pk IN (SELECT value FROM json_each(?)) LIMIT CAST(? AS INTEGER)',
        )
        .raw(),
      nodesOfIds: db
        .prepare<KeysAndLimit, number>('SELECT DISTINCT node_pk FROM node_ids WHERE id_pk IN (SELECT value FROM json_each(?)) LIMIT CAST(? AS INTEGER)')
        .pluck(),
      // Step ONE from one node, through every ID it holds: the node itself and every node sharing an ID with it.
      // DISTINCT with a LIMIT stops at the bound, however many nodes hold a hot ID.
      // With each node, how many IDs it holds (a range of node_ids' primary key): their sum bounds the IDs read next.
      oneStep: db
        .prepare<[nodePk: number, limit: number], [nodePk: number, idCount: number]>(
          'SELECT near, (SELECT COUNT(*) FROM node_ids c WHERE c.node_pk = near) FROM (' +
            'SELECT DISTINCT b.node_pk AS near FROM node_ids a JOIN node_ids b ON b.id_pk = a.id_pk WHERE a.node_pk = ? LIMIT CAST(? AS INTEGER))',
        )
        .raw(),
      // Both result statements sort with the BINARY collation, which compares UTF-8 bytes: code-point order.
      // Few targets: every held ID, filtered in JS (the filter clauses below cost more than they save on
      // a handful of rows). Many targets: filters, window count and LIMIT in SQL, before rows reach JS.
      heldIdsSorted: db
        .prepare<[nodes: string], [type: string, value: string]>(
          'SELECT DISTINCT i.type, i.value FROM node_ids ni JOIN ids i ON i.id_pk = ni.id_pk ' +
            'WHERE ni.node_pk IN (SELECT value FROM json_each(?)) ORDER BY i.type, i.value',
        )
        .raw(),
      // How many distinct IDs nodes hold, from the primary key of node_ids alone: no value read.
      countHeld: db.prepare<[nodes: string], number>('SELECT COUNT(DISTINCT id_pk) FROM node_ids WHERE node_pk IN (SELECT value FROM json_each(?))').pluck(),
      // What the IDs nodes hold weigh, without reading their values into JS: how many and their characters, all of
      // them (what heldIdsSorted reads), and those a search answers (as `results` filters them; answerSize).
      heldSize: db
        .prepare<ResultFilter, HeldSize>(
          'SELECT COUNT(*), COALESCE(SUM(chars), 0), COALESCE(SUM(visible), 0), COALESCE(SUM(visible * chars), 0) FROM (' +
            'SELECT length(i.type) + length(i.value) AS chars, ' +
            '((@having IS NULL OR i.type = @having) AND i.type NOT IN (SELECT value FROM json_each(@hidden))) AS visible ' +
            'FROM ids i WHERE i.id_pk IN (SELECT ni.id_pk FROM node_ids ni WHERE ni.node_pk IN (SELECT value FROM json_each(@targets))))',
        )
        .raw(),
      // The characters the IDs of the answered nodes of a graph add to it: all of them (what is read), and the visible.
      graphIdChars: db
        .prepare<{ nodes: string; hidden: string; overhead: number }, [read: number, visible: number]>(
          'SELECT COALESCE(SUM(@overhead + length(i.type) + length(i.value)), 0), ' +
            'COALESCE(SUM(CASE WHEN i.type IN (SELECT value FROM json_each(@hidden)) THEN 0 ELSE @overhead + length(i.type) + length(i.value) END), 0) ' +
            'FROM node_ids ni JOIN ids i ON i.id_pk = ni.id_pk WHERE ni.node_pk IN (SELECT value FROM json_each(@nodes))',
        )
        .raw(),
      // The graph (docs/explorer.md): each reached node with how many IDs it holds (a range of node_ids' primary
      // key), then the IDs of those it answers.
      graphNodes: db
        .prepare<[nodes: string], [nodePk: number, schemaId: string, keyType: string, keyId: string, idCount: number]>(
          'SELECT n.node_pk, n.schema_id, n.key_type, n.key_id, (SELECT COUNT(*) FROM node_ids ni WHERE ni.node_pk = n.node_pk) ' +
            'FROM nodes n WHERE n.node_pk IN (SELECT value FROM json_each(?))',
        )
        .raw(),
      graphIds: db
        .prepare<[nodes: string], [nodePk: number, type: string, value: string]>(
          'SELECT ni.node_pk, i.type, i.value FROM node_ids ni JOIN ids i ON i.id_pk = ni.id_pk WHERE ni.node_pk IN (SELECT value FROM json_each(?))',
        )
        .raw(),
      results: db.prepare<ResultFilter & { limit: number }, { type: string; id: string; total: number }>(
        'SELECT i.type, i.value AS id, COUNT(*) OVER () AS total FROM ids i ' +
          'WHERE i.id_pk IN (SELECT ni.id_pk FROM node_ids ni WHERE ni.node_pk IN (SELECT value FROM json_each(@targets))) ' +
          'AND (@having IS NULL OR i.type = @having) AND i.type NOT IN (SELECT value FROM json_each(@hidden)) ' +
          'ORDER BY i.type, i.value LIMIT @limit',
      ),
    };
  }

  /** The start nodes of a search from `start`, in one snapshot with `read`, which is given them. */
  startsThen<T>(customerId: string, read: (startNodes: (start: Pick<SearchQuery, 'key' | 'where'>) => number[]) => T): T {
    return this.inSnapshot(() => read((start) => this.startNodes({ customerId, ...start })));
  }

  /** Every node holding the ID (the start nodes of a `where` without a schema). */
  holdersOf(customerId: string, id: IdPair): number[] {
    return this.s.startByWhere.all(customerId, id.type, id.id);
  }

  private holds(nodePk: number, customerId: string, id: IdPair): boolean {
    const idPk = this.s.findId.get(customerId, id.type, id.id);
    return idPk !== undefined && this.s.holds.get(nodePk, idPk) !== undefined;
  }

  /** The search; with `inline`, TOO_BIG_FOR_THE_EVENT_LOOP once it reads more than those bounds. */
  search(query: SearchQuery, inline?: InlineBounds): SearchResult {
    return this.inSnapshot(() => this.searchNow(query, inline));
  }

  private searchNow(query: SearchQuery, inline?: InlineBounds): SearchResult {
    const start = this.startNodes(query);
    const empty: SearchResult = { results: [], total: 0, visitedNodes: start.length };
    if (start.length === 0) return empty;
    const [only] = start;
    if (only !== undefined && start.length === 1 && query.step === 'ONE' && !query.exclude && query.unlinkedTypes.length === 0) {
      const near = this.oneStepFrom(only, query, inline);
      if (near) return near;
    }
    const { nodes: visited, ids } = this.traverse(start, query, inline);
    const startSet = new Set(start);
    const targets = query.exclude ? [...visited].filter((n) => !startSet.has(n)) : [...visited];
    if (targets.length === 0) return { ...empty, visitedNodes: visited.size };
    return { ...this.results(targets, ids.size, query, inline), visitedNodes: visited.size };
  }

  /**
   * Search ONE from one node, with no `links: false` type and no `exclude` (the lookup apps make most): the nodes
   * one step away in one statement, then every ID they hold, which are both the IDs the traversal would read and
   * the results. Three statements instead of five, the same answer and the same bounds (a contract test compares
   * the two). Undefined when more than FEW_TARGETS nodes, or than maxNodes, are that near: the traversal then
   * takes the search, with its bounds and the read pool.
   */
  private oneStepFrom(nodePk: number, query: SearchQuery, inline?: InlineBounds): SearchResult | undefined {
    const bound = Math.min(FEW_TARGETS, query.maxNodes);
    const rows = this.s.oneStep.all(nodePk, bound + 1);
    if (rows.length === 0 || rows.length > bound) return undefined;
    if (inline && rows.length > inline.nodes) throw TOO_BIG_FOR_THE_EVENT_LOOP;
    const near = rows.map(([node]) => node);
    const held = this.heldIds(
      JSON.stringify(near),
      rows.reduce((n, [, ids]) => n + ids, 0),
      query,
      inline,
      true,
    );
    return { ...visibleOf(held, query), visitedNodes: near.length };
  }

  /**
   * Every ID the nodes hold, sorted, after what they weigh is known, from `most`, a bound on their number (a sum of
   * per-node counts, or what the traversal read): a read that may pass the inline IDs moves to the pool when its
   * count (no value read) is past them. One whose IDs may weigh more than the answer's free room or the inline
   * bytes is weighed (heldSize): past maxIds (when `checkMaxIds`) it is refused, past the free room it takes room
   * for its answer (answerSize, with the search's filters), and past the inline bytes it moves to the pool, each
   * before any value is read into JS. Small reads, the most, pay none of it.
   */
  private heldIds(targets: string, most: number, query: SearchQuery, inline: InlineBounds | undefined, checkMaxIds: boolean): Array<[string, string]> {
    if (inline && most > inline.ids && this.count(this.s.countHeld.get(targets)) > inline.ids) throw TOO_BIG_FOR_THE_EVENT_LOOP;
    const heaviest = answerSize(most, most * MAX_ID_CHARS, Infinity);
    const room = query.answerRoom;
    if ((checkMaxIds && most > query.maxIds) || (room && heaviest > room.freeBytes) || (inline && heaviest > inline.bytes)) {
      const [count, chars, visible, visibleChars] = this.heldSize(targets, query);
      if (checkMaxIds && count > query.maxIds) throw tooManyIdsToRead(query.maxIds);
      if (room) this.takeRoom(room, answerSize(visible, visibleChars, query.limit));
      if (inline && answerSize(count, chars, Infinity) > inline.bytes) throw TOO_BIG_FOR_THE_EVENT_LOOP;
    }
    return this.s.heldIdsSorted.all(targets);
  }

  /** COUNT(*) and SUM answer one row whatever they read. */
  private count<T>(row: T | undefined): T {
    return present(row, 'the row of an aggregate');
  }

  private heldSize(targets: string, query: SearchQuery): HeldSize {
    return this.count(this.s.heldSize.get({ targets, having: query.havingType ?? null, hidden: JSON.stringify(query.hiddenTypes) }));
  }

  private takeRoom(room: AnswerRoom, size: number): void {
    if (size > room.freeBytes) room.take(size);
  }

  /** `idsRead`: how many IDs the traversal read, a bound on those the targets hold. */
  private results(targets: number[], idsRead: number, query: SearchQuery, inline?: InlineBounds): Pick<SearchResult, 'results' | 'total'> {
    const json = JSON.stringify(targets);
    if (targets.length <= FEW_TARGETS) return visibleOf(this.heldIds(json, idsRead, query, inline, false), query);
    const heaviest = answerSize(idsRead, idsRead * MAX_ID_CHARS, Infinity);
    const room = query.answerRoom;
    if ((room && heaviest > room.freeBytes) || (inline && heaviest > inline.bytes)) {
      const [, , visible, visibleChars] = this.heldSize(json, query);
      const size = answerSize(visible, visibleChars, query.limit);
      if (room) this.takeRoom(room, size);
      if (inline && size > inline.bytes) throw TOO_BIG_FOR_THE_EVENT_LOOP;
    }
    const rows = this.s.results.all({
      targets: json,
      having: query.havingType ?? null,
      hidden: JSON.stringify(query.hiddenTypes),
      limit: query.limit,
    });
    return { results: rows.map((r) => ({ type: r.type, id: r.id })), total: rows[0]?.total ?? 0 };
  }

  /** The graph; with `inline`, TOO_BIG_FOR_THE_EVENT_LOOP once it reads more than those bounds. */
  graph(query: GraphQuery, inline?: InlineBounds): GraphComponent {
    return this.inSnapshot(() => this.graphNow(query, inline));
  }

  private graphNow(query: GraphQuery, inline?: InlineBounds): GraphComponent {
    const start = this.startNodes(query);
    if (start.length === 0) return { nodes: [], truncated: false };
    // Step ALL from an ID (no key) that links: its holders are one component whatever the schema, and the levels
    // count from all of them (cutGraph; on Neo4j the traversal starts from the ID's vertex).
    const where = query.where;
    const seeds =
      query.step === 'ALL' && query.key === undefined && where?.schemaId !== undefined && !query.unlinkedTypes.includes(where.id.type)
        ? this.holdersOf(query.customerId, where.id)
        : start;
    const { levels } = this.traverse(seeds, query, inline);
    const startSet = new Set(start);
    const levelOf = new Map<number, number>();
    levels.forEach((nodes, level) => nodes.forEach((nodePk) => levelOf.set(nodePk, level)));
    const rows = this.s.graphNodes.all(JSON.stringify([...levelOf.keys()]));
    const candidates = rows.map(([nodePk, schemaId, keyType, keyId, idCount]) => ({
      ref: nodePk,
      level: present(levelOf.get(nodePk), 'the level of a node the traversal reached'),
      start: startSet.has(nodePk),
      schemaId,
      key: { type: keyType, id: keyId },
      idCount,
    }));
    const { chosen, truncated } = cutGraph(candidates, query);
    const answered = JSON.stringify(chosen.map((c) => c.ref));
    this.sizeGraph(answered, chosen, query, inline);
    const idsOf = new Map<number, IdPair[]>(chosen.map((c) => [c.ref, []]));
    for (const [nodePk, type, id] of this.s.graphIds.all(answered)) {
      idsOf.get(nodePk)?.push({ type, id });
    }
    return { nodes: chosen.map((c) => ({ schemaId: c.schemaId, key: c.key, ids: idsOf.get(c.ref) ?? [] })), truncated };
  }

  /**
   * Takes room for the graph's answer (graphAnswerSize), and moves it to the read pool past `inline`, before the
   * IDs of the answered nodes are read. Their lengths are summed only when their count alone could pass a bound.
   */
  private sizeGraph(
    answered: string,
    chosen: ReadonlyArray<{ schemaId: string; key: IdPair; idCount: number }>,
    query: GraphQuery,
    inline?: InlineBounds,
  ): void {
    // An ID is read once per answered node holding it.
    const ids = chosen.reduce((n, c) => n + c.idCount, 0);
    if (inline && ids > inline.ids) throw TOO_BIG_FOR_THE_EVENT_LOOP;
    const keys = graphAnswerSize(
      chosen.map((c) => ({ ...c, idChars: 0 })),
      query.hiddenTypes,
    );
    const heaviest = keys + ids * (ID_OVERHEAD + MAX_ID_CHARS);
    const room = query.answerRoom;
    if ((room === undefined || heaviest <= room.freeBytes) && (inline === undefined || heaviest <= inline.bytes)) return;
    const [read, visible] = this.count(this.s.graphIdChars.get({ nodes: answered, hidden: JSON.stringify(query.hiddenTypes), overhead: ID_OVERHEAD }));
    if (room) this.takeRoom(room, keys + visible);
    if (inline && keys + read > inline.bytes) throw TOO_BIG_FOR_THE_EVENT_LOOP;
  }

  private startNodes(query: Pick<SearchQuery, 'customerId' | 'key' | 'where'>): number[] {
    const c = query.customerId;
    if (query.key) {
      const pk = this.s.findNode.get(c, query.key.schemaId, query.key.key.type, query.key.key.id);
      if (pk === undefined) return [];
      if (query.where && !this.holds(pk, c, query.where.id)) return [];
      return [pk];
    }
    if (!query.where) return [];
    const { id, schemaId } = query.where;
    return schemaId === undefined ? this.s.startByWhere.all(c, id.type, id.id) : this.s.startByWhereInSchema.all(c, id.type, id.id, schemaId);
  }

  /**
   * Breadth-first over the bipartite graph of nodes and IDs, one pair of set-based statements per level, never
   * through an ID of a `links: false` type (SearchQuery.unlinkedTypes):
   * every node and every ID is expanded once, so an ID held by hundreds of nodes costs one lookup, not one per holder.
   * It reads every ID of every node it visits (for ONE, also those of the nodes ONE reaches, which the results are
   * made of), hidden types included, and stops as soon as more than maxNodes nodes or maxIds IDs are read: each
   * statement reads at most one row past the bound. Answers the nodes it visited and the IDs it read, and the
   * nodes level by level (the start nodes first, then those each round reached).
   */
  traverse(start: number[], query: TraversalBounds, inline?: InlineBounds): { nodes: Set<number>; ids: Set<number>; levels: number[][] } {
    const tooManyNodes = () =>
      new DomainError('component_too_large', `The search would visit more than ${query.maxNodes} nodes; narrow it (step ONE, or another start).`);
    const visitedNodes = new Set(start);
    if (visitedNodes.size > query.maxNodes) throw tooManyNodes();
    const visitedIds = new Set<number>();
    const unlinked = new Set(query.unlinkedTypes);
    /** The IDs of `nodes` the nodes link through, never read before; component_too_large once more than maxIds are read in all. */
    const readIdsOf = (nodes: number[]): number[] => {
      let fresh: number[];
      if (unlinked.size === 0) {
        fresh = this.s.idsOfNodes.all(JSON.stringify(nodes), query.maxIds + 1).filter((idPk) => !visitedIds.has(idPk));
        for (const idPk of fresh) visitedIds.add(idPk);
      } else {
        // IDs of `links: false` types count as read, but are never stepped through.
        fresh = [];
        for (const [idPk, type] of this.s.typedIdsOfNodes.all(JSON.stringify(nodes), query.maxIds + 1)) {
          if (visitedIds.has(idPk)) continue;
          visitedIds.add(idPk);
          if (!unlinked.has(type)) fresh.push(idPk);
        }
      }
      if (visitedIds.size > query.maxIds) throw tooManyIdsToRead(query.maxIds);
      if (inline && visitedIds.size > inline.ids) throw TOO_BIG_FOR_THE_EVENT_LOOP;
      return fresh;
    };
    const levels = [start];
    let frontier = start;
    while (frontier.length > 0) {
      const newIds = readIdsOf(frontier);
      if (newIds.length === 0) break;
      const next: number[] = [];
      for (const nodePk of this.s.nodesOfIds.all(JSON.stringify(newIds), query.maxNodes + 1)) {
        if (visitedNodes.has(nodePk)) continue;
        visitedNodes.add(nodePk);
        next.push(nodePk);
        if (visitedNodes.size > query.maxNodes) throw tooManyNodes();
      }
      if (inline && visitedNodes.size > inline.nodes) throw TOO_BIG_FOR_THE_EVENT_LOOP;
      if (next.length > 0) levels.push(next);
      if (query.step === 'ONE') {
        if (next.length > 0) readIdsOf(next);
        break;
      }
      frontier = next;
    }
    return { nodes: visitedNodes, ids: visitedIds, levels };
  }
}

/** The held IDs (sorted) a search answers: without hidden types, of the `having` type only, up to its limit. */
function visibleOf(held: Array<[string, string]>, query: SearchQuery): Pick<SearchResult, 'results' | 'total'> {
  const hidden = new Set(query.hiddenTypes);
  const visible = held.filter(([type]) => !hidden.has(type) && (query.havingType === undefined || type === query.havingType));
  return { results: visible.slice(0, query.limit).map(([type, id]) => ({ type, id })), total: visible.length };
}
