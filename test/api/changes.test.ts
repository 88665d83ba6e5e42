// The change feed through HTTP (docs/changes-and-export.md): GET /v1/{customer_id}/_changes as pages and as a stream
// of server-sent events. Who may read it; that it is node history, change for change, with cursors that never
// change; that a consumer following `next` sees every change once, in order, while many writers run; waiting; bad
// cursors; what an erase leaves and redacts. This file also runs on Neo4j (npm run test:neo4j).
import http from 'node:http';
import net from 'node:net';
import type { components } from '../../src/generated/openapi';
import { FeedCursors, feedCursors } from '../../src/domain/changes';
import { ADMIN_TOKEN, startApp, type TestApp } from '../helpers/app';
import { bulkChecked } from '../helpers/bulk';
import { expectProblem, id, uniqueCustomer } from '../helpers/builders-nodesearch';
import { issueLabelledToken } from '../helpers/builders-auth';
import { putSchema, type IdPairBody } from '../helpers/factories';

type Change = components['schemas']['Change'];
type ChangePage = components['schemas']['ChangePage'];
type HistoryEntry = components['schemas']['HistoryEntry'];

const admin = { token: ADMIN_TOKEN };
const m = (value: string) => id('member_id', value);
const device = (value: string) => id('device', value);
const email = (value: string) => id('email', value);
const MEMBER = { id_types: [{ type: 'member_id' }, { type: 'device' }, { type: 'email', secure: true }] };

/** A change without its cursor and redacts: the history entry it stands for. */
const entryOf = (c: Change): HistoryEntry => ({
  at: c.at,
  request_id: c.request_id,
  actor: c.actor,
  op: c.op,
  schema: c.schema,
  key: c.key,
  added: c.added,
  removed: c.removed,
});
const shows = (c: Change, value: IdPairBody) => [c.key, ...c.added, ...c.removed].some((h) => h.type === value.type && h.id === value.id);

