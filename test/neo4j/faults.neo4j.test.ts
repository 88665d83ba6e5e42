// The service (`node dist/main.js`) while its Neo4j goes away and comes back. This suite starts its own local
// Neo4j (neo4j-local/) on a fixed port with a kept data folder, so that it can stop the server (SIGTERM, SIGKILL,
// SIGSTOP) under a steady stream of requests and start the same database again. Whatever happens, every answer is the
// normal success or 503 store_unavailable, within a client timeout; /readyz follows Neo4j; the service recovers
// without a restart; and every write that was answered 2xx is there afterwards, also when the database was restored
// from a dump while the server was down (the backup of docs/operations.md: neo4j-admin's dump and load through
// admin()). A service started while Neo4j is down, or with settings Neo4j refuses, listens, answers 503 and keeps
// trying. The tests run in order on one server.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import neo4jDriver, { type Driver } from 'neo4j-driver';
import { admin, freePort, type LocalNeo4j, missingTools, start } from '../../neo4j-local/neo4j-local';
import {
  ADMIN_TOKEN,
  type Answer,
  call,
  serverFaults,
  type Service,
  serviceEnv,
  startService,
  stopService,
  untilReady,
  untilReadyz,
} from '../helpers/neo4j-services';
import { logEntries, logged } from '../helpers/server-process';
import { waitFor } from '../helpers/settling';
import { loadStatements, schemaObjects } from '../../src/store/neo4j/statements';

/**
 * A request with no answer after this long is a hang. A request in flight when Neo4j goes away is retried by the
 * driver: its attempts start for 10 s (maxTransactionRetryTime), the last after a wait of up to 9.6 s, and an attempt
 * may wait up to 10 s for a connection, or until Neo4j closes the one it uses; 25 s measured here. Past
 * NEO4J_CALL_TIMEOUT_MS (30 s) the service answers 503 whatever the driver is still doing.
 */
const CLIENT_TIMEOUT_MS = 60_000;
/**
 * Longest wait for the service to be ready after Neo4j is: its back-off (at most 5 s) plus one connection, and on a
 * fresh database cypher/schema/ applied. 10-14 s measured beside the other Neo4j files; past 20 s on a 2-core machine
 * running several Neo4j servers at a load average above 20, so the bound leaves room for that. The wait ends as soon
 * as the service is ready; the times are printed at the end.
 */
const RECOVERY_BOUND_MS = 60_000;
const NEO4J_START_MS = 180_000;

const PASSWORD = crypto.randomBytes(12).toString('hex');
const schema = { id_types: [{ type: 'member_id' }, { type: 'device' }, { type: 'cookie' }] };
const hub = { type: 'member_id', id: 'hub' };

/** How long each step took, printed at the end. */
const timings: Record<string, number> = {};

const problemOf = (answer: Answer) => ({ status: answer.status, json: answer.json, contentType: answer.contentType });

/** 503 store_unavailable as problem+json, what the service must answer while it cannot reach Neo4j. */
function expectUnavailable(answer: Answer): void {
  expect(problemOf(answer)).toMatchObject({
    status: 503,
    contentType: expect.stringMatching(/^application\/problem\+json/),
    json: { status: 503, code: 'store_unavailable' },
  });
}

interface Outcome {
  op: 'create' | 'insert' | 'search';
  /** The ID the request wrote (member_id of a create, cookie of an insert). */
  id: string;
  status?: number;
  code?: string;
  contentType?: string;
  /** A client timeout or a broken connection. */
  failure?: string;
  /** When it was sent, in ms since the traffic began, and how long its answer took. */
  at: number;
  ms: number;
}

const EXPECTED_STATUS: Record<Outcome['op'], number> = { create: 201, insert: 201, search: 200 };

/**
 * Requests one after the other on a few workers until stopped: creates of new nodes (all holding the device
 * `shared-<tag>`), inserts of new cookies into the hub node, and searches from the hub.
 */
const trafficRunning: Array<{ stop(): Promise<unknown> }> = [];

