// npm run bench [-- --quick] [-- --compare OLD.json] [-- --scale N]: load a synthetic identity graph through _bulk into a fresh store, then measure each
// scenario and the two floors with the same autocannon settings; print a table, write results/latest.json
// (SQLite) or results/neo4j.json (STORE=neo4j: NEO4J_URI's empty database, or else a local server it starts).
// After the main scenarios, a second customer whose member schema declares a `links: false` type measures the same
// small searches before and after IDs of that type become hot (held by hundreds of nodes each). Then showing messages:
// _impression and _eligible for persons of 20 IDs over 100 active deliveries, in a customer of their own. Last, the
// time one _erase takes to erase a person of 1,000 nodes from the main customer. The mixed scenario runs small and
// big searches at once; --compare puts a run beside an earlier results file (compare.ts); --scale N measures how
// cost grows instead (scaleMain, below).
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import autocannon from 'autocannon';
import { type ComparedReport, comparisonTable, formatTable } from './compare';
import { cpuOf, cpuPer } from './cpu';
import { generateGraph, type GeneratedGraph, type NodeRef, prng, SCHEMAS } from './graph';

const ROOT = path.resolve(__dirname, '..', '..');
const quick = process.argv.includes('--quick');
const MODE = quick
  ? { targetIds: 100_000, bigComponents: 2, seconds: 4, warmup: 1, connections: 10, bodies: 60_000 }
  : { targetIds: 1_000_000, bigComponents: 5, seconds: 10, warmup: 2, connections: 10, bodies: 150_000 };
const ADMIN = 'bench-admin-token-0123456789abcdefghij';

/** `--compare OLD.json`: read before anything runs, so that a wrong path fails at once rather than after the run. */
function earlierReport(): ComparedReport | undefined {
  const at = process.argv.indexOf('--compare');
  if (at < 0) return undefined;
  const file = process.argv[at + 1];
  if (file === undefined || file.startsWith('--')) throw new Error('--compare needs the path of an earlier results file');
  const report = JSON.parse(fs.readFileSync(file, 'utf8')) as ComparedReport;
  if (!Array.isArray(report.scenarios)) throw new Error(`${file} has no scenarios: not a bench results file`);
  return report;
}
const CUSTOMER = 'bench';

/**
 * The hot `links: false` scenario: a customer of its own whose member schema also declares `ip` with `links: false`,
 * and a graph of its own with no big components. It is sized to have enough nodes of small components (1–3 nodes) in
 * the member schema (this generator gives about 3.6 per 100 IDs) for each of `ips` IP values to be held by `holders`
 * of them while each holds `ipsPerNode`: ips × holders / ipsPerNode nodes (2,500 quick, 5,000 full).
 */
const HOT = {
  customer: 'bench-hot',
  ips: 10,
  ipsPerNode: 2,
  holders: quick ? 500 : 1000,
  targetIds: quick ? 75_000 : 150_000,
  seed: 20261123,
};

interface Running {
  child: ChildProcess;
  base: string;
}

/** Starts a process that logs a JSON 'listening' line with its port; its other output is drained. */
async function startProcess(args: string[], env: Record<string, string>): Promise<Running> {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = readline.createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
    lines.on('line', (line) => {
      try {
        const entry = JSON.parse(line) as { message?: string; port?: number };
        if (entry.message === 'listening' && entry.port) resolve(entry.port);
      } catch {
        // not JSON: ignore
      }
    });
  });
  return { child, base: `http://127.0.0.1:${port}` };
}

async function stop(running: Running): Promise<void> {
  if (running.child.exitCode !== null) return;
  const exited = new Promise((resolve) => running.child.once('exit', resolve));
  running.child.kill('SIGTERM');
  await exited;
}

function memoryMb(pid: number): { rss: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: Math.round(kb('VmRSS') / 1024), peak: Math.round(kb('VmHWM') / 1024) };
}

