// The local Neo4j of neo4j-local/ is never open to a web page the analyst visits: auth is always on (without
// NEO4J_PASSWORD, `npm run neo4j:local` generates a password, prints it once and keeps it with the data), Bolt
// refuses WebSocket upgrades from any origin but the Browser's own, and /analyst/ answers only that origin. This
// suite runs `npm run neo4j:local` itself twice on one kept data folder, the first time with the Browser on; and it
// checks a server that start() gave a password of its own: the suites' local servers, or one it starts.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import neo4jDriver from 'neo4j-driver';
import { freePort, missingTools, start } from '../../neo4j-local/neo4j-local';
import { waitFor } from '../helpers/settling';

const ROOT = path.resolve(__dirname, '..', '..');
const START_MS = 240_000;
const EVIL = 'http://evil.example';

/** What a Bolt connection without credentials (HELLO with scheme none), or with these, gets: 'ok' or the error code. */
async function hello(uri: string, password?: string): Promise<string> {
  const driver = neo4jDriver.driver(uri, password === undefined ? { scheme: 'none', credentials: '' } : neo4jDriver.auth.basic('neo4j', password));
  try {
    await driver.executeQuery('RETURN 1');
    return 'ok';
  } catch (e) {
    return (e as { code?: string }).code ?? String(e);
  } finally {
    await driver.close();
  }
}

interface Upgrade {
  /** The status of the answer to the handshake: 101 when Bolt took the upgrade. */
  status: number;
  /** After a 101: the Bolt version the server chose, from a Bolt handshake sent over the WebSocket (e.g. '5.4'). */
  boltVersion?: string;
}

/**
 * A browser's WebSocket handshake on the Bolt port, with this Origin header (none when undefined). After a 101 it
 * also sends Bolt's own handshake in a masked binary frame, as a browser's driver does, and reads the chosen
 * version: the connection that got past the guard is a working Bolt connection.
 */
function websocketUpgrade(port: number, origin?: string): Promise<Upgrade> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    let status: number | undefined;
    const fail = (reason: string) => {
      socket.destroy();
      reject(new Error(`${reason} (origin ${origin ?? 'none'}): ${received.toString('latin1').slice(0, 300)}`));
    };
    socket.setTimeout(20_000, () => fail('no answer'));
    socket.on('error', (e) => fail(e.message));
    socket.on('close', () => (status === undefined ? fail('closed without an answer') : resolve({ status })));
    socket.on('connect', () =>
      socket.write(
        [
          'GET / HTTP/1.1',
          `Host: 127.0.0.1:${port}`,
          'Upgrade: websocket',
          'Connection: Upgrade',
          'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
          'Sec-WebSocket-Version: 13',
          ...(origin === undefined ? [] : [`Origin: ${origin}`]),
          '',
          '',
        ].join('\r\n'),
      ),
    );
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (status === undefined) {
        const headEnd = received.indexOf('\r\n\r\n');
        if (headEnd < 0) return;
        status = Number(/^HTTP\/1\.1 (\d{3})/.exec(received.toString('latin1'))?.[1]);
        received = received.subarray(headEnd + 4);
        if (status !== 101) {
          socket.destroy();
          resolve({ status });
          return;
        }
        // Bolt's magic preamble, then versions 5.4 down to 5.0 (a range) and 4.4, as one masked binary frame.
        const boltHandshake = Buffer.from([0x60, 0x60, 0xb0, 0x17, 0, 4, 4, 5, 0, 0, 4, 4, 0, 0, 0, 0, 0, 0, 0, 0]);
        const mask = Buffer.from([0x1f, 0x2e, 0x3d, 0x4c]);
        const masked = boltHandshake.map((byte, i) => byte ^ (mask[i % 4] as number));
        socket.write(Buffer.concat([Buffer.from([0x82, 0x80 | boltHandshake.length]), mask, masked]));
      }
      // The answer: one unmasked binary frame of 4 bytes (0x82, length 4, then 0, 0, minor, major).
      if (received.length >= 6) {
        socket.destroy();
        resolve({ status, boltVersion: `${received[5]}.${received[4]}` });
      }
    });
  });
}

interface HttpAnswer {
  status: number;
  allowOrigin: string | undefined;
  body: string;
}

/** GET on the Browser's HTTP port, with this Origin header (none when undefined). */
function httpGet(port: number, pathname: string, origin?: string): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path: pathname, headers: origin === undefined ? {} : { Origin: origin } }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, allowOrigin: response.headers['access-control-allow-origin'], body }));
    });
    request.on('error', reject);
  });
}

