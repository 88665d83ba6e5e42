// The Neo4j store backed up and restored as docs/operations.md says, on a local server of neo4j-local/ with a data
// folder of its own: what the service wrote through HTTP (schema, nodes, a token) is found again after the server is
// stopped, its database dumped with neo4j-admin (admin()), the data folder deleted, the dump loaded into a new one and
// the server started on it. A dump while the server runs is refused, as Community Edition says it must be.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { admin, freePort, type LocalNeo4j, missingTools, start } from '../../neo4j-local/neo4j-local';
import { ADMIN_TOKEN, call, type Service, serviceEnv, startService, stopService, untilReady } from '../helpers/neo4j-services';

const NEO4J_START_MS = 180_000;
/** The service's back-off (at most 5 s) and cypher/schema/ on a fresh database, with room for a busy machine. */
const READY_BOUND_MS = 60_000;
const PASSWORD = crypto.randomBytes(12).toString('hex');
const SCHEMA = { id_types: [{ type: 'member_id' }, { type: 'device' }] };
const member = (id: string) => ({ type: 'member_id', id });
const search = { match: { from: { schema: 'member', key: member('m-1') } } };

describe('a dump of the local server, loaded into an empty data folder', () => {
  let port: number;
  let home: string;
  let data: string;
  let dumps: string;
  let neo4j: LocalNeo4j | undefined;
  let service: Service | undefined;

  const connection = () => ({ uri: `bolt://127.0.0.1:${port}`, username: 'neo4j', password: PASSWORD, database: 'neo4j' });
  const startServer = async () => {
    neo4j = await start({ port, password: PASSWORD, data, heap: '512m', pageCacheMb: 64, quickJit: true, timeoutMs: NEO4J_START_MS });
  };
  const startReadyService = async () => {
    service = await startService(serviceEnv(connection()));
    await untilReady(service, READY_BOUND_MS);
    return service.base;
  };

  beforeAll(async () => {
    const missing = missingTools();
    if (missing) throw new Error(`this suite starts a local Neo4j of its own (neo4j-local/) and cannot run here: ${missing}. Install java 17+ and mvn.`);
    port = await freePort();
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'idlink-dump-load-'));
    data = path.join(home, 'data');
    dumps = path.join(home, 'dumps');
    fs.mkdirSync(dumps);
  });

  afterAll(async () => {
    if (service) await stopService(service);
    await neo4j?.stop(30_000);
    if (home) fs.rmSync(home, { recursive: true, force: true });
  });

  test(
    'when the server is stopped, dumped, its data folder deleted and the dump loaded into a new one, then the service finds the nodes, the schema and the token written before; a dump while the server runs is refused',
    async () => {
      await startServer();
      let base = await startReadyService();
      expect((await call(base, 'PUT', '/v1/acme/schema/member', { token: ADMIN_TOKEN, body: SCHEMA })).status).toBe(201);
      const issued = await call(base, 'POST', '/v1/acme/token', { token: ADMIN_TOKEN, body: { kind: 'bearer' } });
      expect(issued.status).toBe(201);
      const bearer = (issued.json as { token: string }).token;
      for (const [id, device] of [
        ['m-1', 'shared-tv'],
        ['m-2', 'shared-tv'],
        ['m-3', 'own-phone'],
      ] as const) {
        const body = { schema: 'member', key: member(id), ids: [{ type: 'device', id: device }] };
        expect((await call(base, 'POST', '/v1/acme/node/_create', { token: bearer, body })).status).toBe(201);
      }
      const before = await call(base, 'POST', '/v1/acme/_search', { token: bearer, body: search });
      expect(before.json).toEqual({
        results: [
          { type: 'device', id: 'shared-tv' },
          { type: 'member_id', id: 'm-1' },
          { type: 'member_id', id: 'm-2' },
        ],
        total: 3,
      });

      const whileRunning = await admin(['database', 'dump', 'neo4j', `--to-path=${dumps}`], { data, heap: '256m' });
      expect(whileRunning.code).not.toBe(0);
      expect(whileRunning.output).toContain('The database is in use');
      expect(fs.readdirSync(dumps)).toEqual([]);

      const first = service;
      service = undefined;
      if (first) expect(await stopService(first)).toEqual({ code: 0, signal: null });
      await neo4j?.stop(30_000);
      const dumped = await admin(['database', 'dump', 'neo4j', `--to-path=${dumps}`], { data, heap: '256m' });
      expect([dumped.code, dumped.output]).toEqual([0, expect.stringContaining('Dump completed successfully')]);
      expect(fs.readdirSync(dumps)).toEqual(['neo4j.dump']);

      // The disk is lost: nothing of the server is left but the dump.
      fs.rmSync(data, { recursive: true, force: true });
      const loaded = await admin(['database', 'load', 'neo4j', `--from-path=${dumps}`], { data, heap: '256m' });
      expect([loaded.code, loaded.output]).toEqual([0, expect.stringContaining('Done:')]);

      await startServer();
      base = await startReadyService();
      expect(await call(base, 'POST', '/v1/acme/_search', { token: bearer, body: search })).toMatchObject({ status: 200, json: before.json });
      expect(
        (await call(base, 'POST', '/v1/acme/_search', { token: bearer, body: { match: { from: { schema: 'member', key: member('m-3') } } } })).json,
      ).toEqual({
        results: [
          { type: 'device', id: 'own-phone' },
          { type: 'member_id', id: 'm-3' },
        ],
        total: 2,
      });
      // The restored store takes writes as before: the same key is refused, a new one taken.
      expect((await call(base, 'POST', '/v1/acme/node/_create', { token: bearer, body: { schema: 'member', key: member('m-1') } })).status).toBe(409);
      expect((await call(base, 'POST', '/v1/acme/node/_create', { token: bearer, body: { schema: 'member', key: member('m-4') } })).status).toBe(201);
    },
    3 * NEO4J_START_MS,
  );
});