/** One setup request; anything but a 2xx stops the bench, since the scenarios would then measure errors. */
async function http(base: string, method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<unknown> {
  const res = await fetch(base + url, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url} answered ${res.status}: ${text.slice(0, 300)}`);
  return text ? (JSON.parse(text) as unknown) : undefined;
}

/** The service listens before its store is connected (Neo4j): wait until /readyz says it can serve. */
async function waitReady(base: string, timeoutMs = 300_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(`${base}/readyz`).catch(() => undefined);
    await res?.arrayBuffer();
    if (res?.ok) return;
    if (Date.now() > deadline) throw new Error(`the service was not ready within ${timeoutMs / 1000} s (last /readyz: ${res?.status ?? 'no answer'})`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

interface Measured {
  rps: number;
  p50_ms: number;
  p99_ms: number;
  non2xx: number;
  errors: number;
  /**
   * CPU milliseconds a request cost each process while it was measured: the service, the Neo4j JVM (when the bench
   * started it) and the load generator (this process). On 2 cores their sum bounds the rate: 2,000 / sum req/s.
   */
  cpu_ms_per_request?: Record<string, number>;
}

/** The processes whose CPU each measurement divides among its requests (set once they run). */
const cpuWatched = new Map<string, number>();

function cpuLine(m: Measured): string {
  const cpu = m.cpu_ms_per_request;
  return cpu
    ? `, CPU ms a request: ${Object.entries(cpu)
        .map(([name, ms]) => `${name} ${ms}`)
        .join(', ')}`
    : '';
}

function cpuNow(): Record<string, number> {
  return cpuOf(new Map([['load_generator', process.pid], ...cpuWatched]));
}

type RequestSpec = {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: () => string;
  /** Instead of `body`: a path of its own for each request too (the path names a delivery, say). */
  request?: () => { path: string; body: string };
  connections?: number;
};

type NextRequest = () => { path?: string; body: string };

/** Bodies are built before the clock starts: the client shares the machine, so building them while measuring would slow the server. */
async function drive(base: string, spec: RequestSpec, seconds: number, next?: NextRequest): Promise<Measured & { requests: number }> {
  const result = await autocannon({
    url: base,
    connections: spec.connections ?? MODE.connections,
    duration: seconds,
    requests: [
      {
        method: spec.method,
        path: spec.path,
        headers: { ...(spec.body || spec.request ? { 'content-type': 'application/json' } : {}), ...spec.headers },
        ...(next
          ? {
              setupRequest: (req) => {
                const { path: nextPath, body } = next();
                req.body = body;
                if (nextPath !== undefined) req.path = nextPath;
                return req;
              },
            }
          : {}),
      },
    ],
  });
  return {
    requests: result.requests.total,
    rps: Math.round(result.requests.average),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

/** How long a scenario warms up, untimed, before it is measured: `least` seconds, then `step` at a time. */
interface Warmup {
  least: number;
  most: number;
  step: number;
}

/**
 * Node compiles its hot paths within a second or two. Neo4j's JVM compiles those of a statement only after thousands
 * of calls of it: in a full run, impressions answered 109 and 133 req/s in their first two 5 s of warm-up, then 363,
 * 609 and 515, and 785 measured; a transaction took 5 ms on a fresh server and 1.8 ms after 2,000. So on Neo4j a
 * scenario warms for at least 20 s, then 5 s more while its last 5 s answered at least 5% more requests than the 5 s
 * before, up to 40 s in all: what is measured is the rate the scenario keeps once warm, as its floor's is.
 */
const NODE_WARMUP: Warmup = { least: MODE.warmup, most: MODE.warmup, step: MODE.warmup };
const NEO4J_WARMUP: Warmup = { least: MODE.warmup * 10, most: MODE.warmup * 20, step: Math.round(MODE.warmup * 2.5) };
const warmupOf = (store: string) => (store === 'neo4j' ? NEO4J_WARMUP : NODE_WARMUP);
const STILL_RISING = 1.05;

/** Drives `spec` untimed until it is warm (above); answers for how many seconds. */
async function warm(base: string, spec: RequestSpec, warmup: Warmup, next?: NextRequest): Promise<number> {
  let seconds = 0;
  let before = 0;
  for (;;) {
    const { rps } = await drive(base, spec, warmup.step, next);
    seconds += warmup.step;
    if (warmup.most > warmup.least) console.log(`  warm-up, ${seconds} s: ${rps} req/s`);
    const rising = rps >= before * STILL_RISING;
    before = rps;
    if (seconds >= warmup.most || (seconds >= warmup.least && !rising)) return seconds;
  }
}

async function measure(base: string, spec: RequestSpec, warmup: Warmup): Promise<Measured & { warmup_s: number }> {
  const make = spec.request ?? (spec.body ? () => ({ body: (spec.body as () => string)() }) : undefined);
  const next = make ? cycle(Array.from({ length: MODE.bodies }, make)) : undefined;
  const warmup_s = await warm(base, spec, warmup, next);
  const before = cpuNow();
  const { requests, ...measured } = await drive(base, spec, MODE.seconds, next);
  const after = cpuNow();
  if (cpuWatched.size === 0 || requests === 0) return { ...measured, warmup_s };
  return { ...measured, cpu_ms_per_request: cpuPer(before, after, requests), warmup_s };
}

function cycle<T>(items: T[]): () => T {
  let i = 0;
  return () => items[i++ % items.length] as T;
}

/**
 * Sends `lines` through _bulk, one request per LOAD_CHUNK lines (a body of 10M IDs would pass what one JavaScript
 * string can hold); any line not answered 201 stops the bench. Returns the seconds it took.
 */
async function loadGraph(base: string, lines: string[], customer = CUSTOMER): Promise<number> {
  const started = process.hrtime.bigint();
  for (let from = 0; from < lines.length; from += LOAD_CHUNK) {
    const res = await fetch(`${base}/v1/${customer}/node/_bulk`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson', authorization: `Bearer ${ADMIN}` },
      body: lines.slice(from, from + LOAD_CHUNK).join('\n'),
    });
    const text = await res.text();
    const refused = text.split('\n').filter((l) => l && !l.includes('"status":201'));
    if (res.status !== 200 || refused.length > 0) throw new Error(`bulk load refused ${refused.length} lines: ${refused.slice(0, 3).join(' ')}`);
  }
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/** Lines per _bulk request of the load: the full graph (about 210,000 lines) still goes in one. */
const LOAD_CHUNK = 250_000;

/** neo4j-local/neo4j-local.js (plain JavaScript, beside the pom that builds the server). */
interface LocalNeo4j {
  start(options: {
    port?: number;
    password?: string;
    data?: string;
    heap?: string;
    pageCacheMb?: number;
  }): Promise<{ uri: string; line: string; stop(): Promise<void>; child: ChildProcess }>;
  missingTools(): string | undefined;
}

/**
 * The Neo4j the bench measures: NEO4J_URI (an empty database) as given, or a fresh local server started here, whose
 * data folder (`dataDir`, when given) the bench can then measure.
 */
async function neo4jForBench(
  dataDir?: string,
): Promise<{ env: Record<string, string>; describe: string; stop: () => Promise<void>; pid?: number; dataDir?: string }> {
  const env: Record<string, string> = {};
  for (const name of ['NEO4J_URI', 'NEO4J_USERNAME', 'NEO4J_PASSWORD', 'NEO4J_DATABASE']) {
    const value = process.env[name];
    if (value) env[name] = value;
  }
  if (env.NEO4J_URI) return { env, describe: `NEO4J_URI=${env.NEO4J_URI}`, stop: async () => undefined };
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when the bench needs a local Neo4j
  const local = require(path.join(ROOT, 'neo4j-local', 'neo4j-local.js')) as LocalNeo4j;
  const missing = local.missingTools();
  if (missing) throw new Error(`STORE=neo4j without NEO4J_URI starts the local Neo4j, which cannot run here: ${missing}`);
  const password = 'bench-neo4j-password';
  const server = await local.start({ password, heap: '2g', pageCacheMb: 1024, ...(dataDir ? { data: dataDir } : {}) });
  return {
    env: { NEO4J_URI: server.uri, NEO4J_USERNAME: 'neo4j', NEO4J_PASSWORD: password },
    describe: server.line,
    stop: () => server.stop(),
    pid: server.child.pid,
    ...(dataDir ? { dataDir } : {}),
  };
}

/** The service's environment: a fresh store (a SQLite file in `dataDir`, or the Neo4j given), the bench's admin token. */
function serviceEnvFor(store: string, dataDir: string, neo4jEnv: Record<string, string> = {}): Record<string, string> {
  return {
    PORT: '0',
    HOST: '127.0.0.1',
    ADMIN_TOKEN: ADMIN,
    SQLITE_PATH: path.join(dataDir, 'bench.sqlite'),
    LOG_LEVEL: 'info',
    STORE: store,
    // POST /floor: the store floor (Store.floor), measured on Neo4j beside the Express floor.
    BENCH_FLOOR_ROUTE: 'true',
    // A/Bs of the read pool: SQLITE_READ_WORKERS=0 (no pool) or SQLITE_INLINE_NODES=0 (every search on it) npm run bench.
    ...(process.env.SQLITE_READ_WORKERS !== undefined ? { SQLITE_READ_WORKERS: process.env.SQLITE_READ_WORKERS } : {}),
    ...(process.env.SQLITE_INLINE_NODES !== undefined ? { SQLITE_INLINE_NODES: process.env.SQLITE_INLINE_NODES } : {}),
    ...neo4jEnv,
  };
}

async function main(): Promise<void> {
  const earlier = earlierReport();
  const store = process.env.STORE === 'neo4j' ? 'neo4j' : 'sqlite';
  const neo4jServer = store === 'neo4j' ? await neo4jForBench() : undefined;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'idlink-bench-'));
  const serviceEnv = serviceEnvFor(store, dataDir, neo4jServer?.env);

  console.log(`bench: ${quick ? 'quick' : 'full'} run, store=${store}, ${os.cpus().length} cores, ${os.cpus()[0]?.model ?? 'unknown cpu'}`);
  if (neo4jServer) console.log(`neo4j: ${neo4jServer.describe}`);
  const graph = generateGraph({ targetIds: MODE.targetIds, bigComponents: MODE.bigComponents, seed: 20261121 });
  console.log(`graph: ${graph.nodes} nodes, ${graph.heldIds} held IDs, largest component ${graph.largestComponent} nodes`);

  // Floors first, each alone on the machine, with the same client settings as the scenarios.
  const floorSpec: RequestSpec = { method: 'POST', path: '/floor', body: () => '{"match":{"from":{"schema":"member","key":{"type":"member_id","id":"m-1"}}}}' };
  const floors: Record<string, Measured & { warmup_s?: number }> = {};
  for (const [name, kind] of [
    ['express', 'express'],
    ['node_http', 'node-http'],
  ] as const) {
    const floor = await startProcess([path.join(ROOT, 'dist-bench', 'bench', 'floors.js'), kind], {});
    floors[name] = await measure(floor.base, floorSpec, NODE_WARMUP);
    await stop(floor);
    console.log(`floor ${name}: ${floors[name]?.rps} req/s`);
  }

  // A profile of the service: BENCH_SERVICE_NODE_ARGS='--cpu-prof --cpu-prof-dir=DIR' npm run bench.
  const nodeArgs = process.env.BENCH_SERVICE_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const service = await startProcess([...nodeArgs, path.join(ROOT, 'dist', 'main.js')], serviceEnv);
  await waitReady(service.base);
  cpuWatched.set('service', service.child.pid as number);
  if (neo4jServer?.pid) cpuWatched.set('neo4j', neo4jServer.pid);
  const admin = { authorization: `Bearer ${ADMIN}` };
  for (const [schemaId, idTypes] of Object.entries(SCHEMAS)) {
    await http(service.base, 'PUT', `/v1/${CUSTOMER}/schema/${schemaId}`, { id_types: idTypes }, admin);
  }
  const mapi = (await http(service.base, 'POST', `/v1/${CUSTOMER}/token`, { kind: 'mapi' }, admin)) as { token: string };
  for (let i = 0; i < 200; i += 1) {
    await http(service.base, 'POST', '/v1/delivery', buildDelivery(i), { 'x-service-mapi-token': mapi.token });
  }

  const cpuBeforeLoad = cpuNow();
  const loadSeconds = await loadGraph(service.base, graph.lines);
  const cpuAfterLoad = cpuNow();
  const load = {
    ids: graph.heldIds,
    seconds: Number(loadSeconds.toFixed(2)),
    ids_per_s: Math.round(graph.heldIds / loadSeconds),
    // What 1,000 IDs of the load cost each process, as cpu_ms_per_request does for a scenario.
    cpu_ms_per_1000_ids: cpuPer(cpuBeforeLoad, cpuAfterLoad, graph.heldIds / 1000),
  };
  console.log(`load: ${load.ids} IDs in ${load.seconds} s = ${load.ids_per_s} IDs/s, CPU ms a 1,000 IDs: ${JSON.stringify(load.cpu_ms_per_1000_ids)}`);

  // The Neo4j floor: RETURN 1 through the store's read transaction behind the service's middleware, after its own
  // untimed warm-up (the load has run the JVM's other paths, not this one).
  const storeFloor = () => measure(service.base, floorSpec, warmupOf(store));
  if (store === 'neo4j') {
    floors.neo4j = await storeFloor();
    console.log(`floor neo4j: ${floors.neo4j.rps} req/s (after ${floors.neo4j.warmup_s} s untimed)${cpuLine(floors.neo4j)}`);
  }

  const small = cycle(graph.smallKeys);
  const big = cycle(graph.bigKeys);
  const withCookie = cycle(graph.smallKeys.filter((k) => k.schema !== 'crm'));
  let counter = 0;
  // The change feed holds an entry for each node the load created: a page of 1,000 from a cursor picked in it.
  const feedCursors: string[] = [];
  for (let after = ''; feedCursors.length < 200;) {
    const res = await fetch(`${service.base}/v1/${CUSTOMER}/_changes?limit=1000${after ? `&after=${after}` : ''}`, { headers: admin });
    const page = (await res.json()) as { changes: unknown[]; next: string };
    if (page.changes.length < 1000) break;
    feedCursors.push(after || page.next);
    after = page.next;
  }
  const feedPages = cycle(feedCursors);
  const scenarios: Array<{ name: string; spec: RequestSpec }> = [
    { name: 'search ONE', spec: { method: 'POST', path: `/v1/${CUSTOMER}/_search`, headers: admin, body: searchBodies(small, 'ONE') } },
    { name: 'search ALL (small component)', spec: { method: 'POST', path: `/v1/${CUSTOMER}/_search`, headers: admin, body: searchBodies(small, 'ALL') } },
    {
      name: 'search ALL (1,000+ node component)',
      spec: { method: 'POST', path: `/v1/${CUSTOMER}/_search`, headers: admin, body: searchBodies(big, 'ALL', 100) },
    },
    // The latency of one such search, without waiting behind nine others on the single-threaded server.
    {
      name: 'search ALL (1,000+ node component), 1 connection',
      spec: { method: 'POST', path: `/v1/${CUSTOMER}/_search`, headers: admin, body: searchBodies(big, 'ALL', 100), connections: 1 },
    },
    // The nodes `why` starts from, one step each: what a search costs where `why` searches. Beside the other large
    // searches, so that the garbage of its large answers is not collected in a light scenario's time.
    {
      name: 'search ONE (1,000+ node component)',
      spec: { method: 'POST', path: `/v1/${CUSTOMER}/_search`, headers: admin, body: searchBodies(cycle(graph.bigKeys), 'ONE') },
    },
    // The explorer's drawing of a person: every node of the component, with every ID each holds.
    { name: 'graph (small component)', spec: { method: 'POST', path: `/v1/${CUSTOMER}/_graph`, headers: admin, body: graphBodies(small) } },
    // Two nodes of one 1,000+ node component, far apart in the order they were written: the chain between them.
    { name: 'why (1,000+ node component)', spec: { method: 'POST', path: `/v1/${CUSTOMER}/_why`, headers: admin, body: whyBodies(graph.bigKeys) } },
    {
      name: 'create',
      spec: {
        method: 'POST',
        path: `/v1/${CUSTOMER}/node/_create`,
        body: () => {
          counter += 1;
          return JSON.stringify({
            schema: 'member',
            key: { type: 'member_id', id: `bench-new-${counter}` },
            ids: [
              { type: 'cookie', id: `bench-new-cookie-${counter}` },
              { type: 'ad_id', id: `bench-new-ad-${counter}` },
            ],
          });
        },
      },
    },
    { name: 'insert', spec: { method: 'POST', path: `/v1/${CUSTOMER}/node/_insert`, body: insertBodies(withCookie) } },
    {
      name: 'upsert',
      spec: {
        method: 'POST',
        path: `/v1/${CUSTOMER}/node/_upsert`,
        body: () => {
          counter += 1;
          const n = withCookie();
          return JSON.stringify({
            schema: n.schema,
            key: n.key,
            where: { type: 'cookie', id: `absent-${counter}` },
            set: { type: 'cookie', id: `bench-ups-${counter}` },
          });
        },
      },
    },
    { name: 'delivery list', spec: { method: 'GET', path: '/v1/delivery?count=20&page=3', headers: { 'x-service-mapi-token': mapi.token } } },
    {
      name: 'changes page (1,000), 1 connection',
      spec: {
        method: 'GET',
        path: `/v1/${CUSTOMER}/_changes`,
        headers: admin,
        request: () => ({ path: `/v1/${CUSTOMER}/_changes?limit=1000&after=${feedPages()}`, body: '' }),
        connections: 1,
      },
    },
  ];

  const expressRps = floors.express?.rps ?? 1;
  const neo4jRps = floors.neo4j?.rps;
  const ratios: Ratios = (m) => ({
    ratio_to_express_floor: Number((m.rps / expressRps).toFixed(2)),
    ...(neo4jRps ? { ratio_to_neo4j_floor: Number((m.rps / neo4jRps).toFixed(2)) } : {}),
  });
  const results: ScenarioResult[] = [];
  /** One scenario measured, printed, and put beside the floors of this run. */
  const scenario = async (name: string, spec: RequestSpec): Promise<ScenarioResult> => {
    const m = await measure(service.base, spec, warmupOf(store));
    console.log(`${name}: ${m.rps} req/s${cpuLine(m)}`);
    return { name, ...m, ...ratios(m) };
  };
  for (const { name, spec } of scenarios) results.push(await scenario(name, spec));
  results.push(...(await mixed(service.base, { small: searchBodies(small, 'ONE'), big: searchBodies(big, 'ALL', 100) }, admin, warmupOf(store).least, ratios)));
  const hot = await hotLinksFalse(service.base, admin, scenario);
  results.push(...hot.results);
  results.push(...(await showingMessages(service.base, admin, scenario)));
  const erase = await erasePersons(service.base, admin);
  if (neo4jRps) {
    floors.neo4j_at_end = await storeFloor();
    console.log(`floor neo4j at the end: ${floors.neo4j_at_end.rps} req/s (× ${(floors.neo4j_at_end.rps / neo4jRps).toFixed(2)} of the first)`);
  }
  const memory = memoryMb(service.child.pid as number);
  const neo4jMemory = neo4jServer?.pid ? memoryMb(neo4jServer.pid) : undefined;
  cpuWatched.clear();
  await stop(service);
  await neo4jServer?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
  // The Express floor again, alone on the machine as at the start: how far the machine itself drifted during the
  // run (two floors of one run have differed by a third). The ratios stay against the first.
  const endFloor = await startProcess([path.join(ROOT, 'dist-bench', 'bench', 'floors.js'), 'express'], {});
  floors.express_at_end = await measure(endFloor.base, floorSpec, NODE_WARMUP);
  await stop(endFloor);
  console.log(`floor express at the end: ${floors.express_at_end.rps} req/s (× ${(floors.express_at_end.rps / expressRps).toFixed(2)} of the first)`);

  const table = [
    ['scenario', 'req/s', 'p50 ms', 'p99 ms', '× express floor', ...(neo4jRps ? ['× neo4j floor'] : []), 'non-2xx'],
    ...Object.entries(floors).map(([name, f]) => [
      `floor: ${name}`,
      f.rps,
      f.p50_ms,
      f.p99_ms,
      (f.rps / expressRps).toFixed(2),
      ...(neo4jRps ? [(f.rps / neo4jRps).toFixed(2)] : []),
      f.non2xx,
    ]),
    ...results.map((r) => [
      r.name,
      r.rps,
      r.p50_ms,
      r.p99_ms,
      r.ratio_to_express_floor.toFixed(2),
      ...(neo4jRps ? [(r.ratio_to_neo4j_floor ?? 0).toFixed(2)] : []),
      r.non2xx,
    ]),
  ].map((row) => row.map(String));
  console.log(`\n${formatTable(table)}`);
  const { after_over_before: ratio, mean_total: total } = hot.report;
  console.log(
    `\nhot links:false IDs (${HOT.ips} IPs, ${hot.report.holders_per_ip} holders each), after/before: search ALL ${ratio.search_all}, ` +
      `search ONE ${ratio.search_one}; IDs a search answers, mean: ALL ${total.before.all} → ${total.after.all}, ONE ${total.before.one} → ${total.after.one}`,
  );
  console.log(`erase of a person of ${erase.nodes} nodes (${erase.history_entries} history entries), ${erase.rounds} rounds: ${erase.ms.join(', ')} ms`);
  console.log(`load: ${load.ids_per_s} IDs/s   service RSS: ${memory.rss} MB now, ${memory.peak} MB peak`);
  if (neo4jMemory) console.log(`local Neo4j server RSS: ${neo4jMemory.rss} MB now, ${neo4jMemory.peak} MB peak`);

  const report = {
    mode: quick ? 'quick' : 'full',
    store,
    machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model ?? 'unknown', memory_gb: Math.round(os.totalmem() / 2 ** 30), node: process.version },
    graph: { nodes: graph.nodes, held_ids: graph.heldIds, largest_component: graph.largestComponent },
    floors,
    scenarios: results,
    load,
    links_false: hot.report,
    erase,
    rss_mb: memory.peak,
    ...(neo4jServer ? { neo4j: { server: neo4jServer.describe, ...(neo4jMemory ? { rss_mb: neo4jMemory.peak } : {}) } } : {}),
    measured_at: new Date().toISOString(),
  };
  fs.mkdirSync(path.join(ROOT, 'bench', 'results'), { recursive: true });
  const resultFile = path.join(ROOT, 'bench', 'results', store === 'neo4j' ? 'neo4j.json' : 'latest.json');
  fs.writeFileSync(resultFile, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`written: ${path.relative(ROOT, resultFile)}`);
  if (earlier)
    console.log(
      `\nagainst ${process.argv[process.argv.indexOf('--compare') + 1]} (measured ${earlier.measured_at ?? 'at an unknown time'}):\n${formatTable(comparisonTable(earlier, report))}`,
    );
  // The floors too: a Neo4j floor of 404s (a service without the route) would look fast.
  const failed = [...Object.entries(floors).map(([name, f]) => ({ ...f, name: `floor: ${name}` })), ...results].filter((r) => r.errors > 0 || r.non2xx > 0);
  if (failed.length > 0) {
    console.error(`scenarios with errors or non-2xx answers: ${failed.map((r) => r.name).join(', ')}`);
    process.exitCode = 1;
  }
}

/** Connections of the mixed scenario: apps' small lookups and an analyst's big searches, at once. */
const MIXED = { small: 8, big: 2 };

/**
 * Cheap and expensive calls together (docs/performance.md, "Mixed load and the read pool"). 8 connections run search ONE while 2 run the 1,000-node search, for
 * the same duration, so each big search's CPU time shows in the small ones' latency. Two results, named
 * `mixed: search ONE` and `mixed: search ALL (1,000+ node component)`.
 */
async function mixed(
  base: string,
  bodies: { small: () => string; big: () => string },
  headers: Record<string, string>,
  warmup: number,
  ratios: Ratios,
): Promise<ScenarioResult[]> {
  const spec = (connections: number): RequestSpec => ({
    method: 'POST',
    path: `/v1/${CUSTOMER}/_search`,
    headers: { 'content-type': 'application/json', ...headers },
    connections,
  });
  const small = cycle(Array.from({ length: MODE.bodies }, () => ({ body: bodies.small() })));
  const big = cycle(Array.from({ length: 1_000 }, () => ({ body: bodies.big() })));
  const both = (seconds: number) => Promise.all([drive(base, spec(MIXED.small), seconds, small), drive(base, spec(MIXED.big), seconds, big)]);
  await both(warmup);
  const [one, all] = await both(MODE.seconds);
  const named = (name: string, { requests: _requests, ...m }: Measured & { requests: number }): ScenarioResult => {
    console.log(`${name}: ${m.rps} req/s, p99 ${m.p99_ms} ms`);
    return { name, ...m, ...ratios(m) };
  };
  return [named('mixed: search ONE', one), named('mixed: search ALL (1,000+ node component)', all)];
}

type ScenarioResult = Measured & {
  name: string;
  ratio_to_express_floor: number;
  /** STORE=neo4j: req/s over the Neo4j floor's (floors.neo4j), RETURN 1 through the same service and driver path. */
  ratio_to_neo4j_floor?: number;
  /** The hot links:false scenarios only: req/s after the IDs became hot over req/s of the same search before. */
  ratio_to_before?: number;
};

/** A measurement's ratios to this run's floors: the Express floor's, and the Neo4j floor's when there is one. */
type Ratios = (m: Measured) => Pick<ScenarioResult, 'ratio_to_express_floor' | 'ratio_to_neo4j_floor'>;

/**
 * A search over a graph with hot `links: false` IDs is as fast as the same search without them. A second
 * customer declares `ip` with `links: false` in its member schema (no other option anywhere); its graph is loaded
 * through _bulk; search ALL and ONE are measured from nodes of small components, then each of those nodes gets two
 * of ten IP values (so each value is held by HOT.holders nodes, which would merge them all into one component if
 * `ip` linked), and the same searches from the same keys are measured again.
 */
async function hotLinksFalse(base: string, admin: Record<string, string>, scenario: (name: string, spec: RequestSpec) => Promise<ScenarioResult>) {
  const schemas = { ...SCHEMAS, member: [...(SCHEMAS.member ?? []), { type: 'ip', links: false }] };
  for (const [schemaId, idTypes] of Object.entries(schemas)) {
    await http(base, 'PUT', `/v1/${HOT.customer}/schema/${schemaId}`, { id_types: idTypes }, admin);
  }
  const graph: GeneratedGraph = generateGraph({ targetIds: HOT.targetIds, bigComponents: 0, seed: HOT.seed });
  const loadSeconds = await loadGraph(base, graph.lines, HOT.customer);
  console.log(
    `${HOT.customer}: ${graph.nodes} nodes, ${graph.heldIds} held IDs (largest component ${graph.largestComponent} nodes) in ${loadSeconds.toFixed(2)} s`,
  );

  const group = HOT.ips / HOT.ipsPerNode;
  const wanted = group * HOT.holders;
  const starts = graph.smallKeys.filter((k) => k.schema === 'member').slice(0, wanted);
  if (starts.length < wanted) throw new Error(`${HOT.customer}: the graph has ${starts.length} small-component member nodes, ${wanted} needed`);
  // Node j holds one IP of each slot: slot 0 is j mod 5, slot 1 is ⌊j / 5⌋ mod 5 (+ 5), so each of the ten values has
  // HOT.holders holders, and every slot-0 value shares a node with every slot-1 value: linked, they would be one component.
  const ipsOf = (j: number) =>
    Array.from({ length: HOT.ipsPerNode }, (_, slot) => ({ type: 'ip', id: `203.0.113.${1 + slot * group + (Math.floor(j / group ** slot) % group)}` }));
  const hotLines = starts.map((n, j) => JSON.stringify({ op: 'insert', body: { schema: n.schema, key: n.key, ids: ipsOf(j) } }));

  const searchPath = `/v1/${HOT.customer}/_search`;
  const searchFrom = (step: 'ONE' | 'ALL') => {
    const next = cycle(starts);
    return () => {
      const n = next();
      return JSON.stringify({ match: { from: { schema: n.schema, key: n.key }, step } });
    };
  };
  /** The mean `total` of one search from each of the first 200 start nodes: what the results weigh, before and after. */
  const meanTotal = async (step: 'ONE' | 'ALL') => {
    const body = searchFrom(step);
    let sum = 0;
    for (let i = 0; i < 200; i += 1) sum += ((await http(base, 'POST', searchPath, JSON.parse(body()), admin)) as { total: number }).total;
    return Number((sum / 200).toFixed(1));
  };
  const run = (name: string, step: 'ONE' | 'ALL') => scenario(name, { method: 'POST', path: searchPath, headers: admin, body: searchFrom(step) });

  const held = `held by ${HOT.holders.toLocaleString('en-US')} nodes each`;
  const before = { all: await meanTotal('ALL'), one: await meanTotal('ONE') };
  const allBefore = await run('search ALL (small component), customer with links:false types', 'ALL');
  const oneBefore = await run('search ONE, customer with links:false types', 'ONE');
  await loadGraph(base, hotLines, HOT.customer);
  const after = { all: await meanTotal('ALL'), one: await meanTotal('ONE') };
  // Linked, the ten IPs would put thousands of IDs in every answer: a few more means they did not link.
  if (after.all > before.all + 4 * HOT.ipsPerNode) {
    throw new Error(`${HOT.customer}: search ALL answers ${after.all} IDs on average with the IPs, ${before.all} without: links:false did not hold`);
  }
  const allAfter = await run(`search ALL (small component), with hot links:false IDs ${held}`, 'ALL');
  const oneAfter = await run(`search ONE, with hot links:false IDs ${held}`, 'ONE');
  const ratio = (a: Measured, b: Measured) => Number((a.rps / b.rps).toFixed(2));
  return {
    results: [allBefore, oneBefore, { ...allAfter, ratio_to_before: ratio(allAfter, allBefore) }, { ...oneAfter, ratio_to_before: ratio(oneAfter, oneBefore) }],
    report: {
      customer: HOT.customer,
      graph: { nodes: graph.nodes, held_ids: graph.heldIds, largest_component: graph.largestComponent },
      start_nodes: starts.length,
      hot_ips: HOT.ips,
      holders_per_ip: HOT.holders,
      mean_total: { before, after },
      after_over_before: { search_all: ratio(allAfter, allBefore), search_one: ratio(oneAfter, oneBefore) },
    },
  };
}

/**
 * Showing messages: a customer of its own with SHOW.deliveries active deliveries and SHOW.persons persons of SHOW.idsPerPerson
 * IDs each (SHOW.nodesPerPerson nodes sharing one device_id). Every request names one ID of a random person. The
 * impressions run first (caps high enough never to answer 409, spread over every delivery), so that eligibility
 * then weighs persons with impressions. Eligibility asks at a fixed instant inside every period, on an event that
 * a tenth of the deliveries trigger on.
 */
const SHOW = { customer: 'bench-show', deliveries: 100, persons: 1_000, nodesPerPerson: 4, idsPerPerson: 20, events: 10, at: '2026-06-01T09:00:00+09:00' };

async function showingMessages(base: string, admin: Record<string, string>, scenario: (name: string, spec: RequestSpec) => Promise<ScenarioResult>) {
  await http(
    base,
    'PUT',
    `/v1/${SHOW.customer}/schema/app`,
    { id_types: [{ type: 'user_id' }, { type: 'device_id' }, { type: 'cookie' }, { type: 'ad_id' }] },
    admin,
  );
  const mapi = { 'x-service-mapi-token': ((await http(base, 'POST', `/v1/${SHOW.customer}/token`, { kind: 'mapi' }, admin)) as { token: string }).token };
  for (let i = 0; i < SHOW.deliveries; i += 1) {
    const delivery = buildDelivery(i) as { condition: Record<string, unknown> & { trigger: Record<string, unknown> } };
    Object.assign(delivery.condition, { max_delivery_count: 1_000_000_000, max_total_count: 1_000_000, max_total_count_per_day: 1_000_000 });
    delivery.condition.trigger.event_name = [`event-${i % SHOW.events}`];
    await http(base, 'POST', '/v1/delivery', delivery, mapi);
  }
  /** Each person: nodes keyed by user_id sharing the person's device_id, and private IDs dealt out among them. */
  const personIds: Array<Array<{ type: string; id: string }>> = [];
  const lines: string[] = [];
  for (let p = 0; p < SHOW.persons; p += 1) {
    const device = { type: 'device_id', id: `show-${p}` };
    const held: Array<Array<{ type: string; id: string }>> = Array.from({ length: SHOW.nodesPerPerson }, () => [device]);
    const privates = SHOW.idsPerPerson - SHOW.nodesPerPerson - 1;
    for (let i = 0; i < privates; i += 1) held[i % SHOW.nodesPerPerson]?.push({ type: i % 2 === 0 ? 'cookie' : 'ad_id', id: `show-${p}-${i}` });
    const ids = [device];
    held.forEach((nodeIds, j) => {
      const key = { type: 'user_id', id: `show-${p}-u${j}` };
      ids.push(key, ...nodeIds.slice(1));
      lines.push(JSON.stringify({ op: 'create', body: { schema: 'app', key, ids: nodeIds } }));
    });
    personIds.push(ids);
  }
  await loadGraph(base, lines, SHOW.customer);
  const random = prng(20261124);
  const anyId = () => {
    const ids = personIds[Math.floor(random() * personIds.length)] as Array<{ type: string; id: string }>;
    return ids[Math.floor(random() * ids.length)];
  };
  const platforms = ['ios', 'android', 'other'];
  const results: ScenarioResult[] = [];
  results.push(
    await scenario('impression (person of 20 IDs)', {
      method: 'POST',
      path: '/v1/delivery/1/_impression',
      headers: mapi,
      request: () => ({
        path: `/v1/delivery/${1 + Math.floor(random() * SHOW.deliveries)}/_impression`,
        body: JSON.stringify({ user: anyId(), platform: platforms[Math.floor(random() * 3)], at: SHOW.at }),
      }),
    }),
  );
  results.push(
    await scenario('eligible (person of 20 IDs, 100 active deliveries)', {
      method: 'POST',
      path: '/v1/delivery/_eligible',
      headers: mapi,
      body: () => JSON.stringify({ user: anyId(), event_name: `event-${Math.floor(random() * SHOW.events)}`, platform: 'ios', at: SHOW.at }),
    }),
  );
  return results;
}

/** Erasure: persons of ERASE.nodes member nodes in the main customer (with its whole graph and history around them). */
const ERASE = { nodes: 1_000, rounds: 3 };

/**
 * Each round builds a person: ERASE.nodes member nodes that share one cookie, each created with an ad_id of its own
 * and given a second one by an insert (two history entries each), loaded through _bulk; then times one _erase of the
 * person (scope person) from the cookie, as a client sees it, and checks that every node went.
 */
async function erasePersons(base: string, admin: Record<string, string>) {
  const ms: number[] = [];
  for (let round = 0; round < ERASE.rounds; round += 1) {
    const cookie = { type: 'cookie', id: `erase-${round}-shared` };
    const lines: string[] = [];
    for (let i = 0; i < ERASE.nodes; i += 1) {
      const key = { type: 'member_id', id: `erase-${round}-${i}` };
      lines.push(JSON.stringify({ op: 'create', body: { schema: 'member', key, ids: [cookie, { type: 'ad_id', id: `erase-${round}-${i}-a` }] } }));
    }
    for (let i = 0; i < ERASE.nodes; i += 1) {
      const key = { type: 'member_id', id: `erase-${round}-${i}` };
      lines.push(JSON.stringify({ op: 'insert', body: { schema: 'member', key, ids: [{ type: 'ad_id', id: `erase-${round}-${i}-b` }] } }));
    }
    await loadGraph(base, lines);
    const started = process.hrtime.bigint();
    const outcome = (await http(base, 'POST', `/v1/${CUSTOMER}/_erase`, { id: cookie, scope: 'person' }, admin)) as { nodes_deleted: number };
    ms.push(Number((Number(process.hrtime.bigint() - started) / 1e6).toFixed(1)));
    if (outcome.nodes_deleted !== ERASE.nodes) throw new Error(`erase deleted ${outcome.nodes_deleted} nodes, ${ERASE.nodes} expected`);
  }
  const sorted = [...ms].sort((a, b) => a - b);
  return { nodes: ERASE.nodes, history_entries: 2 * ERASE.nodes, rounds: ERASE.rounds, ms, median_ms: sorted[Math.floor(sorted.length / 2)] };
}

function buildDelivery(i: number): object {
  return {
    name: `Campaign ${i}`,
    priority: i % 5,
    condition: {
      trigger: { event_name: ['app_open'], period: [{ start: '2026-01-01T00:00:00Z', end: '2026-12-31T23:59:59Z' }] },
      target: { segmentation_id: i % 10 },
      max_delivery_count: 1000,
      max_total_count: 3,
      max_total_count_per_day: 1,
      category: 'bench',
      is_active: true,
    },
    message: [{ template_id: 1, title: 'Hello', body: 'Body', image_url: 'https://cdn.example.com/i.png', buttons: [] }],
  };
}

/**
 * `--scale N`: how cost grows with the graph. N × the full graph (N = 0.1: about 100,000 IDs; 10: about 10M) is
 * generated and loaded through _bulk into a fresh store; then search ONE, the 1,000-node search and insert are
 * measured as in the full run. Load time, the service's peak RSS, the database's size on disk (SQLite: the file
 * and its WAL; Neo4j: its database's store files, when the bench starts the server) and each scenario's p50 and p99 go to
 * results/scale/<store>-<IDs>.json, which `node dist-bench/bench/plot.js` turns into docs/performance.md's table and
 * results/scale.svg.
 */
async function scaleMain(scale: number): Promise<void> {
  const store = process.env.STORE === 'neo4j' ? 'neo4j' : 'sqlite';
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'idlink-bench-scale-'));
  const neo4jServer = store === 'neo4j' ? await neo4jForBench(path.join(dataDir, 'neo4j')) : undefined;
  const graph = generateGraph({ targetIds: Math.round(scale * FULL_IDS), bigComponents: MODE.bigComponents, seed: 20261121 });
  console.log(`bench --scale ${scale}: store=${store}, ${graph.nodes} nodes, ${graph.heldIds} held IDs`);
  const service = await startProcess([path.join(ROOT, 'dist', 'main.js')], serviceEnvFor(store, dataDir, neo4jServer?.env));
  await waitReady(service.base);
  const admin = { authorization: `Bearer ${ADMIN}` };
  for (const [schemaId, idTypes] of Object.entries(SCHEMAS)) {
    await http(service.base, 'PUT', `/v1/${CUSTOMER}/schema/${schemaId}`, { id_types: idTypes }, admin);
  }
  const loadSeconds = await loadGraph(service.base, graph.lines);
  graph.lines.length = 0; // the bodies are sent; keep the bench's own memory out of the measurements
  console.log(`load: ${graph.heldIds} IDs in ${loadSeconds.toFixed(1)} s`);
  const small = cycle(graph.smallKeys);
  const big = cycle(graph.bigKeys);
  const withCookie = cycle(graph.smallKeys.filter((k) => k.schema !== 'crm'));
  const specs: Array<[string, RequestSpec]> = [
    ['search ONE', { method: 'POST', path: `/v1/${CUSTOMER}/_search`, headers: admin, body: searchBodies(small, 'ONE') }],
    ['search ALL (1,000+ node component)', { method: 'POST', path: `/v1/${CUSTOMER}/_search`, headers: admin, body: searchBodies(big, 'ALL', 100) }],
    ['insert', { method: 'POST', path: `/v1/${CUSTOMER}/node/_insert`, body: insertBodies(withCookie) }],
  ];
  const scenarios: Array<{ name: string } & Measured> = [];
  for (const [name, spec] of specs) {
    const m = await measure(service.base, spec, warmupOf(store));
    console.log(`${name}: ${m.rps} req/s, p50 ${m.p50_ms} ms, p99 ${m.p99_ms} ms`);
    scenarios.push({ name, ...m });
  }
  const memory = memoryMb(service.child.pid as number);
  // The Neo4j JVM's peak (VmHWM), when the bench started it: its heap and page cache are most of what a Neo4j
  // deployment adds beside the service.
  const neo4jMemory = neo4jServer?.pid ? memoryMb(neo4jServer.pid) : undefined;
  await stop(service);
  // Neo4j: the store files of its database once the server has stopped, when the bench started it. Its transaction
  // logs are counted apart: Neo4j allocates them 256 MB at a time, whatever they hold.
  await neo4jServer?.stop();
  const neo4jData = neo4jServer?.dataDir ? path.join(neo4jServer.dataDir, 'data') : undefined;
  const dbBytes = store === 'sqlite' ? folderBytes(dataDir) : neo4jData ? folderBytes(path.join(neo4jData, 'databases', 'neo4j')) : undefined;
  const txLogBytes = neo4jData ? folderBytes(path.join(neo4jData, 'transactions', 'neo4j')) : undefined;
  fs.rmSync(dataDir, { recursive: true, force: true });
  const report = {
    store,
    scale,
    machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model ?? 'unknown', memory_gb: Math.round(os.totalmem() / 2 ** 30), node: process.version },
    graph: { nodes: graph.nodes, held_ids: graph.heldIds, largest_component: graph.largestComponent },
    load: { seconds: Number(loadSeconds.toFixed(2)), ids_per_s: Math.round(graph.heldIds / loadSeconds) },
    rss_mb: memory.peak,
    ...(neo4jMemory ? { neo4j_rss_mb: neo4jMemory.peak } : {}),
    ...(dbBytes !== undefined ? { db_mb: Math.round(dbBytes / 2 ** 20) } : {}),
    ...(txLogBytes !== undefined ? { neo4j_tx_log_mb: Math.round(txLogBytes / 2 ** 20) } : {}),
    scenarios,
    measured_at: new Date().toISOString(),
  };
  const dir = path.join(ROOT, 'bench', 'results', 'scale');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${store}-${graph.heldIds}.json`);
  fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(
    `RSS peak ${memory.peak} MB${neo4jMemory ? `, Neo4j JVM ${neo4jMemory.peak} MB` : ''}${dbBytes !== undefined ? `, database ${report.db_mb} MB` : ''}; written: ${path.relative(ROOT, file)}`,
  );
}

