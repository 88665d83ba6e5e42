// The bulk slot attacks, scaled down: anonymous chunked _bulk requests that each send `x\n` now and then, so that
// the wait for a complete line never ran out, held every slot of every customer, and a real customer's
// authenticated bulk got 503; and anonymous requests from 4 addresses to 4 customers, each trickling a complete
// line of 1.1 KB every 5 s, held every slot although each kept to its quarter. Now a customer with no schema is
// refused before a slot, one customer or client address holds at most a quarter of the slots (4 of 16 with the
// defaults), requests without a token hold at most three quarters of them, and a body that brings too few bytes a
// window ends its request. Run against the real server (`node dist/main.js`).
import path from 'node:path';
import { openBulk, type OpenBulk } from '../helpers/bulk';
import { freshDir, installCleanup, send, startServer } from '../helpers/server-process';

installCleanup();

const ADMIN = 'bulk-slots-admin-token-0123456789';
const ATTACKERS = 17;
/** A short line every 3 s, ten times faster, with windows of 1 s instead of the default 10. */
const DRIP_MS = 300;
const createLine = (value: string) => `${JSON.stringify({ op: 'create', body: { schema: 'member', key: { type: 'member_id', id: value } } })}\n`;

/** Opens `count` chunked bulk requests from 127.0.0.1 that send `x\n` at once and every DRIP_MS. */
function drip(base: string, customerOf: (i: number) => string, count: number): { bulks: OpenBulk[]; stop: () => void } {
  const bulks = Array.from({ length: count }, (_, i) => openBulk(base, customerOf(i), { localAddress: '127.0.0.1' }));
  const tick = () => {
    for (const bulk of bulks) bulk.send('x\n');
  };
  tick();
  const timer = setInterval(tick, DRIP_MS);
  return {
    bulks,
    stop: () => {
      clearInterval(timer);
      for (const bulk of bulks) bulk.end();
    },
  };
}

const countOf = (statuses: number[]): Record<string, number> => statuses.reduce<Record<string, number>>((c, s) => ({ ...c, [s]: (c[s] ?? 0) + 1 }), {});

test(`when ${ATTACKERS} anonymous trickling _bulk requests go to made-up customers, and ${ATTACKERS} more to one real customer, then the first are refused before a slot, the others hold at most a quarter of the slots until the pace of their bodies ends them, and a real customer's authenticated bulk is admitted`, async () => {
  const dir = freshDir('idlink-bulk-slots-');
  const { server, base } = await startServer(
    {
      PORT: '0',
      HOST: '127.0.0.1',
      SQLITE_PATH: path.join(dir, 'idlink.sqlite'),
      ADMIN_TOKEN: ADMIN,
      LOG_LEVEL: 'info',
      BULK_LINE_RATE_WINDOW_MS: '1000',
      BULK_LINE_MIN_BYTES: '1024',
    },
    dir,
  );
  for (const customer of ['victim', 'open'])
    expect((await send(base, 'PUT', `/v1/${customer}/schema/member`, ADMIN, { id_types: [{ type: 'member_id' }] })).status).toBe(201);
  const token = (await send(base, 'POST', '/v1/victim/token', ADMIN, { kind: 'bearer' })).json as { token: string };

  const madeUp = drip(base, (i) => `made-up-${i}`, ATTACKERS);
  const onReal = drip(base, () => 'open', ATTACKERS);
  try {
    const madeUpStatuses = await Promise.all(madeUp.bulks.map((b) => b.status));
    const onRealStatuses = await Promise.all(onReal.bulks.map((b) => b.status));
    process.stdout.write(
      `bulk slot attack: made-up customers ${JSON.stringify(countOf(madeUpStatuses))}, one real customer ${JSON.stringify(countOf(onRealStatuses))}\n`,
    );
    expect(madeUpStatuses).toEqual(Array.from({ length: ATTACKERS }, () => 404));
    expect(countOf(onRealStatuses)).toEqual({ 200: 4, 503: ATTACKERS - 4 });

    // The victim, from its own address, while the four hold their slots.
    const started = Date.now();
    const victim = openBulk(base, 'victim', { token: token.token, localAddress: '127.0.0.2' });
    victim.end(createLine('v-1'));
    await victim.closed;
    process.stdout.write(`bulk slot attack: the victim's bulk answered ${await victim.status} in ${Date.now() - started} ms\n`);
    expect(await victim.status).toBe(200);
    expect(victim.received()).toBe(`${JSON.stringify({ line: 1, status: 201 })}\n`);

    // The four admitted ones bring 2 bytes a line, every 300 ms: each is ended in its second window of 1 s, though
    // every line it sends is complete.
    const admitted = onReal.bulks.filter((_b, i) => onRealStatuses[i] === 200);
    const victimDone = Date.now();
    await Promise.all(admitted.map((b) => b.closed));
    process.stdout.write(`bulk slot attack: the trickling requests ended ${Date.now() - victimDone} ms after the victim's\n`);
    for (const bulk of admitted) {
      const last = JSON.parse(bulk.received().trim().split('\n').at(-1) as string) as { code: string; detail: string };
      expect(last.code).toBe('request_timeout');
      expect(last.detail).toContain('fewer than 1024 bytes');
      expect(bulk.received()).toContain(JSON.stringify({ line: 1, status: 400, code: 'invalid_json', detail: 'This line is not valid JSON.' }));
    }
    expect(server.child.exitCode).toBeNull();
  } finally {
    madeUp.stop();
    onReal.stop();
  }
}, 60_000);

