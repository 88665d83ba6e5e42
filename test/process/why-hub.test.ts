// `_why` over 9,998 equal shortest chains, anonymously, against the real server (`node dist/main.js`) on a SQLite
// file: 9,998 nodes each hold the shared device `fan` and a device of their own, and a hub holds all of those own
// devices, all written by one `_bulk`. From `where: fan` to the hub every chain has one hop. Choosing among them
// took time quadratic in their number, on the event loop: one `_why` stalled /healthz for 770-870 ms on an idle
// machine, and 4 clients repeating it took another customer's searches from 4 ms to 4.8 s (p50). The choice is
// linear now and the search runs on the read pool past the inline bounds, as a large search does.
//
// The service's targets, on an idle machine: the `_why` within 1.5 s, /healthz under 200 ms meanwhile, and with 8
// clients repeating it another customer's searches at p50 under 50 ms and max under 1 s. Measured on a 2-core
// machine: at a load average of 1-3, the `_why` 0.2-0.3 s (0.5-0.7 s the first time, which starts a read worker),
// /healthz at most 10-20 ms beside it and 34 ms beside the 8 clients, the other searches p50 4-7 ms, max 15-43 ms;
// at 17-20, the `_why` 0.85-2.6 s, /healthz at most 126 and 194 ms, the searches p50 28-35 ms, max 132-256 ms. Before,
// at a load of 3, the `_why` took 2.6-3 s and stalled /healthz as long. The bounds below are looser than the
// targets, for a busy machine.
import path from 'node:path';
import { freshDir, installCleanup, send, startServer } from '../helpers/server-process';
import { ATTACKERS, FANS, device, hubGraph, memberKey, quantile, timed, whyUnderAttack } from '../helpers/why-hub';

installCleanup();

const ADMIN = 'why-hub-admin-token-0123456789abcdef';
const WHY_BOUND_MS = 6000;
const HEALTHZ_BOUND_MS = 600;
const VICTIM_P50_BOUND_MS = 200;
const VICTIM_MAX_BOUND_MS = 3000;

test(`when anonymous clients ask _why across ${FANS} equal chains, then it answers in time, /healthz stays quick and another customer's searches too`, async () => {
  const dir = freshDir('idlink-why-hub-');
  const { base } = await startServer(
    { PORT: '0', HOST: '127.0.0.1', SQLITE_PATH: path.join(dir, 'idlink.sqlite'), ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'info' },
    dir,
  );
  const schema = { id_types: [{ type: 'member_id' }, { type: 'device' }] };
  for (const customer of ['hub', 'other']) expect((await send(base, 'PUT', `/v1/${customer}/schema/member`, ADMIN, schema)).status).toBe(201);
  const bulk = await fetch(`${base}/v1/hub/node/_bulk`, { method: 'POST', headers: { 'Content-Type': 'application/x-ndjson' }, body: hubGraph() });
  expect((await bulk.text()).split('\n').filter((line) => line && !line.includes('"status":201'))).toEqual([]);
  for (let i = 0; i < 5; i += 1) {
    expect((await send(base, 'POST', '/v1/other/node/_create', undefined, { schema: 'member', key: memberKey(`v${i}`), ids: [device('shared')] })).status).toBe(
      201,
    );
  }

  const why = () => send(base, 'POST', '/v1/hub/_why', undefined, { from: { where: device('fan') }, to: { schema: 'member', key: memberKey('hub') } });
  const healthz = () => timed(() => fetch(`${base}/healthz`).then((res) => res.status));
  const search = () => timed(() => send(base, 'POST', '/v1/other/_search', undefined, { match: { from: { schema: 'member', key: memberKey('v0') } } }));
  const { first, one, probes, attackerAnswers, victim } = await whyUnderAttack(why, healthz, search, { attackersAnsweredWithinMs: 60_000 });

  process.stdout.write(
    `_why over ${FANS} equal chains: ${Math.round(first.ms)} ms the first time, then ${Math.round(one.ms)} ms with /healthz at most ${Math.round(Math.max(...probes))} ms (${probes.length} probes); ` +
      `beside ${ATTACKERS} clients repeating it (${attackerAnswers.length} answers), another customer's search p50 ${Math.round(quantile(victim, 0.5))} ms, max ${Math.round(Math.max(...victim))} ms\n`,
  );
  expect(one.ms).toBeLessThan(WHY_BOUND_MS);
  expect(Math.max(...probes)).toBeLessThan(HEALTHZ_BOUND_MS);
  expect(attackerAnswers.every((answer) => answer.status === 200)).toBe(true);
  expect(quantile(victim, 0.5)).toBeLessThan(VICTIM_P50_BOUND_MS);
  expect(Math.max(...victim)).toBeLessThan(VICTIM_MAX_BOUND_MS);
}, 180_000);