describe('the change feed', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(() => app.close());

  const changesUrl = (customer: string, query: Record<string, string | number> = {}) => {
    const search = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
    return `/v1/${customer}/_changes${search ? `?${search}` : ''}`;
  };
  async function page(customer: string, query: Record<string, string | number> = {}): Promise<ChangePage> {
    const res = await app.call('GET', changesUrl(customer, query), admin);
    if (res.status !== 200) throw new Error(`_changes failed: ${res.status} ${res.text}`);
    return res.body as ChangePage;
  }
  /** Every change from the start, following `next` in pages of `limit`. */
  async function follow(customer: string, limit = 100, after?: string): Promise<{ changes: Change[]; next: string }> {
    const changes: Change[] = [];
    let next = after;
    for (;;) {
      const p = await page(customer, { limit, ...(next ? { after: next } : {}) });
      changes.push(...p.changes);
      next = p.next;
      if (p.changes.length < limit) return { changes, next: p.next };
    }
  }
  async function write(customer: string, op: string, body: unknown): Promise<void> {
    const res = await app.call('POST', `/v1/${customer}/node/${op}`, { ...admin, body });
    if (res.status >= 300) throw new Error(`${op} failed: ${res.status} ${res.text}`);
  }
  async function historyOf(customer: string, key: IdPairBody, schema = 'member'): Promise<HistoryEntry[]> {
    const query = new URLSearchParams({ schema, key_type: key.type, key_id: key.id, count: '100' }).toString();
    const res = await app.call('GET', `/v1/${customer}/node/_history?${query}`, admin);
    if (res.status !== 200) throw new Error(`history failed: ${res.status} ${res.text}`);
    return res.body as HistoryEntry[];
  }
  async function customerWith(schemas: Record<string, object> = { member: MEMBER }): Promise<string> {
    const customer = uniqueCustomer('feed');
    for (const [schemaId, body] of Object.entries(schemas)) await putSchema(app, customer, schemaId, body);
    return customer;
  }

  describe('who may read it', () => {
    test('a bearer token of the customer or the administrator; 401 without a token, 403 for another customer', async () => {
      const customer = await customerWith();
      const other = await customerWith();
      const own = await issueLabelledToken(app, customer, 'bearer');
      const stranger = await issueLabelledToken(app, other, 'bearer');
      expect((await app.call('GET', changesUrl(customer), { token: own.token })).status).toBe(200);
      expect((await app.call('GET', changesUrl(customer), admin)).status).toBe(200);
      expectProblem(await app.call('GET', changesUrl(customer)), 401, 'authentication_required');
      expectProblem(await app.call('GET', changesUrl(customer), { token: stranger.token }), 403, 'forbidden');
    });
  });

  describe('pages', () => {
    test('every op history records, change for change, oldest first, with the cursor that follows it', async () => {
      const customer = await customerWith();
      await write(customer, '_create', { schema: 'member', key: m('a'), ids: [device('d1')] });
      await write(customer, '_insert', { schema: 'member', key: m('a'), ids: [email('a@example.com')] });
      await write(customer, '_update', { schema: 'member', key: m('a'), where: device('d1'), set: device('d2') });
      await write(customer, '_create', { schema: 'member', key: m('b'), ids: [device('x')] });
      await write(customer, '_upsert', { schema: 'member', key: m('b'), where: device('x'), set: device('d3') });
      await write(customer, '_rekeying', { schema: 'member', key: m('b'), set: { id: 'c' } });
      await write(customer, '_delete', { schema: 'member', key: m('a'), where: device('d2') });
      const separated = await app.call('POST', `/v1/${customer}/_separate`, {
        ...admin,
        body: {
          nodes: [
            { schema: 'member', key: m('a') },
            { schema: 'member', key: m('c') },
          ],
          remove_shared_from: 'none',
        },
      });
      expect(separated.status).toBe(200);
      const lines = [{ op: 'create', body: { schema: 'member', key: m('e'), ids: [] } }].map((l) => JSON.stringify(l)).join('\n');
      expect((await bulkChecked(app.baseUrl, customer, lines, admin)).res.status).toBe(200);

      const { changes, next } = await follow(customer, 2);
      expect(changes.map((c) => c.op)).toEqual(['create', 'insert', 'update', 'create', 'upsert', 'rekeying', 'delete', 'separate', 'separate', 'create']);
      // Each change is the history entry of its node, field for field (secure IDs in full: a token is needed).
      const ofA = changes.filter((c) => c.key.id === 'a').map(entryOf);
      expect(ofA).toEqual(
        (await historyOf(customer, m('a')))
          .filter((e) => e.op !== 'separate' || e.key.id === 'a')
          .slice()
          .reverse(),
      );
      expect(changes[1]?.added).toEqual([email('a@example.com')]);
      // Cursors name one change each and never change: a second read shows the same ones.
      expect(new Set(changes.map((c) => c.cursor)).size).toBe(changes.length);
      expect((await follow(customer, 1000)).changes).toEqual(changes);
      expect(next).toBe(changes.at(-1)?.cursor);
      // After a change, the feed goes on from it.
      const third = changes[2] as Change;
      expect((await page(customer, { after: third.cursor })).changes).toEqual(changes.slice(3));
      // Nothing after the last one: no change, and `next` stays.
      expect(await page(customer, { after: next })).toEqual({ changes: [], next });
    });

    test('a customer without history: no change, and a `next` that returns the first change once there is one', async () => {
      const customer = await customerWith();
      const empty = await page(customer);
      expect(empty.changes).toEqual([]);
      await write(customer, '_create', { schema: 'member', key: m('first'), ids: [] });
      const after = await page(customer, { after: empty.next });
      expect(after.changes.map((c) => [c.op, c.key.id])).toEqual([['create', 'first']]);
    });

    test('a refused write leaves no change', async () => {
      const customer = await customerWith();
      await write(customer, '_create', { schema: 'member', key: m('a'), ids: [] });
      const refused = await app.call('POST', `/v1/${customer}/node/_create`, { ...admin, body: { schema: 'member', key: m('a'), ids: [] } });
      expectProblem(refused, 409, 'node_exists');
      const lines = [
        { op: 'create', body: { schema: 'member', key: m('b'), ids: [] } },
        { op: 'create', body: { schema: 'member', key: m('a'), ids: [] } },
      ]
        .map((l) => JSON.stringify(l))
        .join('\n');
      expect((await bulkChecked(app.baseUrl, customer, lines, admin)).res.status).toBe(200);
      expect((await follow(customer)).changes.map((c) => [c.op, c.key.id])).toEqual([
        ['create', 'a'],
        ['create', 'b'],
      ]);
    });

    test('limit and wait out of range or not numbers are 400 validation_failed', async () => {
      const customer = await customerWith();
      const queries: Array<Record<string, string | number>> = [{ limit: 0 }, { limit: 1001 }, { limit: 'x' }, { wait: -1 }, { wait: 31 }, { wait: 'soon' }];
      for (const query of queries) {
        expectProblem(await app.call('GET', changesUrl(customer, query), admin), 400, 'validation_failed');
      }
    });

    test('400 invalid_cursor for a cursor this service did not give this customer', async () => {
      const customer = await customerWith();
      const other = await customerWith();
      await write(other, '_create', { schema: 'member', key: m('a'), ids: [] });
      const { next: othersCursor } = await follow(other);
      await write(customer, '_create', { schema: 'member', key: m('a'), ids: [] });
      const { next } = await follow(customer);
      const cursors = await feedCursors(app.store);
      const beyond = cursors.cursorOf(customer, 10 ** 12);
      // The same customer and position under another store's feed key: what a store migrated or imported from gave.
      const anotherStores = new FeedCursors('0'.repeat(64)).cursorOf(customer, cursors.positionOf(customer, next));
      for (const after of ['garbage', othersCursor, `${next.slice(0, -1)}${next.endsWith('A') ? 'B' : 'A'}`, beyond, anotherStores]) {
        const res = await app.call('GET', changesUrl(customer, { after }), admin);
        expectProblem(res, 400, 'invalid_cursor');
        expect(res.text).not.toContain(after);
      }
    });

    test('410 cursor_expired once retention deleted changes after the cursor; the start of the feed is what is kept', async () => {
      const customer = await customerWith();
      await write(customer, '_create', { schema: 'member', key: m('old'), ids: [] });
      const { next: oldCursor } = await follow(customer);
      await write(customer, '_create', { schema: 'member', key: m('older'), ids: [] });
      // Retention of every entry written so far (the store's own call, as the hourly sweep makes it).
      while ((await app.store.pruneHistory(new Date(Date.now() + 1000).toISOString(), 1000)) > 0);
      expectProblem(await app.call('GET', changesUrl(customer, { after: oldCursor }), admin), 410, 'cursor_expired');
      await write(customer, '_create', { schema: 'member', key: m('new'), ids: [] });
      expect((await follow(customer)).changes.map((c) => c.key.id)).toEqual(['new']);
    });
  });

  describe('waiting', () => {
    test('with wait, a call with nothing after its cursor answers the next commit', async () => {
      const customer = await customerWith();
      const { next } = await page(customer);
      const waiting = page(customer, { after: next, wait: 30 });
      // The write comes once the call waits: the service counts it among the waiting calls.
      await untilWaiting(app, customer);
      await write(customer, '_create', { schema: 'member', key: m('late'), ids: [] });
      expect((await waiting).changes.map((c) => c.key.id)).toEqual(['late']);
    }, 20_000);

    test('with nothing to answer when the wait ends: no change, and `next` is the cursor given', async () => {
      const customer = await customerWith();
      await write(customer, '_create', { schema: 'member', key: m('a'), ids: [] });
      const { next } = await follow(customer);
      expect(await page(customer, { after: next, wait: 1 })).toEqual({ changes: [], next });
    });
  });

  describe('a race: a consumer follows while many writers write', () => {
    test('it sees every change once, each node in its history order, and what the feed holds afterwards', async () => {
      const customer = await customerWith();
      const seen: Change[] = [];
      let writing = true;
      const consumer = (async () => {
        let next: string | undefined;
        for (;;) {
          const done = !writing;
          const p = await page(customer, { limit: 7, ...(next ? { after: next } : {}) });
          seen.push(...p.changes);
          next = p.next;
          if (done && p.changes.length < 7) return;
        }
      })();
      const keys = Array.from({ length: 8 }, (_, i) => `n${i}`);
      await Promise.all(keys.map((k) => write(customer, '_create', { schema: 'member', key: m(k), ids: [] })));
      await Promise.all(
        keys.flatMap((k) => Array.from({ length: 6 }, (_, j) => write(customer, '_insert', { schema: 'member', key: m(k), ids: [device(`${k}-${j}`)] }))),
      );
      writing = false;
      await consumer;
      const all = (await follow(customer, 1000)).changes;
      expect(all).toHaveLength(8 * 7);
      expect(seen.map((c) => c.cursor)).toEqual(all.map((c) => c.cursor));
      for (const k of keys) {
        expect(all.filter((c) => c.key.id === k).map(entryOf)).toEqual((await historyOf(customer, m(k))).slice().reverse());
      }
    }, 60_000);

    test('a write answered before another was sent comes first, whatever nodes they touch', async () => {
      const customer = await customerWith();
      for (let i = 0; i < 12; i += 1) await write(customer, '_create', { schema: 'member', key: m(`s${i}`), ids: [] });
      expect((await follow(customer, 5)).changes.map((c) => c.key.id)).toEqual(Array.from({ length: 12 }, (_, i) => `s${i}`));
    });
  });

  describe('erasure reaches the feed without the value', () => {
    test('no change shows an erased value, and the erase changes redact exactly the changes that showed it', async () => {
      const customer = await customerWith();
      const secret = email('ann@example.com');
      await write(customer, '_create', { schema: 'member', key: m('ann'), ids: [device('phone')] });
      await write(customer, '_insert', { schema: 'member', key: m('ann'), ids: [secret] });
      await write(customer, '_create', { schema: 'member', key: m('bob'), ids: [secret] });
      // The value moves away from bob: bob's history showed it, though bob no longer holds it.
      await write(customer, '_delete', { schema: 'member', key: m('bob'), where: secret });
      await write(customer, '_insert', { schema: 'member', key: m('ann'), ids: [device('tablet')] });
      const before = (await follow(customer)).changes;
      const showing = before.filter((c) => shows(c, secret)).map((c) => c.cursor);
      expect(showing).toHaveLength(3);

      const res = await app.call('POST', `/v1/${customer}/_erase`, { ...admin, body: { id: secret } });
      expect(res.status).toBe(200);
      const after = (await follow(customer)).changes;
      expect(after.some((c) => shows(c, secret))).toBe(false);
      expect(JSON.stringify(after)).not.toContain(secret.id);
      // The earlier changes keep their cursors, with the value shown as erased.
      expect(after.slice(0, before.length).map((c) => c.cursor)).toEqual(before.map((c) => c.cursor));
      const erases = after.slice(before.length);
      expect(erases.every((c) => c.op === 'erase')).toBe(true);
      // ann lost the value; bob's history showed it: each has its erase change, naming the changes of its own node.
      expect(erases.map((c) => [c.key.id, c.removed])).toEqual([
        ['ann', [{ type: 'email', id: null, erased: true }]],
        ['bob', []],
      ]);
      const byKey = (key: string) => before.filter((c) => c.key.id === key && shows(c, secret)).map((c) => c.cursor);
      expect(erases[0]?.redacts).toEqual(byKey('ann'));
      expect(erases[1]?.redacts).toEqual(byKey('bob'));
      expect(erases.flatMap((c) => c.redacts ?? []).sort()).toEqual([...showing].sort());
    });

    test('a person erase redacts every earlier change of its nodes', async () => {
      const customer = await customerWith();
      await write(customer, '_create', { schema: 'member', key: m('p'), ids: [device('p-phone')] });
      await write(customer, '_insert', { schema: 'member', key: m('p'), ids: [device('p-tablet')] });
      await write(customer, '_create', { schema: 'member', key: m('q'), ids: [] });
      const before = (await follow(customer)).changes;
      const res = await app.call('POST', `/v1/${customer}/_erase`, { ...admin, body: { id: device('p-phone'), scope: 'person' } });
      expect(res.status).toBe(200);
      const after = (await follow(customer)).changes;
      const erases = after.slice(before.length);
      expect(erases.map((c) => [c.op, c.key])).toEqual([['erase', { type: 'member_id', id: null, erased: true }]]);
      expect(erases[0]?.redacts).toEqual(before.filter((c) => c.key.id === 'p').map((c) => c.cursor));
      expect(JSON.stringify(after)).not.toMatch(/p-phone|p-tablet|"id":"p"/);
    });
  });

  describe('the waiting calls are bounded, and end when the service stops', () => {
    test('past CHANGES_MAX_WAITING, 503 server_busy with Retry-After; a page that need not wait is answered', async () => {
      await withOwnApp({ CHANGES_MAX_WAITING: '1' }, async (bounded, customer) => {
        const waiting = bounded.call('GET', changesUrl(customer, { wait: 30 }), admin);
        await untilWaiting(bounded, customer);
        const refused = await bounded.call('GET', changesUrl(customer, { wait: 30 }), admin);
        expectProblem(refused, 503, 'server_busy');
        expect(refused.headers['retry-after']).toBeDefined();
        expect((await bounded.call('GET', changesUrl(customer), admin)).status).toBe(200);
        await bounded.call('POST', `/v1/${customer}/node/_create`, { ...admin, body: { schema: 'member', key: m('x'), ids: [] } });
        expect(((await waiting).body as ChangePage).changes).toHaveLength(1);
      });
    }, 20_000);

    test('a waiting call answers at once when the service stops', async () => {
      const stopping = new AbortController();
      const stoppable = await startApp({ shutdown: stopping.signal });
      try {
        const customer = uniqueCustomer('feed');
        await putSchema(stoppable, customer, 'member', MEMBER);
        const waiting = stoppable.call('GET', changesUrl(customer, { wait: 30 }), admin);
        await untilWaiting(stoppable, customer);
        stopping.abort();
        const res = await waiting;
        expect(res.status).toBe(200);
        expect((res.body as ChangePage).changes).toEqual([]);
      } finally {
        await stoppable.close();
      }
    }, 20_000);
  });

  describe('a stream of server-sent events', () => {
    test('large changes: a page ends after about a megabyte of them and `next` goes on, and a stream reads on at once, not at its next keep-alive', async () => {
      await withOwnApp({ CHANGES_KEEPALIVE_SECONDS: '15', CHANGES_STREAM_SECONDS: '600' }, async (own, customer) => {
        // About 300 KB an entry: three or so to a page.
        const keys = Array.from({ length: 8 }, (_, n) => `big-${n}`);
        for (const [n, key] of keys.entries()) {
          const ids = Array.from({ length: 300 }, (_, i) => device(`${n}-${i}-${'x'.repeat(1000)}`));
          expect((await own.call('POST', `/v1/${customer}/node/_create`, { ...admin, body: { schema: 'member', key: m(key), ids } })).status).toBe(201);
        }
        const first = (await own.call('GET', `/v1/${customer}/_changes?limit=1000`, admin)).body as ChangePage;
        expect(first.changes.length).toBeGreaterThan(0);
        expect(first.changes.length).toBeLessThan(keys.length);
        const fed = first.changes.map((c) => c.key.id);
        for (let after = first.next; ;) {
          const next = (await own.call('GET', `/v1/${customer}/_changes?limit=1000&after=${after}`, admin)).body as ChangePage;
          if (next.changes.length === 0) break;
          fed.push(...next.changes.map((c) => c.key.id));
          after = next.next;
        }
        expect(fed).toEqual(keys);

        const stream = openStream(own, customer);
        const events = await stream.until((e) => e.length === keys.length);
        expect(events.map((e) => (JSON.parse(e.data) as Change).key.id)).toEqual(keys);
        expect(stream.text).not.toContain(': keep-alive');
        stream.close();
      });
    }, 60_000);

    test('the changes as events, new ones as they commit, resumed after Last-Event-ID, and the stream ends in time', async () => {
      await withOwnApp({ CHANGES_STREAM_SECONDS: '3' }, async (streaming, customer) => {
        const create = (key: string) => streaming.call('POST', `/v1/${customer}/node/_create`, { ...admin, body: { schema: 'member', key: m(key), ids: [] } });
        await create('one');
        const stream = openStream(streaming, customer);
        await stream.until((events) => events.length === 1);
        await create('two');
        const events = await stream.until((e) => e.length === 2);
        expect(stream.status).toBe(200);
        expect(stream.contentType).toMatch(/^text\/event-stream/);
        expect(events.map((e) => [e.event, (JSON.parse(e.data) as Change).key.id])).toEqual([
          ['change', 'one'],
          ['change', 'two'],
        ]);
        for (const e of events) expect(e.id).toBe((JSON.parse(e.data) as Change).cursor);
        // The service ends the stream after CHANGES_STREAM_SECONDS.
        await stream.ended;
        await create('three');
        const resumed = openStream(streaming, customer, { 'Last-Event-ID': (events[0] as StreamEvent).id });
        const again = await resumed.until((e) => e.length === 2);
        expect(again.map((e) => (JSON.parse(e.data) as Change).key.id)).toEqual(['two', 'three']);
        resumed.close();
      });
    }, 30_000);

    test('an idle stream gets a comment line every CHANGES_KEEPALIVE_SECONDS', async () => {
      await withOwnApp({ CHANGES_KEEPALIVE_SECONDS: '1', CHANGES_STREAM_SECONDS: '30' }, async (quiet, customer) => {
        const stream = openStream(quiet, customer);
        await stream.untilText((text) => text.split(': keep-alive\n\n').length > 2);
        expect(stream.status).toBe(200);
        stream.close();
      });
    }, 20_000);

    test('a client that never reads its stream holds no more than the socket takes, and is let go when its time is up', async () => {
      await withOwnApp({ CHANGES_STREAM_SECONDS: '2' }, async (streaming, customer) => {
        const { port } = new URL(streaming.baseUrl);
        const socket = net.connect(Number(port), '127.0.0.1');
        socket.pause();
        socket.write(`GET /v1/${customer}/_changes HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\n\r\n`);
        await untilWaiting(streaming, customer);
        // Far more than the socket's buffers take: the stream must stop reading for it, not keep it in memory.
        const lines = Array.from({ length: 4000 }, (_, i) =>
          JSON.stringify({ op: 'create', body: { schema: 'member', key: m(`unread-${i}-${'x'.repeat(40)}`), ids: [] } }),
        );
        expect((await bulkChecked(streaming.baseUrl, customer, lines.join('\n'), admin)).res.status).toBe(200);
        // Its time is up: the call no longer waits, though its client never read.
        await untilNotWaiting(streaming);
        socket.destroy();
      });
    }, 30_000);

    test('many idle streams: CHANGES_MAX_WAITING of them stream, the others are 503, and one write reaches every stream', async () => {
      await withOwnApp({ CHANGES_MAX_WAITING: '100', CHANGES_STREAM_SECONDS: '60' }, async (crowded, customer) => {
        const streams = Array.from({ length: 120 }, () => openStream(crowded, customer));
        await Promise.all(streams.map((st) => st.untilStatus()));
        const open = streams.filter((st) => st.status === 200);
        expect(open).toHaveLength(100);
        for (const refused of streams.filter((st) => st.status !== 200)) {
          await refused.ended;
          expect([refused.status, (JSON.parse(refused.text) as { code: string }).code]).toEqual([503, 'server_busy']);
        }
        await crowded.call('POST', `/v1/${customer}/node/_create`, { ...admin, body: { schema: 'member', key: m('everyone'), ids: [] } });
        for (const st of open) expect((await st.until((e) => e.length === 1)).map((e) => (JSON.parse(e.data) as Change).key.id)).toEqual(['everyone']);
        for (const st of open) st.close();
        await untilNotWaiting(crowded);
      });
    }, 60_000);

    test('a bad Last-Event-ID is a problem answer, before any event', async () => {
      const customer = await customerWith();
      const stream = openStream(app, customer, { 'Last-Event-ID': 'nonsense' });
      await stream.ended;
      expect(stream.status).toBe(400);
      expect(JSON.parse(stream.text)).toMatchObject({ code: 'invalid_cursor' });
    });
  });
});

