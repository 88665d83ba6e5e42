// `_why` on SQLite: the search of src/domain/why-chain.ts, its reads answered by these statements, in the read
// transaction the store runs it in: on the event loop within the inline bounds, else whole on the read pool
// (src/store/sqlite/search-worker.ts), as a search.
/* eslint-disable @typescript-eslint/only-throw-error -- TOO_BIG_FOR_THE_EVENT_LOOP is a sentinel, caught by the store: no Error or stack to build */
import type Database from 'better-sqlite3';
import { at, present } from '../../domain/invariant';
import type { IdPair } from '../../domain/model';
import type { ChainNode, WhyFound, WhyQuery, WhyStart } from '../../domain/why';
import { runWhySearch, type Links, type WhyGraph } from '../../domain/why-chain';
import { type InlineBounds, TOO_BIG_FOR_THE_EVENT_LOOP } from './sqlite-search';

/** Vertices are numbers, so the search's maps hash no strings: a node's primary key, and an ID's negated. */
const nodePks = (vertices: number[]) => JSON.stringify(vertices);
const idPks = (vertices: number[]) => JSON.stringify(vertices.map((v) => -v));

const isNumbers = (list: unknown): list is number[] => Array.isArray(list) && list.every((v) => typeof v === 'number');
const isStrings = (list: unknown): list is string[] => Array.isArray(list) && list.every((v) => typeof v === 'string');

/** A column of json_group_array over primary keys, parsed. */
function numbersOf(json: string): number[] {
  const list: unknown = JSON.parse(json);
  if (!isNumbers(list)) throw new Error('Invariant broken: a list of primary keys holds something else.');
  return list;
}

/** A column of json_group_array over text, parsed. */
function stringsOf(json: string): string[] {
  const list: unknown = JSON.parse(json);
  if (!isStrings(list)) throw new Error('Invariant broken: a list of texts holds something else.');
  return list;
}

/** json_group_array answers one row whatever it read. */
const theRow = <T>(row: T | undefined): T => present(row, 'the row of json_group_array');

/** SQLite's LIMIT of no limit. */
const ALL_ROWS = -1;

export class SqliteWhy {
  private readonly s;

  constructor(db: Database.Database) {
    // Links come back as one row of two JSON arrays (json_group_array keeps the rows' order in both): a row a link
    // cost three times the CPU for the tens of thousands of links of a hub. LIMIT: one row past what the event loop
    // may read proves the search too large for it without reading the rest (ALL_ROWS elsewhere). CAST, because
    // SQLite plans with a bare `LIMIT ?`'s value and so prepares the statement again on every bind
    // (src/store/sqlite/sqlite-search.ts).
    const links = <P extends unknown[]>(sql: string) => db.prepare<[...P, limit: number], [near: string, far: string]>(sql).raw();
    this.s = {
      idsOfNodes: links<[nodes: string]>(
        'SELECT json_group_array(near), json_group_array(far) FROM (' +
          'SELECT node_pk AS near, id_pk AS far FROM node_ids WHERE node_pk IN (SELECT value FROM json_each(?)) LIMIT CAST(? AS INTEGER))',
      ),
      // The same without the IDs of `links: false` types: a lookup of ids by primary key per row, paid only by
      // customers that have such types.
      linkedIdsOfNodes: links<[nodes: string, unlinkedTypes: string]>(
        'SELECT json_group_array(near), json_group_array(far) FROM (' +
          'SELECT ni.node_pk AS near, ni.id_pk AS far FROM node_ids ni JOIN ids i ON i.id_pk = ni.id_pk ' +
          'WHERE ni.node_pk IN (SELECT value FROM json_each(?)) AND i.type NOT IN (SELECT value FROM json_each(?)) LIMIT CAST(? AS INTEGER))',
      ),
      nodesOfIds: links<[ids: string]>(
        'SELECT json_group_array(near), json_group_array(far) FROM (' +
          'SELECT id_pk AS near, node_pk AS far FROM node_ids WHERE id_pk IN (SELECT value FROM json_each(?)) LIMIT CAST(? AS INTEGER))',
      ),
      // Labels too as a row of JSON arrays, one a column.
      idValues: db
        .prepare<[idPks: string], [idPk: string, type: string, value: string]>(
          'SELECT json_group_array(id_pk), json_group_array(type), json_group_array(value) FROM ids WHERE id_pk IN (SELECT value FROM json_each(?))',
        )
        .raw(),
      nodeKeys: db
        .prepare<[nodePks: string], [nodePk: string, schemaId: string, keyType: string, keyId: string]>(
          'SELECT json_group_array(node_pk), json_group_array(schema_id), json_group_array(key_type), json_group_array(key_id) FROM nodes ' +
            'WHERE node_pk IN (SELECT value FROM json_each(?))',
        )
        .raw(),
    };
  }

