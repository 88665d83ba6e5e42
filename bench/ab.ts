// `npm run bench:ab -- [DIST_A] [DIST_B] [--ids N] [--rounds R] [--requests K]`: the CPU time one search ONE takes
// through two builds of the service (each a `tsc -p tsconfig.build.json --outDir …` output; A defaults to dist/, B
// to A itself, which shows the method's own noise), and through the Express floor, all in ONE process. Requests are
// injected with light-my-request (no sockets, no load generator on the other core) in alternating rounds, and each
// round counts process.cpuUsage() per request. On these 2-core machines two full `npm run bench` runs of one build
// differ by up to a third; this separates builds a few percent apart (docs/performance.md).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { once } from 'node:events';
import http, { type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inject } from 'light-my-request';
import winston from 'winston';
import type { createApp as CreateApp } from '../src/app';
import type { loadConfig as LoadConfig } from '../src/config';
import { createLogger } from '../src/logger';
import type { SqliteStore as SqliteStoreClass } from '../src/store/sqlite/sqlite-store';
import { expressFloorApp } from './floors';
import { generateGraph, SCHEMAS } from './graph';

const ADMIN = 'bench-ab-admin-token-0123456789abcdefghij';
const CUSTOMER = 'bench';

/** What one run compares: two builds (folders of compiled src/), the graph's size, and how many requests. */
export interface AbPlan {
  distA: string;
  distB: string;
  ids: number;
  rounds: number;
  requests: number;
}

/** CPU µs a request of each round, for the floor and each build; every request was answered 200. */
export interface AbReport {
  heldIds: number;
  floor: number[];
  a: number[];
  b: number[];
}

/** Every request's access log line is formatted as in the service, then dropped (no write: its cost is the system's). */
const dropped = () => new Writable({ write: (_chunk, _encoding, done) => done() });
const quietLogger = () => createLogger({ level: 'info', pretty: false, transports: [new winston.transports.Stream({ stream: dropped() })] });

/**
 * light-my-request's request lacks `headersDistinct` (the Host check reads it) and never emits 'close' (the body
 * deadline waits for it): both supplied here, so every middleware runs as it does behind a socket.
 */
const asServed =
  (app: RequestListener): RequestListener =>
  (req, res) => {
    if (!req.headersDistinct) Object.defineProperty(req, 'headersDistinct', { value: { host: [req.headers.host] } });
    res.on('finish', () => req.emit('close'));
    app(req, res);
  };

async function call(app: RequestListener, method: 'POST' | 'PUT', url: string, payload: string): Promise<string> {
  const answer = await inject(app, { method, url, headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN}` }, payload });
  if (answer.statusCode >= 300) throw new Error(`${method} ${url}: ${answer.statusCode} ${answer.payload.slice(0, 300)}`);
  return answer.payload;
}

/** The service of one build, on a store of its own in `folder`, with the generated graph loaded through _bulk. */
async function serviceOf(dist: string, folder: string, lines: string[]): Promise<{ app: RequestListener; store: SqliteStoreClass }> {
  // Loaded from the build's own folder: two builds share no module with each other, nor with this file's src/ (the
  // same build twice shares its modules, which changes nothing: each gets an app and a store of its own).
  /* eslint-disable @typescript-eslint/no-require-imports -- each build's modules, by a path known only at run time */
  const { createApp } = require(path.join(dist, 'app.js')) as { createApp: typeof CreateApp };
  const { loadConfig } = require(path.join(dist, 'config.js')) as { loadConfig: typeof LoadConfig };
  const { SqliteStore } = require(path.join(dist, 'store', 'sqlite', 'sqlite-store.js')) as { SqliteStore: typeof SqliteStoreClass };
  /* eslint-enable @typescript-eslint/no-require-imports */
  const file = path.join(folder, 'ab.sqlite');
  const store = new SqliteStore({ path: file });
  const app = asServed(createApp({ store, config: loadConfig({ SQLITE_PATH: file }), logger: quietLogger(), adminToken: ADMIN }));
  for (const [schemaId, idTypes] of Object.entries(SCHEMAS))
    await call(app, 'PUT', `/v1/${CUSTOMER}/schema/${schemaId}`, JSON.stringify({ id_types: idTypes }));
  // The load goes over a socket: _bulk streams its body, which an injected request does not.
  const server = http.createServer(app).listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const { port } = server.address() as AddressInfo;
    const answer = await fetch(`http://127.0.0.1:${port}/v1/${CUSTOMER}/node/_bulk`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson', authorization: `Bearer ${ADMIN}` },
      body: lines.join('\n'),
    });
    const refused = (await answer.text()).split('\n').filter((l) => l && !l.includes('"status":201'));
    if (answer.status !== 200 || refused.length > 0) throw new Error(`${dist}: the bulk load refused ${refused.length} lines: ${refused[0]}`);
  } finally {
    server.close();
  }
  return { app, store };
}