function steadyTraffic(service: Service, customer: string, tag: string) {
  let running = true;
  let next = 0;
  const began = Date.now();
  const outcomes: Outcome[] = [];
  const requestFor = (op: Outcome['op'], n: number) => {
    switch (op) {
      case 'create': {
        const id = `${tag}-${n}`;
        return {
          id,
          url: `/v1/${customer}/node/_create`,
          body: { schema: 'member', key: { type: 'member_id', id }, ids: [{ type: 'device', id: `shared-${tag}` }] },
        };
      }
      case 'insert': {
        const id = `${tag}-cookie-${n}`;
        return { id, url: `/v1/${customer}/node/_insert`, body: { schema: 'member', key: hub, ids: [{ type: 'cookie', id }] } };
      }
      case 'search':
        return {
          id: '',
          url: `/v1/${customer}/_search`,
          body: { match: { from: { schema: 'member', key: hub }, step: 'ONE', having: { type: 'cookie' } }, limit: 10 },
        };
    }
  };
  const worker = async (op: Outcome['op']) => {
    while (running) {
      const { id, url, body } = requestFor(op, (next += 1));
      const started = Date.now();
      try {
        const answer = await call(service.base, 'POST', url, { body, timeoutMs: CLIENT_TIMEOUT_MS });
        outcomes.push({
          op,
          id,
          status: answer.status,
          code: (answer.json as { code?: string } | undefined)?.code,
          contentType: answer.contentType,
          at: started - began,
          ms: Date.now() - started,
        });
      } catch (e) {
        outcomes.push({ op, id, failure: e instanceof Error ? `${e.name}: ${e.message}` : String(e), at: started - began, ms: Date.now() - started });
      }
      // Fixed sleep: it sets the traffic's rate (room on the two cores for Neo4j), it waits for nothing.
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const workers = (['create', 'create', 'insert', 'search'] as const).map(worker);
  const acknowledged = () => outcomes.filter((o) => o.op === 'create' && o.status === 201).length;
  const traffic = {
    /** Resolves once `count` more creates have been answered 201 from now. */
    async acknowledges(count: number): Promise<void> {
      const from = acknowledged();
      await waitFor(`${count} more acknowledged creates`, () => acknowledged() >= from + count, { timeoutMs: 120_000, everyMs: 50 });
    },
    async stop(): Promise<Outcome[]> {
      running = false;
      await Promise.all(workers);
      return outcomes;
    },
  };
  trafficRunning.push(traffic);
  return traffic;
}

/** Every answer was the operation's success or 503 store_unavailable (problem+json); nothing hung or broke. */
function expectOnlySuccessOr503(outcomes: Outcome[]): void {
  const unexpected = outcomes.filter(
    (o) =>
      o.failure !== undefined ||
      !(o.status === EXPECTED_STATUS[o.op] || (o.status === 503 && o.code === 'store_unavailable' && /^application\/problem\+json/.test(o.contentType ?? ''))),
  );
  expect(unexpected).toEqual([]);
}

/** Every create and insert answered 201 is in the store now. */
async function expectAcknowledgedWritesKept(service: Service, customer: string, tag: string, outcomes: Outcome[]): Promise<void> {
  const search = async (body: unknown) => {
    const answer = await call(service.base, 'POST', `/v1/${customer}/_search`, { body });
    expect(answer.status).toBe(200);
    return new Set((answer.json as { results: Array<{ id: string }> }).results.map((r) => r.id));
  };
  const members = await search({
    match: { from: { where: { type: 'device', id: `shared-${tag}` } }, step: 'ONE', having: { type: 'member_id' } },
    limit: 100000,
  });
  const cookies = await search({ match: { from: { schema: 'member', key: hub }, step: 'ONE', having: { type: 'cookie' } }, limit: 100000 });
  const acknowledged = (op: Outcome['op']) => outcomes.filter((o) => o.op === op && o.status === 201).map((o) => o.id);
  expect(acknowledged('create').filter((id) => !members.has(id))).toEqual([]);
  expect(acknowledged('insert').filter((id) => !cookies.has(id))).toEqual([]);
}

const summary = (outcomes: Outcome[]) => {
  const counts: Record<string, number> = {};
  for (const o of outcomes) {
    const key = o.failure ? 'failure' : `${o.op} ${o.status}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  const slowest = [...outcomes]
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 5)
    .map((o) => `${o.op} ${o.status ?? o.failure} sent at ${o.at} took ${o.ms}`);
  return { counts, slowestMs: Math.max(0, ...outcomes.map((o) => o.ms)), slowest };
};

const driverFor = (c: { uri: string; username: string; password: string }): Driver => neo4jDriver.driver(c.uri, neo4jDriver.auth.basic(c.username, c.password));

/**
 * Sends SIGSTOP to the Neo4j server and waits until Linux shows every thread of it stopped (state T in
 * /proc/<pid>/task/<tid>/stat): kill() returns once the signal is queued, and a query sent at once could still be
 * answered by threads not yet stopped (seen once: /readyz answered 200 right after the signal). Where /proc is
 * absent, it only sends the signal.
 */
async function freeze(server: LocalNeo4j): Promise<void> {
  server.child.kill('SIGSTOP');
  const tasks = `/proc/${server.child.pid}/task`;
  // The state follows the command name in parentheses, which may itself hold spaces. A thread gone meanwhile
  // answers nothing anyway.
  const stateOf = (tid: string) => {
    try {
      return fs.readFileSync(path.join(tasks, tid, 'stat'), 'utf8').split(') ')[1]?.[0];
    } catch {
      return 'T';
    }
  };
  // Where a thread does not show it within 5 s, the test goes on: what it checks next says what the service saw.
  await waitFor('every thread of Neo4j stopped', () => !fs.existsSync(tasks) || fs.readdirSync(tasks).every((tid) => stateOf(tid) === 'T'), {
    timeoutMs: 5_000,
  }).catch(() => undefined);
}

describe('the service while its Neo4j goes away', () => {
  let port: number;
  let data: string;
  let dumps: string;
  let neo4j: LocalNeo4j | undefined;
  const services: Service[] = [];
  let first: Service;

  const startNeo4j = async (): Promise<number> => {
    const started = Date.now();
    neo4j = await start({ port, password: PASSWORD, data, heap: '512m', quickJit: true, timeoutMs: NEO4J_START_MS });
    return Date.now() - started;
  };
  const connection = () => ({ uri: `bolt://127.0.0.1:${port}`, username: 'neo4j', password: PASSWORD, database: 'neo4j' });
  const startTracked = async (overrides: Record<string, string> = {}) => {
    const service = await startService(serviceEnv(connection(), overrides));
    services.push(service);
    return service;
  };

  beforeAll(async () => {
    const missing = missingTools();
    if (missing) {
      throw new Error(`The Neo4j fault suite starts its own local Neo4j (neo4j-local/) and cannot run here: ${missing}. Install java 17+ and mvn.`);
    }
    port = await freePort();
    data = fs.mkdtempSync(path.join(os.tmpdir(), 'idlink-faults-neo4j-'));
    dumps = fs.mkdtempSync(path.join(os.tmpdir(), 'idlink-faults-dumps-'));
  });

  afterEach(async () => {
    // Traffic of a test that failed half-way.
    await Promise.all(trafficRunning.splice(0).map((t) => t.stop()));
    // A 5xx other than 503 is a fault of ours, whatever the test checked.
    expect(services.flatMap(serverFaults)).toEqual([]);
  });

  afterAll(async () => {
    await Promise.all(services.map(stopService));
    await neo4j?.stop(10_000);
    for (const folder of [data, dumps]) if (folder) fs.rmSync(folder, { recursive: true, force: true });
    process.stdout.write(`\nNeo4j fault suite timings (ms): ${JSON.stringify(timings)}\n`);
  });

  test('when the service starts while Neo4j is down, then it listens and answers 503 store_unavailable (readyz too), and once Neo4j starts it becomes ready by itself and serves writes', async () => {
    first = await startTracked();
    expect((await call(first.base, 'GET', '/healthz')).status).toBe(200);
    expectUnavailable(await call(first.base, 'GET', '/readyz'));
    expectUnavailable(await call(first.base, 'PUT', '/v1/faults/schema/member', { token: ADMIN_TOKEN, body: schema }));
    expectUnavailable(await call(first.base, 'POST', '/v1/faults/_search', { body: { match: { from: { schema: 'member', key: hub } } } }));
    const retrying = await logged(first.server, 'cannot connect to Neo4j yet; retrying in the background');
    expect(retrying.level).toBe('warn');

    timings.neo4jFirstStart = await startNeo4j();
    timings.readyAfterNeo4jFirstStart = await untilReady(first, RECOVERY_BOUND_MS);
    expect((await call(first.base, 'PUT', '/v1/faults/schema/member', { token: ADMIN_TOKEN, body: schema })).status).toBe(201);
    expect((await call(first.base, 'POST', '/v1/faults/node/_create', { body: { schema: 'member', key: hub } })).status).toBe(201);
    expect(logEntries(first.server).some((l) => l.message === 'store ready')).toBe(true);
    expect(first.server.lines.join('\n') + first.server.stderr()).not.toContain(PASSWORD);
  }, 240_000);

  test('when Neo4j is stopped with SIGTERM under steady writes and searches, and restored from a dump while it is down, then every answer is a success or 503 store_unavailable, readyz is 503 while it is down, and once it is back the service recovers without a restart and keeps every acknowledged write, and the token issued before', async () => {
    // A token and a node of another customer, written before the stop: the restored database must hold both.
    expect((await call(first.base, 'PUT', '/v1/kept/schema/member', { token: ADMIN_TOKEN, body: schema })).status).toBe(201);
    const issued = await call(first.base, 'POST', '/v1/kept/token', { token: ADMIN_TOKEN, body: { kind: 'bearer' } });
    expect(issued.status).toBe(201);
    const bearer = (issued.json as { token: string }).token;
    const keptSearch = { match: { from: { schema: 'member', key: { type: 'member_id', id: 'kept-1' } } } };
    const keptNode = { schema: 'member', key: { type: 'member_id', id: 'kept-1' }, ids: [{ type: 'device', id: 'kept-tv' }] };
    expect((await call(first.base, 'POST', '/v1/kept/node/_create', { token: bearer, body: keptNode })).status).toBe(201);
    const keptBefore = await call(first.base, 'POST', '/v1/kept/_search', { token: bearer, body: keptSearch });
    expect(keptBefore.json).toEqual({
      results: [
        { type: 'device', id: 'kept-tv' },
        { type: 'member_id', id: 'kept-1' },
      ],
      total: 2,
    });
    // Community Edition dumps a stopped database only (docs/operations.md).
    const whileRunning = await admin(['database', 'dump', 'neo4j', `--to-path=${dumps}`], { data, heap: '256m' });
    expect(whileRunning.code).not.toBe(0);
    expect(whileRunning.output).toContain('The database is in use');
    expect(fs.readdirSync(dumps)).toEqual([]);

    const trafficBegan = Date.now();
    const traffic = steadyTraffic(first, 'faults', 'term');
    await traffic.acknowledges(3);
    const stopped = Date.now();
    const stopping = neo4j!.stop();
    timings.readyz503AfterSigterm = await untilReadyz(first, 503, 30_000);
    await stopping;
    timings.neo4jStopAfterSigterm = Date.now() - stopped;
    // Known down (two pings in a row failed): a request answers 503 at once, not after the driver's retries.
    expect((await logged(first.server, 'Neo4j cannot be reached; answering 503 at once until a ping succeeds')).level).toBe('warn');
    expectUnavailable(await call(first.base, 'GET', '/readyz'));
    const asked = Date.now();
    const whileDown = await call(first.base, 'POST', '/v1/faults/_search', { body: { match: { from: { schema: 'member', key: hub } } } });
    timings.answerWhileKnownDown = Date.now() - asked;
    expectUnavailable(whileDown);
    // The answer of the known-down path, not of a call that waited for the driver.
    expect(whileDown.json).toMatchObject({ detail: 'Neo4j cannot be reached right now.' });

    // The backup and restore of docs/operations.md while the server is down: dump, the disk lost, the dump loaded
    // into a new data folder.
    const dumped = await admin(['database', 'dump', 'neo4j', `--to-path=${dumps}`], { data, heap: '256m' });
    expect([dumped.code, dumped.output]).toEqual([0, expect.stringContaining('Dump completed successfully')]);
    expect(fs.readdirSync(dumps)).toEqual(['neo4j.dump']);
    fs.rmSync(data, { recursive: true, force: true });
    const loaded = await admin(['database', 'load', 'neo4j', `--from-path=${dumps}`], { data, heap: '256m' });
    expect([loaded.code, loaded.output]).toEqual([0, expect.stringContaining('Done:')]);

    timings.neo4jRestartAfterSigterm = await startNeo4j();
    timings.readyAfterNeo4jBackFromSigterm = await untilReady(first, RECOVERY_BOUND_MS);
    expect(logEntries(first.server).some((l) => l.message === 'Neo4j answers again; serving requests')).toBe(true);
    await traffic.acknowledges(3);
    const outcomes = await traffic.stop();
    timings.slowestRequestAroundSigterm = summary(outcomes).slowestMs;
    process.stdout.write(`SIGTERM traffic (stop sent at ${stopped - trafficBegan} ms): ${JSON.stringify(summary(outcomes))}\n`);

    expectOnlySuccessOr503(outcomes);
    // Writes went through both before the stop and after the restart.
    expect(outcomes.filter((o) => o.op === 'create' && o.status === 201).length).toBeGreaterThan(2);
    expect(
      (await call(first.base, 'POST', '/v1/faults/node/_create', { body: { schema: 'member', key: { type: 'member_id', id: 'after-term' } } })).status,
    ).toBe(201);
    await expectAcknowledgedWritesKept(first, 'faults', 'term', outcomes);
    expect(await call(first.base, 'POST', '/v1/kept/_search', { token: bearer, body: keptSearch })).toMatchObject({ status: 200, json: keptBefore.json });
    // The restored store takes writes as before: the same key is refused, a new one taken.
    expect((await call(first.base, 'POST', '/v1/kept/node/_create', { token: bearer, body: { schema: 'member', key: keptNode.key } })).status).toBe(409);
    expect(
      (await call(first.base, 'POST', '/v1/kept/node/_create', { token: bearer, body: { schema: 'member', key: { type: 'member_id', id: 'kept-2' } } })).status,
    ).toBe(201);
  }, 300_000);

  test('when Neo4j is killed with SIGKILL under steady traffic, and while a second service is starting, then both answer only successes or 503s, and both become ready by themselves once Neo4j is back, with every acknowledged write kept', async () => {
    const trafficBegan = Date.now();
    const traffic = steadyTraffic(first, 'faults', 'kill');
    await traffic.acknowledges(3);
    // The second service has just begun to connect (and apply cypher/schema/) when Neo4j dies.
    const second = await startTracked();
    const killed = Date.now();
    neo4j!.child.kill('SIGKILL');
    await neo4j!.exited;
    timings.readyz503AfterSigkill = await untilReadyz(first, 503, 30_000);
    await untilReadyz(second, 503, 10_000);
    expectUnavailable(await call(second.base, 'POST', '/v1/faults/_search', { body: { match: { from: { schema: 'member', key: hub } } } }));

    timings.neo4jRestartAfterSigkill = await startNeo4j();
    const [readyFirst, readySecond] = await Promise.all([untilReady(first, RECOVERY_BOUND_MS), untilReady(second, RECOVERY_BOUND_MS)]);
    timings.readyAfterNeo4jBackFromSigkill = readyFirst;
    timings.secondServiceReadyAfterNeo4jBack = readySecond;
    await traffic.acknowledges(3);
    const outcomes = await traffic.stop();
    timings.slowestRequestAroundSigkill = summary(outcomes).slowestMs;
    process.stdout.write(`SIGKILL traffic (kill sent at ${killed - trafficBegan} ms): ${JSON.stringify(summary(outcomes))}\n`);

    expectOnlySuccessOr503(outcomes);
    expect(outcomes.filter((o) => o.op === 'create' && o.status === 201).length).toBeGreaterThan(2);
    expect(
      (await call(second.base, 'POST', '/v1/faults/node/_create', { body: { schema: 'member', key: { type: 'member_id', id: 'after-kill' } } })).status,
    ).toBe(201);
    await expectAcknowledgedWritesKept(second, 'faults', 'kill', outcomes);
    expect(second.server.child.exitCode).toBeNull();
  }, 240_000);

  test('when Neo4j freezes without closing its connections (SIGSTOP), then /readyz answers 503 within its 3 s bound, and 200 again once Neo4j resumes', async () => {
    await untilReady(first, RECOVERY_BOUND_MS);
    await freeze(neo4j!);
    try {
      const asked = Date.now();
      expectUnavailable(await call(first.base, 'GET', '/readyz', { timeoutMs: 10_000 }));
      timings.readyz503WhileFrozen = Date.now() - asked;
      expect(timings.readyz503WhileFrozen).toBeLessThan(5_000);
    } finally {
      neo4j!.child.kill('SIGCONT');
    }
    timings.readyAfterResume = await untilReady(first, RECOVERY_BOUND_MS);
  }, 60_000);

  test('when Neo4j freezes (SIGSTOP), then a search and a create each answer 503 store_unavailable at NEO4J_CALL_TIMEOUT_MS, instead of a connection cut with no answer, and the service is ready again once Neo4j resumes', async () => {
    const limited = await startTracked({ NEO4J_CALL_TIMEOUT_MS: '3000' });
    await untilReady(limited, RECOVERY_BOUND_MS);
    await freeze(neo4j!);
    try {
      const asked = Date.now();
      const [search, create] = await Promise.all([
        call(limited.base, 'POST', '/v1/faults/_search', { body: { match: { from: { schema: 'member', key: hub } } }, timeoutMs: 20_000 }),
        call(limited.base, 'POST', '/v1/faults/node/_create', {
          token: ADMIN_TOKEN,
          body: { schema: 'member', key: { type: 'member_id', id: 'while-frozen' } },
          timeoutMs: 20_000,
        }),
      ]);
      timings.callTimeoutWhileFrozen = Date.now() - asked;
      expectUnavailable(search);
      expectUnavailable(create);
      // Answered by the call timeout (its detail says so), and not before it.
      expect(search.json).toMatchObject({ detail: 'Neo4j did not answer within 3 s.' });
      expect(timings.callTimeoutWhileFrozen).toBeGreaterThanOrEqual(2_900);
    } finally {
      neo4j!.child.kill('SIGCONT');
    }
    await untilReady(limited, RECOVERY_BOUND_MS);
    // The create timed out, not refused: it may have committed once Neo4j resumed. Either way the service answers.
    // Asked again while a search is 503: with a 3 s call timeout, the first search after the resume can outlast it on
    // a busy machine (Neo4j replacing the connections the freeze left), and the claim is that it serves again.
    let last: number | undefined;
    await waitFor(
      () => `a search of the service with the 3 s call timeout to answer 200 after the resume (last: ${last})`,
      async () => {
        last = (await call(limited.base, 'POST', '/v1/faults/_search', { body: { match: { from: { schema: 'member', key: hub } } } })).status;
        expect([200, 503]).toContain(last);
        return last === 200;
      },
      { timeoutMs: RECOVERY_BOUND_MS, everyMs: 200 },
    );
  }, 90_000);

  test('when Neo4j comes back with an empty database (its data folder deleted), then the service applies cypher/schema/ again by itself within NEO4J_SCHEMA_CHECK_MS, and a race of creates of one key gives one 201', async () => {
    // The services of the tests before would apply cypher/schema/ again too, racing this one: stopped first.
    await Promise.all(services.map(stopService));
    const watching = await startTracked({ NEO4J_SCHEMA_CHECK_MS: '500' });
    await untilReady(watching, RECOVERY_BOUND_MS);
    await neo4j!.stop();
    fs.rmSync(data, { recursive: true, force: true });
    fs.mkdirSync(data);
    timings.neo4jStartEmpty = await startNeo4j();
    const back = Date.now();
    const restored = await logged(watching.server, 'applied cypher/schema/ to Neo4j again', RECOVERY_BOUND_MS);
    timings.schemaAppliedAgainAfterEmptyStart = Date.now() - back;
    const constraints = schemaObjects(loadStatements().schema)
      .filter((o) => o.constraint)
      .map((o) => o.name);
    expect(restored.missing).toEqual(expect.arrayContaining(constraints));
    expect(logEntries(watching.server).find((l) => String(l.message).startsWith('Neo4j lacks constraints or indexes'))).toMatchObject({
      level: 'warn',
      serving: false,
    });

    const admin = driverFor(connection());
    try {
      const { records } = await admin.executeQuery('SHOW CONSTRAINTS YIELD name RETURN collect(name) AS names', {}, { database: 'neo4j' });
      expect([...(records[0]?.get('names') as string[])].sort()).toEqual([...constraints].sort());
    } finally {
      await admin.close();
    }
    await untilReady(watching, RECOVERY_BOUND_MS);
    expect((await call(watching.base, 'PUT', '/v1/faults/schema/member', { token: ADMIN_TOKEN, body: schema })).status).toBe(201);
    const race = await Promise.all(
      Array.from({ length: 20 }, () =>
        call(watching.base, 'POST', '/v1/faults/node/_create', { body: { schema: 'member', key: { type: 'member_id', id: 'raced' } } }),
      ),
    );
    expect(race.filter((a) => a.status === 201)).toHaveLength(1);
    expect(race.filter((a) => a.status !== 201).map((a) => [a.status, (a.json as { code?: string } | undefined)?.code])).toEqual(
      Array(19).fill([409, 'node_exists']),
    );
  }, 240_000);

  test('when the service is started with a user Neo4j does not know yet, then it stays up with readyz 503, logs at error level which settings to check (never the password), and becomes ready by itself once the user exists', async () => {
    const user = { name: 'latecomer', password: crypto.randomBytes(12).toString('hex') };
    const service = await startTracked({ NEO4J_USERNAME: user.name, NEO4J_PASSWORD: user.password });
    const refused = await logged(service.server, 'Neo4j refused the connection settings; retrying in the background');
    expect(refused.level).toBe('error');
    expect(String(refused.error)).toContain(`Neo4j at bolt://127.0.0.1:${port} (database 'neo4j') refused user '${user.name}'`);
    expect(String(refused.error)).toContain('Check NEO4J_USERNAME and NEO4J_PASSWORD');
    expectUnavailable(await call(service.base, 'GET', '/readyz'));
    expectUnavailable(await call(service.base, 'POST', '/v1/faults/_search', { body: { match: { from: { schema: 'member', key: hub } } } }));

    // The administrator creates the user on Neo4j's side; the service needs no restart.
    const admin = driverFor(connection());
    try {
      await admin.executeQuery('CREATE USER latecomer SET PASSWORD $password CHANGE NOT REQUIRED', { password: user.password }, { database: 'system' });
    } finally {
      await admin.close();
    }
    timings.readyAfterUserCreated = await untilReady(service, RECOVERY_BOUND_MS);
    expect(
      (await call(service.base, 'POST', '/v1/faults/node/_create', { body: { schema: 'member', key: { type: 'member_id', id: 'by-latecomer' } } })).status,
    ).toBe(201);
    expect(service.server.lines.join('\n') + service.server.stderr()).not.toContain(user.password);
  }, 60_000);

  test('when the service is started with a database Neo4j does not have, then it stays up with readyz 503, logs at error level to check NEO4J_DATABASE, and stops at once on SIGTERM', async () => {
    const service = await startTracked({ NEO4J_DATABASE: 'nosuchdb' });
    const refused = await logged(service.server, 'Neo4j refused the connection settings; retrying in the background');
    expect(refused.level).toBe('error');
    expect(String(refused.error)).toContain("(database 'nosuchdb') has no such database");
    expect(String(refused.error)).toContain('Check NEO4J_DATABASE');
    // Still up after the refusal: it answers, and exits 0 only when told to (below).
    expect(service.server.child.exitCode).toBeNull();
    expectUnavailable(await call(service.base, 'GET', '/readyz'));
    expectUnavailable(await call(service.base, 'PUT', '/v1/faults/schema/member', { token: ADMIN_TOKEN, body: schema }));

    const stopping = Date.now();
    expect(await stopService(service)).toEqual({ code: 0, signal: null });
    timings.stopWhileConnecting = Date.now() - stopping;
    expect(timings.stopWhileConnecting).toBeLessThan(3000);
    expect(service.server.lines.join('\n') + service.server.stderr()).not.toContain(PASSWORD);
  }, 60_000);
});
