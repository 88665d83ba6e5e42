// `_why` over 9,998 equal shortest chains on Neo4j, anonymously, through the real app listening on a port: 9,998
// nodes each hold the shared device `fan` and a device of their own, and a hub holds all of those own devices, all
// written by one `_bulk`. From `where: fan` to the hub, why.shortest reads 1,000 of the chains and hands over to the
// exact search, which chose among them in time quadratic in their number, on the event loop, as many at once as
// were asked: 2.6-4.5 s a request, and with 32 clients repeating it another customer waited up to 17.9 s. The choice
// is linear now, and exact searches run one at a time (src/store/neo4j/neo4j-why.ts).
//
// The service's targets, on an idle machine: the `_why` within 5 s, /healthz under 200 ms meanwhile, and with 8
// clients repeating it another customer's searches at p50 under 50 ms and max under 2 s. Measured on a 2-core
// machine at a load average under 1, against a service of its own: the `_why` 0.7-0.9 s, /healthz at most 93-140 ms
// beside it and 250 ms beside the 8 clients, the other searches p50 11 ms, max 259 ms (before: the `_why` 4.6-7 s,
// /healthz stalled 3.6-4.4 s, the searches p50 241 ms, max 11.2 s). Here, in the test's own process on a database
// just written, the first `_why` took 6.9 s (its statements planned), the next 1.8 s. The bounds below are looser
// than the targets, for a busy machine that runs Neo4j beside the service and the test.
import { startApp, ADMIN_TOKEN, type TestApp } from '../helpers/app';
import { uniqueCustomer } from '../helpers/builders-nodesearch';
import { ATTACKERS, FANS, device, hubGraph, memberKey, quantile, timed, whyUnderAttack } from '../helpers/why-hub';

const WHY_BOUND_MS = 20_000;
const HEALTHZ_BOUND_MS = 2_500;
const VICTIM_P50_BOUND_MS = 500;
const VICTIM_MAX_BOUND_MS = 6_000;

describe(`_why over ${FANS} equal chains on Neo4j`, () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(() => app.close());

  /** A request through the app's port, as a client sends it: status and parsed body. */
  const send = async (url: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: unknown }> => {
    const res = await fetch(`${app.baseUrl}${url}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, json: text ? (JSON.parse(text) as unknown) : undefined };
  };

  test('when anonymous clients ask it, then it answers in time, /healthz stays quick and another customer searches meanwhile', async () => {
    const hub = uniqueCustomer('why-hub');
    const other = uniqueCustomer('why-other');
    const schema = { id_types: [{ type: 'member_id' }, { type: 'device' }] };
    for (const customer of [hub, other])
      expect((await app.call('PUT', `/v1/${customer}/schema/member`, { token: ADMIN_TOKEN, body: schema })).status).toBe(201);
    const bulk = await fetch(`${app.baseUrl}/v1/${hub}/node/_bulk`, { method: 'POST', headers: { 'Content-Type': 'application/x-ndjson' }, body: hubGraph() });
    expect((await bulk.text()).split('\n').filter((line) => line && !line.includes('"status":201'))).toEqual([]);
    for (let i = 0; i < 5; i += 1) {
      expect((await send(`/v1/${other}/node/_create`, { schema: 'member', key: memberKey(`v${i}`), ids: [device('shared')] })).status).toBe(201);
    }

    const why = () => send(`/v1/${hub}/_why`, { from: { where: device('fan') }, to: { schema: 'member', key: memberKey('hub') } });
    const healthz = () => timed(() => fetch(`${app.baseUrl}/healthz`).then((res) => res.status));
    const search = () => timed(() => send(`/v1/${other}/_search`, { match: { from: { schema: 'member', key: memberKey('v0') } } }));
    const { first, one, probes, attackerAnswers, victim } = await whyUnderAttack(why, healthz, search, { attackersAnsweredWithinMs: 120_000 });

    process.stdout.write(
      `_why over ${FANS} equal chains on Neo4j: ${Math.round(first.ms)} ms the first time, then ${Math.round(one.ms)} ms with /healthz at most ${Math.round(Math.max(...probes))} ms (${probes.length} probes); ` +
        `beside ${ATTACKERS} clients repeating it (${attackerAnswers.length} answers, ${attackerAnswers.filter((answer) => answer.status === 503).length} of them 503), another customer's search p50 ${Math.round(quantile(victim, 0.5))} ms, max ${Math.round(Math.max(...victim))} ms\n`,
    );
    expect(one.ms).toBeLessThan(WHY_BOUND_MS);
    // The 99th percentile, not the largest: on a busy machine one probe may wait out a pause of the whole process
    // (2.9 s once, beside the other suites), while a `_why` that holds the event loop stalls every probe it overlaps.
    expect(quantile(probes, 0.99)).toBeLessThan(HEALTHZ_BOUND_MS);
    // Past the read's time limit (NEO4J_CALL_TIMEOUT_MS) a client waiting for its turn is 503; none of them is anything else.
    expect(attackerAnswers.filter((answer) => answer.status !== 200 && answer.status !== 503)).toEqual([]);
    expect(quantile(victim, 0.5)).toBeLessThan(VICTIM_P50_BOUND_MS);
    expect(Math.max(...victim)).toBeLessThan(VICTIM_MAX_BOUND_MS);
  }, 600_000);
});
