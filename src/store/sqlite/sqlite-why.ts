// `_why` on SQLite: the search of src/domain/why-chain.ts, its reads answered by these statements, in the read
// transaction the store runs it in.
import type Database from 'better-sqlite3';
import type { IdPair } from '../../domain/model';
import type { WhyFound, WhyQuery, WhyStart } from '../../domain/why';
import { runWhySearch, type WhyGraph, type WhyVertex } from '../../domain/why-chain';

/** Vertices are 'n' and a node's primary key, or 'i' and an ID's. */
const pks = (vertices: WhyVertex[]) => JSON.stringify(vertices.map((v) => Number(v.slice(1))));

export class SqliteWhy {
  private readonly graph: WhyGraph;

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
      idsOfNodes: (nodes) => (s.idsOfNodes.all(pks(nodes)) as Array<[number, number, string]>).map(([node, id, type]) => [`n${node}`, `i${id}`, type]),
      nodesOfIds: (ids) => (s.nodesOfIds.all(pks(ids)) as Array<[number, number]>).map(([id, node]) => [`i${id}`, `n${node}`]),
      labels: (nodes, ids) => ({
        nodes: (s.nodeKeys.all(pks(nodes)) as Array<[number, string, string, string]>).map(([pk, schemaId, type, id]) => [
          `n${pk}`,
          { schemaId, key: { type, id } },
        ]),
        ids: (s.idValues.all(pks(ids)) as Array<[number, string, string]>).map(([pk, type, id]): [WhyVertex, IdPair] => [`i${pk}`, { type, id }]),
      }),
    };
  }

  /** Run inside one read transaction, with the search's start nodes. */
  why(query: WhyQuery, startNodes: (start: WhyStart) => number[]): WhyFound {
    const from = startNodes(query.from);
    if (from.length === 0) return { missing: 'from' };
    const to = startNodes(query.to);
    if (to.length === 0) return { missing: 'to' };
    const vertices = (nodes: number[]) => nodes.map((pk) => `n${pk}`);
    return { chain: runWhySearch(this.graph, vertices(from), vertices(to), query) };
  }
}