/**
 * Bytes of the files under `folder`, at any depth. Walked a folder at a time: `Dirent.parentPath` and a recursive
 * `readdirSync` came during Node 20's life, and the bench runs on every Node 20.
 */
function folderBytes(folder: string): number {
  return fs.readdirSync(folder, { withFileTypes: true }).reduce((sum, entry) => {
    const at = path.join(folder, entry.name);
    if (entry.isDirectory()) return sum + folderBytes(at);
    return entry.isFile() ? sum + fs.statSync(at).size : sum;
  }, 0);
}

/** Search bodies, each from the next key `next` gives. */
function searchBodies(next: () => NodeRef, step: 'ONE' | 'ALL', limit?: number): () => string {
  return () => {
    const n = next();
    return JSON.stringify({ match: { from: { schema: n.schema, key: n.key }, step }, ...(limit ? { limit } : {}) });
  };
}

/** _graph bodies: step ALL from each node in turn. */
function graphBodies(next: () => NodeRef): () => string {
  return () => {
    const n = next();
    return JSON.stringify({ match: { from: { schema: n.schema, key: n.key }, step: 'ALL' } });
  };
}

/** _why bodies: pairs of nodes of the same big component (its number is in the key, `<schema>-<component>-<n>`). */
function whyBodies(keys: NodeRef[]): () => string {
  const byComponent = new Map<string, NodeRef[]>();
  for (const k of keys) {
    const component = /-(\d+)-\d+$/.exec(k.key.id)?.[1] ?? '';
    byComponent.set(component, [...(byComponent.get(component) ?? []), k]);
  }
  const pairs = [...byComponent.values()].flatMap((nodes) =>
    nodes.map((from, i) => ({ from, to: nodes[(i * 7 + Math.floor(nodes.length / 2)) % nodes.length] as NodeRef })),
  );
  let i = 0;
  return () => {
    const { from, to } = pairs[i++ % pairs.length] as { from: NodeRef; to: NodeRef };
    return JSON.stringify({ from: { schema: from.schema, key: from.key }, to: { schema: to.schema, key: to.key }, max_hops: 50 });
  };
}

