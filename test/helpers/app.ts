// Starts the real app on a real store (SQLite in memory, or Neo4j under npm run test:neo4j) on port 0, with logs captured in memory.
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Transport from 'winston-transport';
import request from 'supertest';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { serve } from '../../src/http/server';
import { createLogger } from '../../src/logger';
import { contractProblems } from './contract';
import { defaultTestStore, type TestStore } from './store';

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

/** Keeps the formatted log lines in memory, for tests that read what was logged. */
export class MemoryTransport extends Transport {
  readonly lines: string[] = [];
  override log(info: Record<string | symbol, unknown>, next: () => void): void {
    this.lines.push((info[Symbol.for('message')] as string | undefined) ?? JSON.stringify(info));
    next();
  }
}

export interface CallOptions {
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface TestApp {
  baseUrl: string;
  store: TestStore;
  logs: string[];
  /** Sends a request and fails the test if the response breaks the documented contract. */
  call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, options?: CallOptions): Promise<request.Response>;
  close(): Promise<void>;
}

export async function startApp(options: { store?: TestStore; env?: Record<string, string>; shutdown?: AbortSignal } = {}): Promise<TestApp> {
  const config = loadConfig({ SQLITE_PATH: ':memory:', ...options.env });
  const store = options.store ?? (await defaultTestStore());
  const memory = new MemoryTransport();
  const logger = createLogger({ level: 'debug', transports: [memory], pretty: false });
  const app = createApp({
    store,
    ...(config.benchFloorRoute ? { benchFloor: store } : {}),
    ...(options.shutdown ? { shutdown: options.shutdown } : {}),
    config,
    logger,
    adminToken: ADMIN_TOKEN,
  });
  const server = serve(app, logger, 0, '127.0.0.1', config.connections);
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const call: TestApp['call'] = async (method, url, callOptions = {}) => {
    let req = request(baseUrl)[method.toLowerCase() as 'get'](url);
    if (callOptions.token) req = req.set('Authorization', `Bearer ${callOptions.token}`);
    for (const [name, value] of Object.entries(callOptions.headers ?? {})) req = req.set(name, value);
    const res = callOptions.body === undefined ? await req : await req.send(callOptions.body as object);
    const problems = contractProblems(method, url, res);
    if (problems.length > 0) throw new Error(`response breaks openapi.yaml: ${problems.join('; ')}\nbody: ${res.text}`);
    return res;
  };

  return {
    baseUrl,
    store,
    logs: memory.lines,
    call,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await store.close();
    },
  };
}

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}