interface ScriptRun {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** One Bolt session without retries (as a client that came early sees the server): 'ok' or the error code. */
async function probe(uri: string, password: string): Promise<string> {
  const driver = neo4jDriver.driver(uri, neo4jDriver.auth.basic('neo4j', password), { connectionTimeout: 2_000, maxConnectionPoolSize: 1 });
  const session = driver.session();
  try {
    await session.run('RETURN 1');
    return 'ok';
  } catch (e) {
    return (e as { code?: string }).code ?? String(e);
  } finally {
    await session.close().catch(() => undefined);
    await driver.close();
  }
}

/**
 * `npm run neo4j:local` as a user runs it, without NEO4J_PASSWORD, on free ports and the given data folder; with
 * --stop-when-stdin-closes, so the server stops with this test process whatever happens.
 */
function spawnScript(env: Record<string, string>): ScriptRun {
  const scriptEnv: NodeJS.ProcessEnv = { ...process.env, NEO4J_LOCAL_QUICK_JIT: 'true', ...env };
  delete scriptEnv.NEO4J_PASSWORD;
  const child = spawn('npm', ['run', 'neo4j:local', '--', '--stop-when-stdin-closes'], { cwd: ROOT, env: scriptEnv, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** Waits until the script printed this. */
async function untilPrinted(run: ScriptRun, text: string): Promise<void> {
  const said = () => `npm run neo4j:local to print '${text}':\n${run.output().slice(-3000)}`;
  await waitFor(
    said,
    () => {
      if (run.output().includes(text)) return true;
      if (run.child.exitCode !== null) throw new Error(`the script exited before ${said()}`);
      return false;
    },
    { timeoutMs: START_MS, everyMs: 100 },
  );
}

/** The script started and ready. */
async function runScript(env: Record<string, string>): Promise<ScriptRun> {
  const run = spawnScript(env);
  await untilPrinted(run, ' ready at ');
  return run;
}

/** Closes the script's stdin: the server shuts down and the script exits 0. */
async function stopScript(run: ScriptRun | undefined): Promise<void> {
  if (!run || run.child.exitCode !== null) return;
  run.child.stdin?.end();
  expect(await run.exited).toBe(0);
}

/** This jest worker's own server, when local-servers.js started it with start() given no password (NEO4J_TEST_SERVERS). */
function ownServerOfStart(): { uri: string; password: string } | undefined {
  const servers = JSON.parse(process.env.NEO4J_TEST_SERVERS ?? '[]') as Array<{ uri: string; password: string; passwordGenerated?: boolean }>;
  const own = servers[Number(process.env.JEST_WORKER_ID ?? '1') - 1];
  return own?.passwordGenerated ? { uri: own.uri, password: own.password } : undefined;
}

/**
 * On a server with the Browser on `httpPort`: a page of another origin can open Bolt over WebSocket nowhere and read
 * no /analyst/ file, and the Browser's own origin (127.0.0.1 or localhost on its port) gets a working Bolt connection
 * and the files; raw Bolt is untouched.
 */
async function expectBrowserOriginOnly(boltPort: number, httpPort: number, uri: string, password: string): Promise<void> {
  const browserOrigin = `http://127.0.0.1:${httpPort}`;
  expect(await websocketUpgrade(boltPort, EVIL)).toEqual({ status: 403 });
  // A DNS-rebinding page on the Browser's port keeps its own host name in its origin.
  expect(await websocketUpgrade(boltPort, `http://evil.example:${httpPort}`)).toEqual({ status: 403 });
  expect(await websocketUpgrade(boltPort, `http://127.0.0.1:${httpPort + 1}`)).toEqual({ status: 403 });
  expect(await websocketUpgrade(boltPort, 'null')).toEqual({ status: 403 });

  expect(await websocketUpgrade(boltPort, browserOrigin)).toEqual({ status: 101, boltVersion: '5.4' });
  expect(await websocketUpgrade(boltPort, `http://localhost:${httpPort}`)).toEqual({ status: 101, boltVersion: '5.4' });
  // No Origin: not a web page (browsers always send one on a WebSocket handshake).
  expect(await websocketUpgrade(boltPort)).toEqual({ status: 101, boltVersion: '5.4' });
  // Raw Bolt (the service, the drivers) is untouched by the guard.
  expect(await hello(uri, password)).toBe('ok');

  for (const file of ['/analyst/style.grass', '/analyst/guide.html']) {
    const foreign = await httpGet(httpPort, file, EVIL);
    expect(foreign.status).toBe(403);
    expect(foreign.allowOrigin).toBe(browserOrigin);
    expect(foreign.body).not.toContain('node.');

    const own = await httpGet(httpPort, file, browserOrigin);
    expect(own.status).toBe(200);
    expect(own.allowOrigin).toBe(browserOrigin);
    const localhost = await httpGet(httpPort, file, `http://localhost:${httpPort}`);
    expect([localhost.status, localhost.allowOrigin]).toEqual([200, `http://localhost:${httpPort}`]);
    // The Browser's own same-origin GET sends no Origin.
    const sameOrigin = await httpGet(httpPort, file);
    expect([sameOrigin.status, sameOrigin.allowOrigin]).toEqual([200, browserOrigin]);
  }
  expect((await httpGet(httpPort, '/analyst/style.grass', browserOrigin)).body).toContain('"node.IdNode"');
  // Neo4j's own answers (the discovery document, the Browser's files) no longer allow every origin either.
  expect((await httpGet(httpPort, '/', EVIL)).allowOrigin).toBe(browserOrigin);
  expect((await httpGet(httpPort, '/browser/', EVIL)).allowOrigin).toBe(browserOrigin);
}

describe('the local Neo4j is never open to other web pages', () => {
  beforeAll(() => {
    const missing = missingTools();
    // Where the suites run on Docker or NEO4J_TEST_URI, this file still needs the local server: say why it cannot run.
    if (missing) throw new Error(`this suite starts local Neo4j servers (neo4j-local/) and cannot run here: ${missing}. Install java 17+ and mvn.`);
  });

  describe('a server of start() given no password', () => {
    let server: { uri: string; password: string; stop?: () => Promise<void> };

    beforeAll(async () => {
      // The suites' own local servers (local-servers.js) are such servers: this worker's is checked, and no server
      // is started for this alone. Where the suites run on containers or NEO4J_TEST_URI, one is started here.
      const own = ownServerOfStart();
      if (own) {
        server = own;
      } else {
        const started = await start({ quickJit: true, timeoutMs: START_MS });
        server = { uri: started.uri, password: started.password, stop: () => started.stop(30_000) };
      }
    }, START_MS);

    afterAll(async () => {
      await server?.stop?.();
    });

    test('when a Bolt client says HELLO without credentials, then it is refused, and the password start() generated and returned is accepted', async () => {
      expect(server.password.length).toBeGreaterThanOrEqual(20);
      expect(await hello(server.uri)).toBe('Neo.ClientError.Security.Unauthorized');
      expect(await hello(server.uri, 'neo4j')).toBe('Neo.ClientError.Security.Unauthorized');
      expect(await hello(server.uri, server.password)).toBe('ok');
    });
  });

  describe('npm run neo4j:local without NEO4J_PASSWORD', () => {
    let data: string;
    let run: ScriptRun | undefined;

    beforeAll(() => {
      data = fs.mkdtempSync(path.join(os.tmpdir(), 'idlink-neo4j-local-'));
    });

    afterAll(async () => {
      if (run && run.child.exitCode === null) {
        run.child.stdin?.end();
        await run.exited;
      }
      fs.rmSync(data, { recursive: true, force: true });
    });

    test(
      'when it first starts, then it prints a generated password once, keeps it in the data folder (mode 0600), lets no client in before that password is set, refuses HELLO without it and WebSocket upgrades of other origins; at the next start it uses the kept one without printing it',
      async () => {
        const [boltPort, httpPort] = [await freePort(), await freePort()];
        const env = { NEO4J_LOCAL_DATA: data, NEO4J_LOCAL_PORT: String(boltPort), NEO4J_LOCAL_HTTP_PORT: String(httpPort) };
        const uri = `bolt://127.0.0.1:${boltPort}`;
        run = spawnScript(env);
        await untilPrinted(run, 'generated the password of user neo4j: ');
        const printed = /generated the password of user neo4j: (\S+)/.exec(run.output())?.[1] ?? '';
        // A client that comes while the server starts (the service waiting for its database) with the right
        // password: the fresh store's user neo4j has the password "neo4j" until the launcher sets this one, and
        // such a client must find the port closed meanwhile, never be refused as unauthorised.
        const early: string[] = [];
        const starting = run;
        await waitFor(
          'the server to be ready',
          async () => {
            if (starting.output().includes(' ready at ')) return true;
            if (starting.child.exitCode !== null) throw new Error(`npm run neo4j:local exited:\n${starting.output().slice(-3000)}`);
            early.push(await probe(uri, printed));
            return false;
          },
          { timeoutMs: START_MS, everyMs: 50 },
        );
        expect(early.filter((answer) => answer !== 'ok' && answer !== 'ServiceUnavailable')).toEqual([]);
        const passwordFile = path.join(data, 'password');
        expect(printed).toMatch(/^[A-Za-z0-9_-]{32}$/);
        expect(run.output()).toContain(`password in ${passwordFile}`);
        expect(fs.readFileSync(passwordFile, 'utf8').trim()).toBe(printed);
        expect(fs.statSync(passwordFile).mode & 0o777).toBe(0o600);
        expect(await hello(uri)).toBe('Neo.ClientError.Security.Unauthorized');
        expect(await hello(uri, 'neo4j')).toBe('Neo.ClientError.Security.Unauthorized');
        expect(await hello(uri, printed)).toBe('ok');
        await expectBrowserOriginOnly(boltPort, httpPort, uri, printed);
        await stopScript(run);

        // Again on the same data folder, with the Browser off: the kept password, not printed; no origin at all may
        // open Bolt over WebSocket, not even the Browser's of the run before.
        run = await runScript({ ...env, NEO4J_LOCAL_HTTP_PORT: '0' });
        expect(run.output()).not.toContain(printed);
        expect(run.output()).toContain(`password in ${passwordFile}`);
        expect(await hello(uri)).toBe('Neo.ClientError.Security.Unauthorized');
        expect(await hello(uri, printed)).toBe('ok');
        expect((await websocketUpgrade(boltPort, `http://127.0.0.1:${httpPort}`)).status).toBe(403);
        await stopScript(run);
      },
      3 * START_MS,
    );
  });
});