/** Insert bodies: a new cookie each, into the next node `next` gives. */
function insertBodies(next: () => NodeRef): () => string {
  let counter = 0;
  return () => {
    counter += 1;
    const n = next();
    return JSON.stringify({ schema: n.schema, key: n.key, ids: [{ type: 'cookie', id: `bench-ins-${counter}` }] });
  };
}

/** Held IDs of the full graph: --scale multiplies it. */
const FULL_IDS = 1_000_000;

/** `--scale N`, a positive number, or undefined. */
function scaleOf(): number | undefined {
  const at = process.argv.indexOf('--scale');
  if (at < 0) return undefined;
  const scale = Number(process.argv[at + 1]);
  if (!(scale > 0)) throw new Error('--scale needs a positive number: 0.1 for about 100,000 IDs, 1 for 1M, 10 for 10M');
  return scale;
}

/** How long `work` takes, in seconds, and what it answered. */
async function timed<T>(work: () => Promise<T>): Promise<{ seconds: number; value: T }> {
  const started = process.hrtime.bigint();
  const value = await work();
  return { seconds: Number(process.hrtime.bigint() - started) / 1e9, value };
}

/** The customer's export, read whole as text (the service streams it: this measures how fast); a cut one stops the bench. */
async function exportText(base: string, customer: string, history: boolean): Promise<string> {
  const res = await fetch(`${base}/v1/${customer}/_export${history ? '?history=true' : ''}`, { headers: { authorization: `Bearer ${ADMIN}` } });
  const text = await res.text();
  const lines = text.trimEnd().split('\n');
  const end = JSON.parse(lines.at(-1) ?? '{}') as { kind?: string; lines?: number };
  if (res.status !== 200 || end.kind !== 'end' || end.lines !== lines.length - 1)
    throw new Error(`the export of ${customer} answered ${res.status}, or was cut`);
  return text;
}

