// The real server as a child process (`node dist/main.js`, built by jest's globalSetup): data survives a crash,
// the generated administrator token is kept safe, a bad setting (or a port it cannot have) stops the start with a
// message saying which, and with STORE=neo4j it serves 503s while Neo4j does not answer.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { freshDir, installCleanup, logEntries, logged, send, type ServerProcess, spawnServer, startServer } from '../helpers/server-process';
import { waitFor } from '../helpers/settling';

const ADMIN = 'process-admin-token-0123456789abcdef';

installCleanup();

async function stop(server: ServerProcess, signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  server.child.kill(signal);
  return server.exited;
}

const schema = { id_types: [{ type: 'member_id' }, { type: 'device' }, { type: 'email', secure: true }] };
const node = {
  schema: 'member',
  key: { type: 'member_id', id: 'm-durable' },
  ids: [
    { type: 'device', id: 'd-durable' },
    { type: 'email', id: 'durable.person@example.com' },
  ],
};
const search = { match: { from: { schema: 'member', key: { type: 'member_id', id: 'm-durable' } } } };

describe('durability of the embedded store', () => {
  test('when the process is killed with SIGKILL right after a 201, then a restart on the same file still has the node, schema and token', async () => {
    const dir = freshDir('idlink-process-');
    const env = { PORT: '0', HOST: '127.0.0.1', SQLITE_PATH: path.join(dir, 'idlink.sqlite'), ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'info' };

    const first = await startServer(env, dir);
    expect((await send(first.base, 'PUT', '/v1/acme/schema/member', ADMIN, schema)).status).toBe(201);
    const issued = await send(first.base, 'POST', '/v1/acme/token', ADMIN, { kind: 'bearer' });
    expect(issued.status).toBe(201);
    const bearer = (issued.json as { token: string }).token;
    expect((await send(first.base, 'POST', '/v1/acme/node/_create', bearer, node)).status).toBe(201);
    expect(await stop(first.server, 'SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });

    const second = await startServer(env, dir);
    const found = await send(second.base, 'POST', '/v1/acme/_search', bearer, search);
    expect(found).toEqual({
      status: 200,
      json: {
        results: [
          { type: 'device', id: 'd-durable' },
          { type: 'email', id: 'durable.person@example.com' },
          { type: 'member_id', id: 'm-durable' },
        ],
        total: 3,
      },
    });
    const again = await send(second.base, 'POST', '/v1/acme/node/_create', undefined, { schema: 'member', key: { type: 'member_id', id: 'm-durable' } });
    expect(again.status).toBe(409);
  });

  test('when the process gets SIGTERM, then it exits 0 after logging that it stopped, and the data is kept', async () => {
    const dir = freshDir('idlink-process-');
    const env = { PORT: '0', HOST: '127.0.0.1', SQLITE_PATH: path.join(dir, 'idlink.sqlite'), ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'info' };

    const first = await startServer(env, dir);
    expect((await send(first.base, 'PUT', '/v1/acme/schema/member', ADMIN, schema)).status).toBe(201);
    expect((await send(first.base, 'POST', '/v1/acme/node/_create', undefined, { schema: 'member', key: { type: 'member_id', id: 'm-durable' } })).status).toBe(
      201,
    );
    expect(await stop(first.server, 'SIGTERM')).toEqual({ code: 0, signal: null });
    expect(logEntries(first.server).map((l) => l.message)).toEqual(expect.arrayContaining(['shutting down', 'stopped']));

    const second = await startServer(env, dir);
    const found = await send(second.base, 'POST', '/v1/acme/_search', undefined, search);
    expect(found.json).toEqual({ results: [{ type: 'member_id', id: 'm-durable' }], total: 1 });
  });
});

describe('the generated administrator token', () => {
  test('when ADMIN_TOKEN is unset, then the first start writes admin-token (mode 0600) beside the database, logs where but never the token, and it works as admin', async () => {
    const dir = freshDir('idlink-process-');
    const dbDir = path.join(dir, 'db');
    const env = { PORT: '0', HOST: '127.0.0.1', SQLITE_PATH: path.join(dbDir, 'idlink.sqlite'), LOG_LEVEL: 'info' };

    const { server, base } = await startServer(env, dir);
    const file = path.join(dbDir, 'admin-token');
    expect(fs.existsSync(file)).toBe(true);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const token = fs.readFileSync(file, 'utf8').trim();
    expect(token).toMatch(/^[A-Za-z0-9_-]{22,}$/);

    const generated = logEntries(server).find((l) => l.message === 'generated the administrator token');
    expect(generated).toBeDefined();
    expect(generated?.file).toBe(file);

    expect((await send(base, 'PUT', '/v1/acme/schema/member', token, schema)).status).toBe(201);
    expect((await send(base, 'GET', '/v1/acme/schema/member', token)).status).toBe(200);
    expect((await send(base, 'GET', '/v1/acme/schema/member', `${token}x`)).status).toBe(401);
    expect((await send(base, 'GET', '/v1/acme/schema/member')).status).toBe(401);

    await stop(server, 'SIGTERM');
    expect(server.lines.join('\n')).not.toContain(token);
    expect(server.stderr()).not.toContain(token);
  });

  test('when the server restarts without ADMIN_TOKEN, then it reuses the same file and token and says so', async () => {
    const dir = freshDir('idlink-process-');
    const env = { PORT: '0', HOST: '127.0.0.1', SQLITE_PATH: path.join(dir, 'idlink.sqlite'), LOG_LEVEL: 'info' };
    const file = path.join(dir, 'admin-token');

    const first = await startServer(env, dir);
    const token = fs.readFileSync(file, 'utf8').trim();
    expect((await send(first.base, 'PUT', '/v1/acme/schema/member', token, schema)).status).toBe(201);
    await stop(first.server, 'SIGKILL');

    const second = await startServer(env, dir);
    expect(fs.readFileSync(file, 'utf8').trim()).toBe(token);
    const reused = logEntries(second.server).find((l) => l.message === 'using the administrator token from its file');
    expect(reused?.file).toBe(file);
    expect((await send(second.base, 'GET', '/v1/acme/schema/member', token)).status).toBe(200);
    expect(second.server.lines.join('\n')).not.toContain(token);
  });

  test('when ADMIN_TOKEN is set, then no admin-token file is written and only that token is the administrator', async () => {
    const dir = freshDir('idlink-process-');
    const env = { PORT: '0', HOST: '127.0.0.1', SQLITE_PATH: path.join(dir, 'idlink.sqlite'), ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'info' };
    const { server, base } = await startServer(env, dir);
    expect(fs.existsSync(path.join(dir, 'admin-token'))).toBe(false);
    expect((await send(base, 'PUT', '/v1/acme/schema/member', ADMIN, schema)).status).toBe(201);
    expect((await send(base, 'GET', '/v1/acme/schema/member', 'idl_admin_SomeOtherWellFormedSecret0123456789')).status).toBe(401);
    expect(server.lines.join('\n')).not.toContain(ADMIN);
  });
});

describe('bad configuration', () => {
  test.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['LOG_LEVEL', 'loud'],
    ['STORE', 'mysql'],
    ['SEARCH_MAX_LIMIT', '0'],
    ['ADMIN_TOKEN', 'tooShortSecret'],
  ])('when %s=%s, then the process exits non-zero with a message naming the variable and never listens', async (name, value) => {
    const dir = freshDir('idlink-process-');
    const env = { PORT: '0', HOST: '127.0.0.1', SQLITE_PATH: path.join(dir, 'idlink.sqlite'), ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'info', [name]: value };
    const server = spawnServer(env, dir);
    const { code } = await server.exited;
    expect(code).not.toBe(0);
    expect(code).not.toBeNull();
    expect(server.stderr()).toContain(name);
    expect(logEntries(server).some((l) => l.message === 'listening')).toBe(false);
    if (name === 'ADMIN_TOKEN') expect(server.stderr()).not.toContain(value);
    expect(fs.existsSync(path.join(dir, 'idlink.sqlite'))).toBe(false);
  });
});

