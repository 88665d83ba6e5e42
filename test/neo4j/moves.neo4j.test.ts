// Data that moves between the stores, on a real Neo4j: `npm run migrate` from a SQLite file into Neo4j and back (the
// database starts this file empty, as migrate wants its target), and an export of the SQLite store imported into Neo4j
// and the other way round, each exporting again to the same lines but the header, and answering searches, `_why`,
// the delivery list and eligibility as the source does.
import path from 'node:path';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store';
import { ADMIN_TOKEN, startApp, tempDir, type TestApp } from '../helpers/app';
import { id, uniqueCustomer } from '../helpers/builders-nodesearch';
import { issueLabelledToken } from '../helpers/builders-auth';
import { asMapi, buildCondition, buildDelivery, postDelivery } from '../helpers/deliveries';
import { putSchema } from '../helpers/factories';
import { runMigrate } from '../helpers/migrate';
import { neo4jStoreEnv } from '../helpers/neo4j-services';
import { SQLITE_DRIVER_WAIT_MS, sqliteDriverBuilt } from '../helpers/sqlite-driver-built';
import { neo4jConnectionFromEnv } from '../helpers/store';

const admin = { token: ADMIN_TOKEN };
const m = (value: string) => id('member_id', value);
const device = (value: string) => id('device', value);
const MEMBER = { id_types: [{ type: 'member_id' }, { type: 'device', links: false }, { type: 'email', secure: true, max_holders: 3 }] };