/**
 * `npm run bench -- --moves` (STORE as for the bench): the 1M-ID graph loaded, then its export (with and without
 * history) and its import into a new customer, each timed as IDs a second; with STORE=sqlite and the local Neo4j,
 * then `npm run migrate` of that store into a fresh Neo4j, timed. Results in bench/results/moves/<store>.json.
 */
async function movesMain(): Promise<void> {
  const store = process.env.STORE === 'neo4j' ? 'neo4j' : 'sqlite';
  const neo4jServer = store === 'neo4j' ? await neo4jForBench() : undefined;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'idlink-bench-moves-'));
  const graph = generateGraph({ targetIds: MODE.targetIds, bigComponents: MODE.bigComponents, seed: 20261121 });
  console.log(`moves: store=${store}, ${graph.nodes} nodes, ${graph.heldIds} held IDs`);
  const env = serviceEnvFor(store, dataDir, neo4jServer?.env);
  let service = await startProcess([path.join(ROOT, 'dist', 'main.js')], env);
  await waitReady(service.base);
  const admin = { authorization: `Bearer ${ADMIN}` };
  for (const [schemaId, idTypes] of Object.entries(SCHEMAS))
    await http(service.base, 'PUT', `/v1/${CUSTOMER}/schema/${schemaId}`, { id_types: idTypes }, admin);
  const loadSeconds = await loadGraph(service.base, graph.lines);
  console.log(`load: ${graph.heldIds} IDs in ${loadSeconds.toFixed(1)} s`);
  const rate = (seconds: number) => Math.round(graph.heldIds / seconds);
  const results: Record<string, unknown> = { store, ids: graph.heldIds, nodes: graph.nodes, load_s: Number(loadSeconds.toFixed(1)) };
  if (store === 'sqlite' && !process.env.NEO4J_URI) {
    // The service stopped, as migrate wants: the bench customer (the graph and its history) into a fresh Neo4j.
    await stop(service);
    const target = await neo4jForBench();
    try {
      const migrate = await timed(
        () =>
          new Promise<void>((resolve, reject) => {
            const child = spawn(
              process.execPath,
              [path.join(ROOT, 'dist', 'migrate.js'), '--from', `sqlite:${path.join(dataDir, 'bench.sqlite')}`, '--to', 'neo4j'],
              {
                cwd: ROOT,
                env: { PATH: process.env.PATH ?? '', ...target.env },
                stdio: ['ignore', 'inherit', 'inherit'],
              },
            );
            child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`migrate exited with ${code}`))));
          }),
      );
      results.migrate_to_neo4j = { seconds: Number(migrate.seconds.toFixed(1)), ids_per_s: rate(migrate.seconds), compared: true };
      console.log(`migrate to neo4j: ${migrate.seconds.toFixed(1)} s, the exports compared after the copy included`);
    } finally {
      await target.stop();
    }
    service = await startProcess([path.join(ROOT, 'dist', 'main.js')], env);
    await waitReady(service.base);
  }
  for (const round of [1, 2]) {
    const plain = await timed(() => exportText(service.base, CUSTOMER, false));
    const withHistory = await timed(() => exportText(service.base, CUSTOMER, true));
    const target = `${CUSTOMER}-import-${round}`;
    const imported = await timed(async () => {
      const res = await fetch(`${service.base}/v1/${target}/_import`, {
        method: 'POST',
        headers: { ...admin, 'content-type': 'application/x-ndjson' },
        body: withHistory.value,
      });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`the import answered ${res.status}: ${text.slice(0, 300)}`);
      return JSON.parse(text) as unknown;
    });
    const measured = {
      export_mb: Number((plain.value.length / 1e6).toFixed(1)),
      export_s: Number(plain.seconds.toFixed(2)),
      export_ids_per_s: rate(plain.seconds),
      export_with_history_mb: Number((withHistory.value.length / 1e6).toFixed(1)),
      export_with_history_s: Number(withHistory.seconds.toFixed(2)),
      export_with_history_ids_per_s: rate(withHistory.seconds),
      import_s: Number(imported.seconds.toFixed(2)),
      import_ids_per_s: rate(imported.seconds),
      imported: imported.value,
    };
    console.log(`round ${round}: ${JSON.stringify(measured)}`);
    results[`round_${round}`] = measured;
  }
  results.service_memory_mb = memoryMb(service.child.pid as number);
  await stop(service);
  await neo4jServer?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
  const out = path.join(ROOT, 'bench', 'results', 'moves', `${store}.json`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), cores: os.cpus().length, ...results }, null, 2)}\n`);
  console.log(`wrote ${path.relative(ROOT, out)}`);
}

const scale = scaleOf();
(process.argv.includes('--moves') ? movesMain() : scale === undefined ? main() : scaleMain(scale)).catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