/** A port on 127.0.0.1 that something listens on while `use` runs (held), or that nothing listens on (free). */
async function withPort<T>(held: boolean, use: (port: number) => Promise<T>): Promise<T> {
  const holder = net.createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', () => resolve()));
  const { port } = holder.address() as net.AddressInfo;
  if (!held) await new Promise<void>((resolve) => holder.close(() => resolve()));
  try {
    return await use(port);
  } finally {
    if (held) await new Promise<void>((resolve) => holder.close(() => resolve()));
  }
}

/** Listens on 127.0.0.1:`port` and hangs up on every connection; resolves once `count` connections came (or rejects after `withinMs`). */
async function hangUpOn(port: number, count: number, withinMs: number): Promise<void> {
  let seen = 0;
  const listener = net.createServer((socket) => {
    seen += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(port, '127.0.0.1', () => resolve()));
  try {
    await waitFor(
      () => `${count} connection attempts to port ${port} (${seen} came)`,
      () => seen >= count,
      { timeoutMs: withinMs, everyMs: 50 },
    );
  } finally {
    await new Promise<void>((resolve) => listener.close(() => resolve()));
  }
}

describe('STORE=neo4j while Neo4j does not answer', () => {
  test('when nothing answers at NEO4J_URI, then the service listens anyway, answers 503 store_unavailable on /readyz and on store-backed requests, keeps trying in the background, logs why without the password, and stops at once on SIGTERM', async () => {
    const password = 'neo4j-password-never-printed';
    await withPort(false, async (boltPort) => {
      const dir = freshDir('idlink-process-');
      const uri = `bolt://127.0.0.1:${boltPort}`;
      const env = { PORT: '0', HOST: '127.0.0.1', ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'info', STORE: 'neo4j', NEO4J_URI: uri, NEO4J_PASSWORD: password };
      const { server, base } = await startServer(env, dir);

      expect((await send(base, 'GET', '/healthz')).status).toBe(200);
      const answers = [
        await fetch(`${base}/readyz`),
        await fetch(`${base}/v1/acme/_search`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(search) }),
        await fetch(`${base}/v1/acme/schema/member`, {
          method: 'PUT',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${ADMIN}` },
          body: JSON.stringify(schema),
        }),
      ];
      for (const answer of answers) {
        expect(answer.status).toBe(503);
        expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(await answer.json()).toMatchObject({ status: 503, code: 'store_unavailable' });
      }
      const retrying = await logged(server, 'cannot connect to Neo4j yet; retrying in the background');
      expect(retrying.level).toBe('warn');
      expect(String(retrying.error)).toContain(`Neo4j at ${uri} (database 'neo4j') cannot be reached`);

      // Something listens at NEO4J_URI now (and hangs up at once): the attempts go on, at most RETRY_MAX_MS (5 s) apart.
      await hangUpOn(boltPort, 2, 12_000);
      expect(server.child.exitCode).toBeNull();
      expect((await fetch(`${base}/readyz`)).status).toBe(503);

      const stopping = Date.now();
      server.child.kill('SIGTERM');
      expect(await server.exited).toEqual({ code: 0, signal: null });
      expect(Date.now() - stopping).toBeLessThan(3000);
      expect(logEntries(server).map((l) => l.message)).toEqual(expect.arrayContaining(['shutting down', 'stopped']));
      expect(logEntries(server).some((l) => l.message === 'store ready')).toBe(false);
      expect(server.stderr() + server.lines.join('\n')).not.toContain(password);
    });
  });
});

describe('what start-up cannot have', () => {
  test('when PORT is already taken, then the process exits 1 saying it cannot listen there', async () => {
    await withPort(true, async (port) => {
      const dir = freshDir('idlink-process-');
      const env = { PORT: String(port), HOST: '127.0.0.1', SQLITE_PATH: path.join(dir, 'idlink.sqlite'), ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'info' };
      const server = spawnServer(env, dir);
      expect((await server.exited).code).toBe(1);
      expect(server.stderr()).toContain(`failed to start: cannot listen on 127.0.0.1:${port}`);
      expect(server.stderr()).toContain('EADDRINUSE');
      expect(logEntries(server).some((l) => l.message === 'listening')).toBe(false);
    });
  });
});