/** CPU µs per request over `count` requests, each awaited before the next (as one connection would). */
async function cpuPerRequest(app: RequestListener, url: string, bodies: () => string, count: number): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < count; i += 1) await call(app, 'POST', url, bodies());
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

export async function runAb(plan: AbPlan): Promise<AbReport> {
  const graph = generateGraph({ targetIds: plan.ids, bigComponents: 2, seed: 20261121 });
  if (graph.smallKeys.length === 0) throw new Error(`A graph of ${plan.ids} IDs has no small component to search from: give more --ids.`);
  const folders = [fs.mkdtempSync(path.join(os.tmpdir(), 'idlink-ab-')), fs.mkdtempSync(path.join(os.tmpdir(), 'idlink-ab-'))] as const;
  const stores: SqliteStoreClass[] = [];
  try {
    const a = await serviceOf(plan.distA, folders[0], graph.lines);
    stores.push(a.store);
    const b = await serviceOf(plan.distB, folders[1], graph.lines);
    stores.push(b.store);
    const floor = asServed(expressFloorApp(quietLogger()));
    let next = 0;
    const searchOne = () => {
      const n = graph.smallKeys[next++ % graph.smallKeys.length];
      return JSON.stringify({ match: { from: { schema: n?.schema, key: n?.key }, step: 'ONE' } });
    };
    const floorBody = () => '{"match":{"from":{"schema":"member","key":{"type":"member_id","id":"m-1"}}}}';
    const report: AbReport = { heldIds: graph.heldIds, floor: [], a: [], b: [] };
    const runs = [
      { us: report.floor, run: (count: number) => cpuPerRequest(floor, '/floor', floorBody, count) },
      { us: report.a, run: (count: number) => cpuPerRequest(a.app, `/v1/${CUSTOMER}/_search`, searchOne, count) },
      { us: report.b, run: (count: number) => cpuPerRequest(b.app, `/v1/${CUSTOMER}/_search`, searchOne, count) },
    ];
    for (const r of runs) await r.run(Math.ceil(plan.requests / 2)); // warm-up: JIT, SQLite's page cache
    for (let round = 0; round < plan.rounds; round += 1) for (const r of runs) r.us.push(await r.run(plan.requests));
    return report;
  } finally {
    await Promise.all(stores.map((store) => store.close()));
    for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
  }
}

/** The report as the lines `npm run bench:ab` prints. */
export function abLines(plan: AbPlan, report: AbReport): string[] {
  const [f, ua, ub] = [median(report.floor), median(report.a), median(report.b)];
  const pairs = report.b.map((x, i) => x - (report.a[i] as number));
  const row = (name: string, us: number[]) =>
    `${name.padEnd(5)} median ${median(us).toFixed(1)} µs CPU a request   rounds: ${us.map((x) => x.toFixed(0)).join(' ')}`;
  return [
    `search ONE, ${report.heldIds} IDs; A = ${plan.distA}, B = ${plan.distB}; ${plan.rounds} rounds of ${plan.requests} requests each`,
    row('floor', report.floor),
    row('A', report.a),
    row('B', report.b),
    `× floor: A ${(f / ua).toFixed(3)}, B ${(f / ub).toFixed(3)}; B − A: ${(ub - ua).toFixed(1)} µs (median of the rounds' own differences ${median(pairs).toFixed(1)})`,
  ];
}

function planFromArgs(args: string[]): AbPlan {
  const option = (name: string, fallback: number): number => {
    const at = args.indexOf(name);
    return at === -1 ? fallback : Number(args[at + 1]);
  };
  const positional = args.filter((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--'));
  const distA = path.resolve(positional[0] ?? path.join(__dirname, '..', '..', 'dist'));
  return {
    distA,
    distB: path.resolve(positional[1] ?? distA),
    ids: option('--ids', 100_000),
    rounds: option('--rounds', 8),
    requests: option('--requests', 8_000),
  };
}

if (require.main === module) {
  const plan = planFromArgs(process.argv.slice(2));
  runAb(plan)
    .then((report) => console.log(abLines(plan, report).join('\n')))
    .catch((e: unknown) => {
      console.error(e instanceof Error ? e.message : e);
      process.exit(1);
    });
}