interface StreamEvent {
  id: string;
  event: string;
  data: string;
}

/** A GET of the feed as an event stream, parsed as it arrives. */
function openStream(app: TestApp, customer: string, headers: Record<string, string> = {}) {
  const url = new URL(`/v1/${customer}/_changes`, app.baseUrl);
  const events: StreamEvent[] = [];
  const state = { status: 0, contentType: '', text: '' };
  const listeners = new Set<() => void>();
  let finished = false;
  const req = http.get(url, { headers: { Accept: 'text/event-stream', Authorization: `Bearer ${ADMIN_TOKEN}`, ...headers } });
  const ended = new Promise<void>((resolve) => {
    req.on('response', (res) => {
      state.status = res.statusCode ?? 0;
      state.contentType = String(res.headers['content-type'] ?? '');
      for (const l of listeners) l();
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        state.text += chunk;
        const blocks = state.text.split('\n\n');
        events.length = 0;
        for (const block of blocks.slice(0, -1)) {
          const fields = Object.fromEntries(
            block
              .split('\n')
              .filter((l) => !l.startsWith(':'))
              .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]),
          );
          if (fields.event) events.push({ id: fields.id ?? '', event: fields.event, data: fields.data ?? '' });
        }
        for (const l of listeners) l();
      });
      res.on('close', () => {
        finished = true;
        for (const l of listeners) l();
        resolve();
      });
    });
    req.on('error', () => {
      finished = true;
      resolve();
    });
  });
  return {
    get status() {
      return state.status;
    },
    get contentType() {
      return state.contentType;
    },
    get text() {
      return state.text;
    },
    ended,
    close: () => req.destroy(),
    /** Resolves once the answer's status has come. */
    untilStatus: (): Promise<void> =>
      new Promise((resolve) => {
        const check = () => {
          if (state.status !== 0 || finished) {
            listeners.delete(check);
            resolve();
          }
        };
        listeners.add(check);
        check();
      }),
    /** Resolves once `done` holds of the text received; fails when the stream ends first. */
    untilText: (done: (text: string) => boolean): Promise<void> =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (done(state.text)) {
            listeners.delete(check);
            resolve();
          } else if (finished) {
            listeners.delete(check);
            reject(new Error(`the stream ended: ${state.text}`));
          }
        };
        listeners.add(check);
        check();
      }),
    /** Resolves with the events once `done` holds of them; fails when the stream ends first. */
    until: (done: (events: StreamEvent[]) => boolean): Promise<StreamEvent[]> =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (done(events)) {
            listeners.delete(check);
            resolve([...events]);
          } else if (finished) {
            listeners.delete(check);
            reject(new Error(`the stream ended with ${events.length} events: ${state.text}`));
          }
        };
        listeners.add(check);
        check();
      }),
  };
}

/** Waits until the service counts a call waiting on the customer's feed (the metrics' in-flight count of the call). */
async function untilWaiting(app: TestApp, customer: string): Promise<void> {
  for (let i = 0; i < 400; i += 1) {
    const res = await app.call('GET', '/metrics');
    const waiting = /^idlink_changes_waiting (\d+)/m.exec(res.text);
    if (waiting && Number(waiting[1]) > 0) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`no call waited on the feed of ${customer}`);
}

/** A service of its own started with `env`, and a customer with MEMBER on it; the service is closed after `run`. */
async function withOwnApp(env: Record<string, string>, run: (own: TestApp, customer: string) => Promise<void>): Promise<void> {
  const own = await startApp({ env });
  try {
    const customer = uniqueCustomer('feed');
    await putSchema(own, customer, 'member', MEMBER);
    await run(own, customer);
  } finally {
    await own.close();
  }
}

/** Waits until no call waits on the feed any more. */
async function untilNotWaiting(app: TestApp): Promise<void> {
  for (;;) {
    const res = await app.call('GET', '/metrics');
    if (/^idlink_changes_waiting 0$/m.test(res.text)) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