test('when anonymous requests from 4 addresses to 4 customers each trickle a complete line of 1.1 KB every 5 s, then they hold at most three quarters of the slots, and callers with their customer token are admitted at once, from those addresses too', async () => {
  const dir = freshDir('idlink-bulk-slots-');
  const { server, base } = await startServer(
    { PORT: '0', HOST: '127.0.0.1', SQLITE_PATH: path.join(dir, 'idlink.sqlite'), ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'info' },
    dir,
  );
  const customers = ['shop-a', 'shop-b', 'shop-c', 'shop-d'];
  for (const customer of customers)
    expect((await send(base, 'PUT', `/v1/${customer}/schema/member`, ADMIN, { id_types: [{ type: 'member_id' }] })).status).toBe(201);
  const tokens = await Promise.all(
    customers.map(async (c) => ((await send(base, 'POST', `/v1/${c}/token`, ADMIN, { kind: 'bearer' })).json as { token: string }).token),
  );

  // Two requests for each address and customer: 32, twice the 16 slots of the defaults.
  let sent = 0;
  const bigLine = () => createLine(`t-${(sent += 1)}-${'x'.repeat(1050)}`);
  const trickling = [1, 2, 3, 4].flatMap((a) =>
    customers.flatMap((customer) => [0, 1].map(() => openBulk(base, customer, { localAddress: `127.0.0.${10 + a}` }))),
  );
  const tick = () => {
    for (const bulk of trickling) bulk.send(bigLine());
  };
  tick();
  const timer = setInterval(tick, 5000);
  try {
    const statuses = await Promise.all(trickling.map((b) => b.status));
    process.stdout.write(`bulk slot attack, 4 addresses x 4 customers: ${JSON.stringify(countOf(statuses))}\n`);
    expect(countOf(statuses)).toEqual({ 200: 12, 503: 20 });

    // Each customer's own caller, from the address of a trickling request: admitted at once, while they hold theirs.
    const victims = customers.map((customer, i) => openBulk(base, customer, { token: tokens[i], localAddress: `127.0.0.${11 + i}` }));
    for (const [i, victim] of victims.entries()) victim.end(createLine(`victim-${i}`));
    await Promise.all(victims.map((v) => v.closed));
    for (const victim of victims) {
      expect(await victim.status).toBe(200);
      expect(victim.received()).toBe(`${JSON.stringify({ line: 1, status: 201 })}\n`);
    }
    const holding = trickling.filter((_b, i) => statuses[i] === 200);
    expect(holding.filter((b) => b.received().includes('request_timeout'))).toEqual([]);
    expect(server.child.exitCode).toBeNull();
  } finally {
    clearInterval(timer);
    for (const bulk of trickling) bulk.end();
  }
}, 60_000);
