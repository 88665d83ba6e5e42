// `_why` on SQLite: the search of src/domain/why-chain.ts, its reads answered by these statements, in the read
// transaction the store runs it in.
import type Database from 'better-sqlite3';
import type { IdPair } from '../../domain/model';
import type { WhyFound, WhyQuery, WhyStart } from '../../domain/why';
import { runWhySearch, type WhyGraph } from '../../domain/why-chain';

/** Vertices are numbers, so the search's maps hash no strings: a node's primary key, and an ID's negated. */
const nodePks = (vertices: number[]) => JSON.stringify(vertices);
const idPks = (vertices: number[]) => JSON.stringify(vertices.map((v) => -v));

export class SqliteWhy {
  private readonly graph: WhyGraph<number>;

  constructor(db: Database.Database) {
    const s = {
      idsOfNodes: db
        .prepare('SELECT ni.node_pk, ni.id_pk, i.type FROM node_ids ni JOIN ids i ON i.id_pk = ni.id_pk WHERE ni.node_pk IN (SELECT value FROM json_each(?))')
        .raw(),
      nodesOfIds: db.prepare('SELECT id_pk, node_pk FROM node_ids WHERE id_pk IN (SELECT value FROM json_each(?))').raw(),
      idValues: db.prepare('SELECT id_pk, type, value FROM ids WHERE id_pk IN (SELECT value FROM json_each(?))').raw(),
      nodeKeys: db.prepare('SELECT node_pk, schema_id, key_type, key_id FROM nodes WHERE node_pk IN (SELECT value FROM json_each(?))').raw(),
    };
    this.graph = {
      idsOfNodes: (nodes) => {
        const rows = s.idsOfNodes.all(nodePks(nodes)) as Array<[number, number, string]>;
        for (const row of rows) row[1] = -row[1];
        return rows;
      },
      nodesOfIds: (ids) => {
        const rows = s.nodesOfIds.all(idPks(ids)) as Array<[number, number]>;
        for (const row of rows) row[0] = -row[0];
        return rows;
      },
      labels: (nodes, ids) => ({
        nodes: (s.nodeKeys.all(nodePks(nodes)) as Array<[number, string, string, string]>).map(([pk, schemaId, type, id]) => [
          pk,
          { schemaId, key: { type, id } },
        ]),
        ids: (s.idValues.all(idPks(ids)) as Array<[number, string, string]>).map(([pk, type, id]): [number, IdPair] => [-pk, { type, id }]),
      }),
    };
  }

  /** Run inside one read transaction, with the search's start nodes. */
  why(query: WhyQuery, startNodes: (start: WhyStart) => number[]): WhyFound {
    const from = startNodes(query.from);
    if (from.length === 0) return { missing: 'from' };
    const to = startNodes(query.to);
    if (to.length === 0) return { missing: 'to' };
    return { chain: runWhySearch(this.graph, from, to, query) };
  }
}
