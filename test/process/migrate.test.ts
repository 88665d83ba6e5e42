// `npm run migrate` (dist/migrate.js, what the npm script runs after building) between two SQLite files, with the
// service stopped: every customer and token copied, the exports compared and found the same, the same tokens
// answering the same on the copy, a revoked one still refused; a target that holds anything, or bad arguments, refused
// with exit 2. The runs between SQLite and Neo4j are in test/neo4j/migrate.neo4j.test.ts.
import path from 'node:path';
import { runMigrate } from '../helpers/migrate';
import { freshDir, installCleanup, send, startServer } from '../helpers/server-process';

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
  first.server.child.kill('SIGTERM');
  await first.server.exited;

  const run = await runMigrate(['--from', `sqlite:${source}`, '--to', `sqlite:${target}`]);
  expect(run).toMatchObject({ code: 0, stderr: '' });
  expect(run.stdout).toContain('copied 3 customers, 200 IDs and 4 tokens');
  expect(run.stdout).toContain('the exports of all 3 customers are the same on both stores');

  const again = await runMigrate(['--from', `sqlite:${source}`, '--to', `sqlite:${target}`]);
  expect(again).toMatchObject({ code: 2, stderr: 'migrate: --to holds data already: migrate only into an empty store\n' });
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
});