async function exportOf(app: TestApp, customer: string): Promise<string[]> {
  const res = await fetch(`${app.baseUrl}/v1/${customer}/_export?history=true`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
  expect(res.status).toBe(200);
  return (await res.text()).trimEnd().split('\n');
}
async function importInto(app: TestApp, customer: string, lines: string[]): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${app.baseUrl}/v1/${customer}/_import`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/x-ndjson' },
    body: `${lines.join('\n')}\n`,
  });
  return { status: res.status, body: await res.json() };
}

/** A customer with settings, rules, nodes of awkward keys, a rekeying, an erasure, a ban and a delivery with an impression. */
async function source(app: TestApp, customer: string): Promise<{ mapi: string; deliveryId: number }> {
  const write = async (op: string, body: unknown) => {
    const res = await app.call('POST', `/v1/${customer}/node/${op}`, { ...admin, body });
    expect(res.status).toBeLessThan(300);
  };
  await putSchema(app, customer, 'member', MEMBER);
  expect((await app.call('PUT', `/v1/${customer}/settings`, { ...admin, body: { timezone: 'Asia/Tokyo' } })).status).toBe(200);
  expect((await app.call('PUT', `/v1/${customer}/blocklist`, { ...admin, body: { rules: [{ type: 'device', values: ['blocked'] }] } })).status).toBe(200);
  await write('_create', { schema: 'member', key: m('ann'), ids: [device('d1'), id('email', 'ann@example.com')] });
  await write('_create', { schema: 'member', key: m('bob'), ids: [device('d1')] });
  await write('_create', { schema: 'member', key: m('\u{10000}'), ids: [device('\uE000')] });
  await write('_create', { schema: 'member', key: m('\uFFFF'), ids: [device('\u{1F600}')] });
  await write('_rekeying', { schema: 'member', key: m('bob'), set: { id: 'rob' } });
  await write('_create', { schema: 'member', key: m('eve'), ids: [device('d3'), id('email', 'eve@example.com')] });
  expect((await app.call('POST', `/v1/${customer}/_erase`, { ...admin, body: { id: m('eve'), scope: 'person' } })).status).toBe(200);
  const separated = await app.call('POST', `/v1/${customer}/_separate`, {
    ...admin,
    body: {
      nodes: [
        { schema: 'member', key: m('rob') },
        { schema: 'member', key: m('\uFFFF') },
      ],
      remove_shared_from: 'none',
    },
  });
  expect(separated.status).toBe(200);
  const mapi = await issueLabelledToken(app, customer, 'mapi', 'deliveries');
  const delivery = await postDelivery(app, mapi.token, buildDelivery({ condition: buildCondition({ max_total_count: 2, max_total_count_per_day: 5 }) }));
  expect((await app.call('POST', `/v1/delivery/${delivery.delivery_id}/_impression`, asMapi(mapi.token, { user: m('ann') }))).status).toBe(201);
  return { mapi: mapi.token, deliveryId: delivery.delivery_id };
}

/** What the two customers answer, that the data decides: a search, a _why, and a token's delivery list. */
async function answers(app: TestApp, customer: string) {
  const search = await app.call('POST', `/v1/${customer}/_search`, { ...admin, body: { match: { from: { schema: 'member', key: m('ann') }, step: 'ALL' } } });
  const why = await app.call('POST', `/v1/${customer}/_why`, {
    ...admin,
    body: { from: { schema: 'member', key: m('ann') }, to: { schema: 'member', key: m('rob') } },
  });
  return { search: [search.status, search.body], why: [why.status, why.body] };
}

describe('data that moves between SQLite and Neo4j', () => {
  let neo: TestApp;
  let sqlite: TestApp;
  beforeAll(async () => {
    await sqliteDriverBuilt();
    neo = await startApp();
    sqlite = await startApp({ store: new SqliteStore({ path: ':memory:' }) });
  }, SQLITE_DRIVER_WAIT_MS);
  afterAll(async () => {
    await neo.close();
    await sqlite.close();
  });

  // First, while the database is as this file found it (emptied): migrate wants an empty target.
  test('when npm run migrate moves a SQLite file into Neo4j and back, then every export is the same, and so are the tokens', async () => {
    const dir = tempDir('migrate-neo4j');
    const file = path.join(dir, 'source.sqlite');
    const fileApp = await startApp({ store: new SqliteStore({ path: file }) });
    const customers = ['acme', 'beta'];
    try {
      for (const customer of customers) await source(fileApp, customer);
    } finally {
      await fileApp.close();
    }
    const env = neo4jStoreEnv(neo4jConnectionFromEnv());
    const there = await runMigrate(['--from', `sqlite:${file}`, '--to', 'neo4j'], env);
    expect(there).toMatchObject({ code: 0, stderr: '' });
    expect(there.stdout).toContain('the exports of all 2 customers and the tokens are the same on both stores');
    const back = path.join(dir, 'back.sqlite');
    const home = await runMigrate(['--from', 'neo4j', '--to', `sqlite:${back}`], env);
    expect(home).toMatchObject({ code: 0, stderr: '' });
    expect(home.stdout).toContain('the exports of all 2 customers and the tokens are the same on both stores');
    // Into what it copied, again: nothing left to copy, and the comparison. From another store: refused.
    const again = await runMigrate(['--from', `sqlite:${file}`, '--to', 'neo4j'], env);
    expect(again).toMatchObject({ code: 0, stderr: '' });
    expect(again.stdout).toContain('going on from an interrupted run: 2 customers were copied already, and their exports match');
    expect(again.stdout).toContain('the exports of all 2 customers and the tokens are the same on both stores');
    const empty = path.join(dir, 'empty.sqlite');
    await new SqliteStore({ path: empty }).close();
    expect(await runMigrate(['--from', `sqlite:${empty}`, '--to', 'neo4j'], env)).toMatchObject({
      code: 2,
      stderr:
        "migrate: --to holds data already, and customer acme there is not a copy of --from's: migrate into an empty store, or into what an interrupted run of the same copy left\n",
    });
    const original = await startApp({ store: new SqliteStore({ path: file }) });
    try {
      for (const customer of customers) {
        expect((await exportOf(neo, customer)).slice(1)).toEqual((await exportOf(original, customer)).slice(1));
        expect(await answers(neo, customer)).toEqual(await answers(original, customer));
      }
    } finally {
      await original.close();
    }
  });

  test('when a SQLite export is imported into Neo4j, and that export into SQLite, then each exports the same lines but its header, and answers alike', async () => {
    const from = uniqueCustomer('moves');
    const { deliveryId } = await source(sqlite, from);
    const exported = await exportOf(sqlite, from);
    const onNeo = uniqueCustomer('moves-neo');
    expect((await importInto(neo, onNeo, exported)).status).toBe(200);
    const fromNeo = await exportOf(neo, onNeo);
    expect(fromNeo.slice(1)).toEqual(exported.slice(1));
    expect(await answers(neo, onNeo)).toEqual(await answers(sqlite, from));
    const backHome = uniqueCustomer('moves-back');
    expect((await importInto(sqlite, backHome, fromNeo)).status).toBe(200);
    expect((await exportOf(sqlite, backHome)).slice(1)).toEqual(exported.slice(1));
    // The impression counted on SQLite counts on Neo4j: the cap of 2 is reached at the second display there.
    const mapi = await issueLabelledToken(neo, onNeo, 'mapi', 'deliveries');
    expect((await neo.call('POST', `/v1/delivery/${deliveryId}/_impression`, asMapi(mapi.token, { user: m('ann') }))).status).toBe(201);
    expect((await neo.call('POST', `/v1/delivery/${deliveryId}/_impression`, asMapi(mapi.token, { user: m('ann') }))).status).toBe(409);
    const eligible = (app: TestApp, token: string) => app.call('POST', '/v1/delivery/_eligible', asMapi(token, { user: m('rob'), event_name: 'app_open' }));
    const sqliteMapi = await issueLabelledToken(sqlite, from, 'mapi', 'eligible');
    expect((await eligible(neo, mapi.token)).body).toEqual((await eligible(sqlite, sqliteMapi.token)).body);
  });
});
