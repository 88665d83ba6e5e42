// Real service processes (`node dist/main.js`, as `npm start` runs it) on Neo4j, for the multi-process and fault
// suites: started on a free port, waited for until /readyz says ready, asked with a client timeout (an answer that
// does not come in time fails the test as a hang), and searched for 5xx answers in their logs.
import os from 'node:os';
import neo4j from 'neo4j-driver';
import { emptyTestDatabase } from '../neo4j/test-database';
import { logEntries, logged, type ServerProcess, spawnServer } from './server-process';
import type { Neo4jConnection } from '../../src/store/neo4j/neo4j-store';
import { waitFor } from './settling';

export const ADMIN_TOKEN = 'neo4j-services-admin-token-0123456789';

export interface Service {
  server: ServerProcess;
  base: string;
}

/** Empties the suites' database (test-database.js refuses one these suites did not create). */
export async function emptyNeo4jTestDatabase(connection: Neo4jConnection): Promise<void> {
  const auth = connection.password === undefined ? undefined : neo4j.auth.basic(connection.username, connection.password);
  const driver = neo4j.driver(connection.uri, auth);
  try {
    await emptyTestDatabase(driver, connection.database, `database ${connection.database} at ${connection.uri}`);
  } finally {
    await driver.close();
  }
}

/** The settings that put a service on `connection`. */
export function neo4jStoreEnv(connection: Neo4jConnection): Record<string, string> {
  return {
    STORE: 'neo4j',
    NEO4J_URI: connection.uri,
    NEO4J_USERNAME: connection.username,
    ...(connection.password !== undefined ? { NEO4J_PASSWORD: connection.password } : {}),
    NEO4J_DATABASE: connection.database,
  };
}

/** The environment of a service on `connection` (LOG_LEVEL info: the tests read its request lines). */
export function serviceEnv(connection: Neo4jConnection, overrides: Record<string, string> = {}): Record<string, string> {
  return { PORT: '0', HOST: '127.0.0.1', ...neo4jStoreEnv(connection), ADMIN_TOKEN, LOG_LEVEL: 'info', ...overrides };
}

/** Spawns the service and resolves once it listens (it may not be ready yet). With ADMIN_TOKEN set it writes no file. */
export async function startService(env: Record<string, string>): Promise<Service> {
  const server = spawnServer(env, os.tmpdir());
  const port = (await logged(server, 'listening', 20_000)).port as number;
  return { server, base: `http://127.0.0.1:${port}` };
}

export interface Answer {
  status: number;
  contentType: string;
  json: unknown;
}

/** One request; rejects when no answer came within `timeoutMs` (a hang) or the connection failed. */
export async function call(
  base: string,
  method: string,
  url: string,
  options: { token?: string; headers?: Record<string, string>; body?: unknown; timeoutMs?: number } = {},
): Promise<Answer> {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: {
      ...options.headers,
      ...(options.token ? { Authorization: `Bearer ${options.token}` } : {}),
      ...(options.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
    },
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
  });
  const text = await res.text();
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', json: text ? (JSON.parse(text) as unknown) : undefined };
}

/** Polls /readyz until it answers 200; resolves with how long that took. */
export async function untilReady(service: Service, timeoutMs: number): Promise<number> {
  return untilReadyz(service, 200, timeoutMs);
}

/** Polls /readyz until it answers `status` (each poll bounded by a 5 s client timeout); resolves with how long that took. */
export async function untilReadyz(service: Service, status: number, timeoutMs: number): Promise<number> {
  const started = Date.now();
  let last = 'no answer yet';
  await waitFor(
    () => `/readyz to answer ${status} (last: ${last})`,
    async () => {
      try {
        const answer = await call(service.base, 'GET', '/readyz', { timeoutMs: 5_000 });
        if (answer.status === status) return true;
        last = `status ${answer.status}`;
      } catch (e) {
        last = e instanceof Error ? e.message : String(e);
      }
      if (service.server.child.exitCode !== null) throw new Error(`the service exited (${service.server.child.exitCode}): ${service.server.stderr()}`);
      return false;
    },
    { timeoutMs, everyMs: 100 },
  );
  return Date.now() - started;
}

/** Request log lines with a 5xx status other than 503 (a 503 is store_unavailable), and every 'unhandled error' line. */
export function serverFaults(service: Service): Array<Record<string, unknown>> {
  return logEntries(service.server).filter(
    (entry) => entry.message === 'unhandled error' || (entry.message === 'request' && Number(entry.status) >= 500 && entry.status !== 503),
  );
}

/** SIGTERM, and how the process ended. */
export async function stopService(service: Service): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (service.server.child.exitCode === null && service.server.child.signalCode === null) service.server.child.kill('SIGTERM');
  return service.server.exited;
}
