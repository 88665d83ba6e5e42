// `npm run migrate` (dist/migrate.js, what the npm script runs after building) between two SQLite files, with the
// service stopped: every customer and token copied, the exports compared and found the same, the same tokens
// answering the same on the copy, a revoked one still refused; a target that holds anything but what an earlier run
// of the same copy left, or bad arguments, refused with exit 2; a run killed part-way gone on from by the next. The runs between SQLite and Neo4j are in test/neo4j/migrate.neo4j.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import Database from '../../src/store/sqlite/driver';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store';
import { importMadeUp } from '../helpers/export-body';
import { runMigrate, startMigrate } from '../helpers/migrate';
import { freshDir, installCleanup, send, startServer } from '../helpers/server-process';
import { waitFor } from '../helpers/settling';

installCleanup();

const ADMIN = 'migrate-admin-token-0123456789abcdef';
const settingsFor = (file: string): Record<string, string> => ({ PORT: '0', HOST: '127.0.0.1', SQLITE_PATH: file, ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'info' });
const member = (id: string) => ({ type: 'member_id', id });

async function exportOf(base: string, customer: string): Promise<string[]> {
  const res = await fetch(`${base}/v1/${customer}/_export?history=true`, { headers: { Authorization: `Bearer ${ADMIN}` } });
  expect(res.status).toBe(200);
  return (await res.text()).split('\n').slice(1);
}

test('when two SQLite files are migrated, then every customer and token is copied, the exports match, and the same tokens answer the same', async () => {
  const dir = freshDir('migrate');
  const source = path.join(dir, 'source.sqlite');
  const target = path.join(dir, 'target.sqlite');
  const first = await startServer(settingsFor(source), dir);
  const tokens: Record<string, { token: string; token_id: string }> = {};
  for (const customer of ['acme', 'beta', 'tokens-only']) {
    const issued = await send(first.base, 'POST', `/v1/${customer}/token`, ADMIN, { kind: 'bearer', label: 'app' });
    expect(issued.status).toBe(201);
    tokens[customer] = issued.json as { token: string; token_id: string };
  }
  const revoked = (await send(first.base, 'POST', '/v1/acme/token', ADMIN, { kind: 'bearer' })).json as { token: string; token_id: string };
  expect((await send(first.base, 'DELETE', `/v1/acme/token/${revoked.token_id}`, ADMIN)).status).toBe(204);
  for (const customer of ['acme', 'beta']) {
    expect((await send(first.base, 'PUT', `/v1/${customer}/schema/member`, ADMIN, { id_types: [{ type: 'member_id' }, { type: 'device' }] })).status).toBe(201);
    for (let i = 0; i < 50; i += 1) {
      const res = await send(first.base, 'POST', `/v1/${customer}/node/_create`, ADMIN, {
        schema: 'member',
        key: member(`m-${i}`),
        ids: [{ type: 'device', id: `d-${i % 7}` }],
      });
      expect(res.status).toBe(201);
    }
  }
  expect((await send(first.base, 'PUT', '/v1/beta/settings', ADMIN, { require_token: true })).status).toBe(200);
  const fed = await send(first.base, 'GET', '/v1/acme/_changes?limit=10', ADMIN);
  expect(fed.status).toBe(200);
  const { next: cursor } = fed.json as { next: string };
  first.server.child.kill('SIGTERM');
  await first.server.exited;

  const run = await runMigrate(['--from', `sqlite:${source}`, '--to', `sqlite:${target}`]);
  expect(run).toMatchObject({ code: 0, stderr: '' });
  expect(run.stdout).toContain('copied 3 customers, 200 IDs and 4 tokens');
  expect(run.stdout).toContain('the exports of all 3 customers and the tokens are the same on both stores');

  // Into what it copied, again: nothing left to copy, and the comparison. From another store: refused.
  const again = await runMigrate(['--from', `sqlite:${source}`, '--to', `sqlite:${target}`]);
  expect(again).toMatchObject({ code: 0, stderr: '' });
  expect(again.stdout).toContain('going on from an interrupted run: 3 customers were copied already, and their exports match');
  expect(again.stdout).toContain('copied 0 customers, 0 IDs and 0 tokens');
  const empty = path.join(dir, 'empty.sqlite');
  await new SqliteStore({ path: empty }).close();
  expect(await runMigrate(['--from', `sqlite:${empty}`, '--to', `sqlite:${target}`])).toMatchObject({
    code: 2,
    stderr:
      "migrate: --to holds data already, and customer acme there is not a copy of --from's: migrate into an empty store, or into what an interrupted run of the same copy left\n",
  });
  expect(await runMigrate(['--from', `sqlite:${source}`])).toMatchObject({ code: 2 });
  expect(await runMigrate(['--from', `sqlite:${source}`, '--to', `sqlite:${source}`])).toMatchObject({ code: 2 });

  const copy = await startServer(settingsFor(target), dir);
  const original = await startServer(settingsFor(source), dir);
  for (const customer of ['acme', 'beta']) expect(await exportOf(copy.base, customer)).toEqual(await exportOf(original.base, customer));
  const search = (base: string, token: string) =>
    send(base, 'POST', '/v1/beta/_search', token, { match: { from: { schema: 'member', key: member('m-1') }, step: 'ALL' } });
  expect(await search(copy.base, tokens.beta?.token ?? '')).toEqual(await search(original.base, tokens.beta?.token ?? ''));
  expect((await search(copy.base, tokens.beta?.token ?? '')).status).toBe(200);
  expect((await send(copy.base, 'POST', '/v1/acme/_search', revoked.token, { match: { from: { schema: 'member', key: member('m-1') } } })).status).toBe(401);
  expect((await send(copy.base, 'GET', '/v1/tokens-only/token', ADMIN)).json).toEqual((await send(original.base, 'GET', '/v1/tokens-only/token', ADMIN)).json);
  // The copy numbers its feed its own way: a cursor the source gave names nothing there, and is refused, not read
  // from another place.
  const after = `/v1/acme/_changes?after=${encodeURIComponent(cursor)}`;
  expect((await send(original.base, 'GET', after, ADMIN)).status).toBe(200);
  expect(await send(copy.base, 'GET', after, ADMIN)).toMatchObject({ status: 400, json: { code: 'invalid_cursor' } });
});

