// Concurrent writes (decisions.md §5): a race of creates gives exactly one 201; parallel inserts never lose a write.
import fs from 'node:fs';
import path from 'node:path';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store';
import { ADMIN_TOKEN, startApp, tempDir, type TestApp } from '../helpers/app';
import { memberSchema, putSchema } from '../helpers/factories';
import { buildSearch, nodeIds, nodePath, searchPath, uniqueCustomer } from '../helpers/builders-auth';

const PARALLEL = 50;
const m = (id: string) => ({ type: 'member_id', id });
const device = (id: string) => ({ type: 'device', id });

const statusCounts = (statuses: number[]) => statuses.reduce<Record<number, number>>((acc, s) => ({ ...acc, [s]: (acc[s] ?? 0) + 1 }), {});

describe.each([
  ['an in-memory store', false],
  ['a file store (WAL)', true],
])('concurrency on %s', (_name, onFile) => {
  let app: TestApp;
  let dir: string | undefined;
  let customer: string;

  beforeAll(async () => {
    if (onFile) dir = tempDir('idlink-concurrency-');
    app = await startApp(dir ? { store: new SqliteStore({ path: path.join(dir, 'idlink.sqlite') }) } : {});
  });
  afterAll(async () => {
    await app.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    customer = uniqueCustomer('race');
    await putSchema(app, customer, 'member', memberSchema);
  });

  test(`when ${PARALLEL} creates of one key race, then exactly one is 201, the rest 409 node_exists, and the node is whole`, async () => {
    const responses = await Promise.all(
      Array.from({ length: PARALLEL }, (_, i) =>
        app.call('POST', nodePath(customer, '_create'), { body: { schema: 'member', key: m('m-race'), ids: [device(`d-${i}`)] } }),
      ),
    );
    expect(statusCounts(responses.map((r) => r.status))).toEqual({ 201: 1, 409: PARALLEL - 1 });
    for (const res of responses.filter((r) => r.status === 409)) expect(res.body.code).toBe('node_exists');

    // The winner's node holds its key and exactly its own device: no loser left a half-made node or stray ID.
    const winner = responses.findIndex((r) => r.status === 201);
    expect(await nodeIds(app, customer, 'member', m('m-race'))).toEqual([device(`d-${winner}`), m('m-race')]);
    const search = await app.call('POST', searchPath(customer), { body: buildSearch({ schema: 'member', key: m('m-race') }) });
    expect(search.body).toEqual({ results: [device(`d-${winner}`), m('m-race')], total: 2 });
  });

  test(`when ${PARALLEL} inserts of distinct IDs into one node run at once, then all are 201 and all ${PARALLEL} IDs are held`, async () => {
    const created = await app.call('POST', nodePath(customer, '_create'), { body: { schema: 'member', key: m('m-1') } });
    expect(created.status).toBe(201);

    const responses = await Promise.all(
      Array.from({ length: PARALLEL }, (_, i) =>
        app.call('POST', nodePath(customer, '_insert'), { body: { schema: 'member', key: m('m-1'), ids: [device(`d-${String(i).padStart(2, '0')}`)] } }),
      ),
    );
    expect(statusCounts(responses.map((r) => r.status))).toEqual({ 201: PARALLEL });

    const expected = Array.from({ length: PARALLEL }, (_, i) => device(`d-${String(i).padStart(2, '0')}`));
    const search = await app.call('POST', searchPath(customer), { body: buildSearch({ schema: 'member', key: m('m-1') }) });
    expect(search.status).toBe(200);
    expect(search.body).toEqual({ results: [...expected, m('m-1')], total: PARALLEL + 1 });
  });

  test(`when ${PARALLEL} inserts of the same ID race, then exactly one is 201 and the rest 409 id_exists`, async () => {
    await app.call('POST', nodePath(customer, '_create'), { body: { schema: 'member', key: m('m-1') } });
    const responses = await Promise.all(
      Array.from({ length: PARALLEL }, () => app.call('POST', nodePath(customer, '_insert'), { body: { schema: 'member', key: m('m-1'), ids: [device('d-same')] } })),
    );
    expect(statusCounts(responses.map((r) => r.status))).toEqual({ 201: 1, 409: PARALLEL - 1 });
    for (const res of responses.filter((r) => r.status === 409)) expect(res.body.code).toBe('id_exists');
    expect(await nodeIds(app, customer, 'member', m('m-1'))).toEqual([device('d-same'), m('m-1')]);
  });

  test(`when ${PARALLEL} nodes sharing one ID are created at once, then all are 201 and a search links every one of them`, async () => {
    const responses = await Promise.all(
      Array.from({ length: PARALLEL }, (_, i) =>
        app.call('POST', nodePath(customer, '_create'), {
          token: ADMIN_TOKEN,
          body: { schema: 'member', key: m(`m-${String(i).padStart(2, '0')}`), ids: [device('d-shared')] },
        }),
      ),
    );
    expect(statusCounts(responses.map((r) => r.status))).toEqual({ 201: PARALLEL });
    const search = await app.call('POST', searchPath(customer), { body: { match: { from: { where: device('d-shared') }, having: { type: 'member_id' } } } });
    expect(search.body.total).toBe(PARALLEL);
  });
});