  /**
   * Run inside one read transaction, with the search's start nodes. With `inline`, TOO_BIG_FOR_THE_EVENT_LOOP as soon
   * as the start nodes, or the rows of holders and held IDs read, pass its nodes or ids: no statement reads more than
   * one row past them.
   */
  why(query: WhyQuery, startNodes: (start: WhyStart) => number[], inline?: InlineBounds): WhyFound {
    const from = startNodes(query.from);
    if (from.length === 0) return { missing: 'from' };
    if (inline && from.length > inline.nodes) throw TOO_BIG_FOR_THE_EVENT_LOOP;
    const to = startNodes(query.to);
    if (to.length === 0) return { missing: 'to' };
    if (inline && from.length + to.length > inline.nodes) throw TOO_BIG_FOR_THE_EVENT_LOOP;
    const room = inline && { nodes: inline.nodes - from.length - to.length, ids: inline.ids };
    return { chain: runWhySearch(this.graph(query.unlinkedTypes, room), from, to, query) };
  }

  /** The search's reads; with `room`, each reads at most one row more than is left of it, and past it the search moves off the event loop. */
  private graph(unlinkedTypes: string[], room?: { nodes: number; ids: number }): WhyGraph<number> {
    const s = this.s;
    const unlinked = JSON.stringify(unlinkedTypes);
    const most = (left: 'nodes' | 'ids') => (room ? room[left] + 1 : ALL_ROWS);
    /** The links of a row of two JSON arrays, its IDs negated (`idsAt`), within what is left of `left`. */
    const linksOf = (row: [near: string, far: string] | undefined, left: 'nodes' | 'ids', idsAt: 0 | 1): Links<number> => {
      const [near, far] = theRow(row);
      const links: Links<number> = [numbersOf(near), numbersOf(far)];
      const ids = links[idsAt];
      ids.forEach((id, i) => {
        ids[i] = -id;
      });
      if (room) {
        if (ids.length > room[left]) throw TOO_BIG_FOR_THE_EVENT_LOOP;
        room[left] -= ids.length;
      }
      return links;
    };
    return {
      idsOfNodes: (nodes) =>
        linksOf(
          unlinkedTypes.length === 0 ? s.idsOfNodes.get(nodePks(nodes), most('ids')) : s.linkedIdsOfNodes.get(nodePks(nodes), unlinked, most('ids')),
          'ids',
          1,
        ),
      nodesOfIds: (ids) => linksOf(s.nodesOfIds.get(idPks(ids), most('nodes')), 'nodes', 0),
      labels: (nodes, ids) => {
        const [nodePk, schemaId, keyType, keyId] = theRow(s.nodeKeys.get(nodePks(nodes)));
        const [idPk, type, value] = theRow(s.idValues.get(idPks(ids)));
        const [schemaIds, keyTypes, keyIds] = [stringsOf(schemaId), stringsOf(keyType), stringsOf(keyId)];
        const [types, values] = [stringsOf(type), stringsOf(value)];
        return {
          nodes: numbersOf(nodePk).map((pk, i): [number, ChainNode] => [pk, { schemaId: at(schemaIds, i), key: { type: at(keyTypes, i), id: at(keyIds, i) } }]),
          ids: numbersOf(idPk).map((pk, i): [number, IdPair] => [-pk, { type: at(types, i), id: at(values, i) }]),
        };
      },
    };
  }
}