test('when the source has an unfinished import, the target one of a customer the source lacks, or --to is --from by another name, then migrate refuses with exit 2 and changes neither store', async () => {
  const dir = freshDir('migrate-refused');
  const empty = { schemas: [], nodes: [], separations: [], deliveries: [], impressions: [], history: [] };
  const schema = { schemaId: 'member', idTypes: [{ type: 'member_id', secure: false }] };
  const withImport = async (file: string, customer: string) => {
    const store = new SqliteStore({ path: file });
    await store.putSettings('kept', { requireToken: true, timezone: 'UTC' });
    await store.beginImport(customer);
    await store.importBatch(customer, { ...empty, schemas: [schema] });
    await store.close();
  };
  const marks = async (file: string) => {
    const store = new SqliteStore({ path: file });
    try {
      return { importing: await store.unfinishedImports(0), customers: await store.customerIds() };
    } finally {
      await store.close();
    }
  };
  const source = path.join(dir, 'source.sqlite');
  const target = path.join(dir, 'target.sqlite');
  await withImport(source, 'half');
  const fromHalf = await runMigrate(['--from', `sqlite:${source}`, '--to', `sqlite:${target}`]);
  expect(fromHalf).toMatchObject({ code: 2 });
  expect(fromHalf.stderr).toContain('--from has an unfinished import of half');
  expect(await marks(source)).toEqual({ importing: ['half'], customers: ['half', 'kept'] });

  const clean = path.join(dir, 'clean.sqlite');
  await new SqliteStore({ path: clean }).close();
  await withImport(target, 'stranger');
  const intoStranger = await runMigrate(['--from', `sqlite:${clean}`, '--to', `sqlite:${target}`]);
  expect(intoStranger).toMatchObject({ code: 2 });
  expect(intoStranger.stderr).toContain("customer kept there is not a copy of --from's");
  expect(await marks(target)).toEqual({ importing: ['stranger'], customers: ['kept', 'stranger'] });

  const linked = path.join(dir, 'linked.sqlite');
  fs.linkSync(clean, linked);
  expect(await runMigrate(['--from', `sqlite:${clean}`, '--to', `sqlite:${linked}`])).toMatchObject({
    code: 2,
    stderr: 'migrate: --from and --to name the same store\n',
  });
});

/** Nodes of `customer` in a SQLite file, read beside whoever writes it (0 while its tables are not made yet). */
function nodesIn(file: string, customer: string): number {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    if (db.prepare<[], number>("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'nodes'").pluck().get() !== 1) return 0;
    return db.prepare<[string], number>('SELECT count(*) FROM nodes WHERE customer_id = ?').pluck().get(customer) ?? 0;
  } finally {
    db.close();
  }
}

/** 40,000 nodes of two IDs imported into `big`: 80,000 IDs, four batches of the migrate's import, written over seconds. */
const importBig = (base: string) => importMadeUp(base, 'big', 40_000, ADMIN);

/** A migrate from `source` to `target`, once a batch of `big` is in the target. */
async function migrateUntilABatchOfBig(source: string, target: string) {
  const running = startMigrate(['--from', `sqlite:${source}`, '--to', `sqlite:${target}`]);
  await waitFor('a batch of the migrate to be written', () => fs.existsSync(target) && nodesIn(target, 'big') > 0, { timeoutMs: 60_000, everyMs: 20 });
  return running;
}

test('when npm run migrate is killed part-way through a customer, then the next run undoes that customer, keeps the ones copied, goes on, and the exports match', async () => {
  const dir = freshDir('migrate-killed');
  const source = path.join(dir, 'source.sqlite');
  const target = path.join(dir, 'target.sqlite');
  const server = await startServer(settingsFor(source), dir);
  expect((await send(server.base, 'PUT', '/v1/first/schema/member', ADMIN, { id_types: [{ type: 'member_id' }, { type: 'device' }] })).status).toBe(201);
  expect((await send(server.base, 'POST', '/v1/first/node/_create', ADMIN, { schema: 'member', key: member('m-1') })).status).toBe(201);
  await importBig(server.base);
  server.server.child.kill('SIGTERM');
  await server.server.exited;

  // Customers go in code-point order: `big`, then `first`. Killed once a batch of `big` is in the target.
  const killed = await migrateUntilABatchOfBig(source, target);
  killed.child.kill('SIGKILL');
  const ended = await killed.ended;
  expect(ended.code).toBeNull();
  expect(nodesIn(target, 'big')).toBeLessThan(40_000);

  const next = await runMigrate(['--from', `sqlite:${source}`, '--to', `sqlite:${target}`]);
  expect(next).toMatchObject({ code: 0, stderr: '' });
  expect(next.stdout).toContain('undid the unfinished import of big, which an interrupted run left');
  expect(next.stdout).toContain('the exports of all 2 customers and the tokens are the same on both stores');
  expect(nodesIn(target, 'big')).toBe(40_000);
});

test('when a token of the source is revoked while migrate copies (a service left running), then migrate ends with exit 1 saying the tokens differ', async () => {
  const dir = freshDir('migrate-tokens');
  const source = path.join(dir, 'source.sqlite');
  const target = path.join(dir, 'target.sqlite');
  const server = await startServer(settingsFor(source), dir);
  const issued = (await send(server.base, 'POST', '/v1/big/token', ADMIN, { kind: 'bearer' })).json as { token_id: string };
  await importBig(server.base);
  server.server.child.kill('SIGTERM');
  await server.server.exited;

  const running = await migrateUntilABatchOfBig(source, target);
  const beside = new SqliteStore({ path: source });
  try {
    expect(await beside.revokeToken('big', issued.token_id)).toBe(true);
  } finally {
    await beside.close();
  }
  const ended = await running.ended;
  expect(ended.code).toBe(1);
  expect(ended.stdout).toContain('the tokens differ between the stores (was a service running on --from?)');
  expect(ended.stdout).not.toContain('are the same on both stores');
});

test('when the target holds what an import that failed and was undone leaves (the id counters it kept), then migrate imports that customer again, and the exports match', async () => {
  const dir = freshDir('migrate-undone');
  const source = path.join(dir, 'source.sqlite');
  const target = path.join(dir, 'target.sqlite');
  const empty = { schemas: [], nodes: [], separations: [], deliveries: [], impressions: [], history: [] };
  const schema = { schemaId: 'member', idTypes: [{ type: 'member_id', secure: false }] };
  const given = { delivery: 3, condition: 3, message: 4 };
  const from = new SqliteStore({ path: source });
  await from.beginImport('acme');
  await from.importBatch('acme', { ...empty, schemas: [schema], nodes: [{ schemaId: 'member', key: member('m-1'), ids: [] }], deliveryIds: given });
  await from.finishImport('acme', { requireToken: false, timezone: 'UTC' }, []);
  await from.close();
  const to = new SqliteStore({ path: target });
  await to.beginImport('acme');
  await to.importBatch('acme', { ...empty, schemas: [schema], deliveryIds: given });
  await to.abandonImport('acme');
  expect(await to.customerIds()).toEqual(['acme']);
  await to.close();

  const run = await runMigrate(['--from', `sqlite:${source}`, '--to', `sqlite:${target}`]);
  expect(run).toMatchObject({ code: 0, stderr: '' });
  expect(run.stdout).toContain('copied 1 customers');
  expect(run.stdout).toContain('the exports of all 1 customers and the tokens are the same on both stores');
  // Read only, the source gets no feed key of the migrate's (a backup's copy keeps none, so that each restore makes its own).
  const keys = new Database(source, { readonly: true, fileMustExist: true });
  try {
    expect(keys.prepare<[], number>('SELECT count(*) FROM feed_key').pluck().get()).toBe(0);
  } finally {
    keys.close();
  }
});
