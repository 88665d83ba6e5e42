// Imports through HTTP (docs/changes-and-export.md): POST /v1/{customer_id}/_import. An export imported into another
// customer exports again to the same lines but its header, and answers searches and eligibility alike; only the
// administrator may import, into an empty customer; a refused line, a cut body or broken gzip is 400 invalid_import
// naming the line, and the customer is empty after; while an import runs its customer's other requests are 503
// import_in_progress, and a client that goes away leaves the customer empty. Runs on SQLite and on Neo4j (npm run
// test:neo4j).
import http from 'node:http';
import zlib from 'node:zlib';
import { IMPORT_BATCH_BYTES } from '../../src/domain/import';
import type { ImportBatch } from '../../src/domain/ports/imports';
import type { components } from '../../src/generated/openapi';
import { ADMIN_TOKEN, startApp, type TestApp } from '../helpers/app';
import { expectProblem, id, uniqueCustomer } from '../helpers/builders-nodesearch';
import { issueLabelledToken } from '../helpers/builders-auth';
import { asMapi, buildCondition, buildDelivery, postDelivery } from '../helpers/deliveries';
import { putSchema } from '../helpers/factories';
import { waitFor } from '../helpers/settling';
import { defaultTestStore } from '../helpers/store';

type Line = components['schemas']['ExportLine'];
type Problem = { code: string; line?: number; detail: string };

const admin = { token: ADMIN_TOKEN };
const m = (value: string) => id('member_id', value);
const device = (value: string) => id('device', value);
const MEMBER = { id_types: [{ type: 'member_id' }, { type: 'device', links: false }, { type: 'email', secure: true, max_holders: 3 }] };

describe('imports', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(() => app.close());

  async function exportOf(customer: string, query = '?history=true'): Promise<string> {
    const res = await fetch(`${app.baseUrl}/v1/${customer}/_export${query}`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(res.status).toBe(200);
    return res.text();
  }
  async function importInto(customer: string, body: string | Buffer, headers: Record<string, string> = {}, token = ADMIN_TOKEN) {
    const res = await fetch(`${app.baseUrl}/v1/${customer}/_import`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-ndjson', ...headers },
      body,
    });
    const text = await res.text();
    return { status: res.status, type: res.headers.get('content-type') ?? '', body: JSON.parse(text) as unknown };
  }
  const withoutHeader = (text: string) => text.split('\n').slice(1).join('\n');
  const lines = (text: string) => text.trimEnd().split('\n');
  async function write(customer: string, op: string, body: unknown): Promise<void> {
    const res = await app.call('POST', `/v1/${customer}/node/${op}`, { ...admin, body });
    if (res.status >= 300) throw new Error(`${op} failed: ${res.status} ${res.text}`);
  }
  /** A customer with settings, rules, schemas, nodes, a ban, history with an erasure, and a delivery with impressions. */
  async function source(): Promise<{ customer: string; mapi: string; deliveryId: number }> {
    const customer = uniqueCustomer('import-src');
    await putSchema(app, customer, 'member', MEMBER);
    expect((await app.call('PUT', `/v1/${customer}/settings`, { ...admin, body: { timezone: 'Asia/Tokyo' } })).status).toBe(200);
    expect((await app.call('PUT', `/v1/${customer}/blocklist`, { ...admin, body: { rules: [{ type: 'device', pattern: 'bad.*' }] } })).status).toBe(200);
    await write(customer, '_create', { schema: 'member', key: m('ann'), ids: [device('d1'), id('email', 'ann@example.com')] });
    await write(customer, '_create', { schema: 'member', key: m('bob'), ids: [device('d2')] });
    await write(customer, '_create', { schema: 'member', key: m('\u{10000}'), ids: [device('\uE000')] });
    await write(customer, '_rekeying', { schema: 'member', key: m('bob'), set: { id: 'rob' } });
    await write(customer, '_create', { schema: 'member', key: m('eve'), ids: [device('d3')] });
    expect((await app.call('POST', `/v1/${customer}/_erase`, { ...admin, body: { id: m('eve') } })).status).toBe(200);
    expect(
      (
        await app.call('POST', `/v1/${customer}/_separate`, {
          ...admin,
          body: {
            nodes: [
              { schema: 'member', key: m('rob') },
              { schema: 'member', key: m('ann') },
            ],
            remove_shared_from: 'none',
          },
        })
      ).status,
    ).toBe(200);
    const mapi = await issueLabelledToken(app, customer, 'mapi', 'deliveries');
    const delivery = await postDelivery(app, mapi.token, buildDelivery({ condition: buildCondition({ max_total_count: 2, max_total_count_per_day: 5 }) }));
    const shown = await app.call('POST', `/v1/delivery/${delivery.delivery_id}/_impression`, asMapi(mapi.token, { user: m('ann') }));
    expect(shown.status).toBe(201);
    return { customer, mapi: mapi.token, deliveryId: delivery.delivery_id };
  }

  test('when an export is imported into an empty customer, then it exports again to the same lines but its header, and searches, caps and the feed go on from it', async () => {
    const { customer, deliveryId } = await source();
    const exported = await exportOf(customer);
    const target = uniqueCustomer('import-dst');
    const answer = await importInto(target, exported);
    expect(answer).toEqual({
      status: 200,
      type: 'application/json; charset=utf-8',
      body: { schemas: 1, nodes: 3, ids: 7, separations: 1, deliveries: 1, history_entries: expect.any(Number) },
    });
    const again = await exportOf(target);
    expect(withoutHeader(again)).toEqual(withoutHeader(exported));
    const header = JSON.parse(lines(again)[0] ?? '') as Extract<Line, { kind: 'export' }>;
    expect(header.customer_id).toBe(target);
    // What the service answers from the data: a search, and the cap the source's impression counted towards.
    const search = await app.call('POST', `/v1/${target}/_search`, { ...admin, body: { match: { from: { schema: 'member', key: m('ann') }, step: 'ALL' } } });
    expect(search.status).toBe(200);
    expect(search.body).toEqual(
      (await app.call('POST', `/v1/${customer}/_search`, { ...admin, body: { match: { from: { schema: 'member', key: m('ann') }, step: 'ALL' } } })).body,
    );
    const mapi = await issueLabelledToken(app, target, 'mapi', 'deliveries');
    const shows = (user: object) => app.call('POST', `/v1/delivery/${deliveryId}/_impression`, asMapi(mapi.token, { user }));
    expect((await shows(m('ann'))).status).toBe(201);
    expectProblem(await shows(m('ann')), 409, 'cap_reached');
    // The imported history is in the new customer's feed, and the next write follows it.
    const feed = await app.call('GET', `/v1/${target}/_changes?limit=1000`, admin);
    const changes = (feed.body as components['schemas']['ChangePage']).changes;
    expect(changes.length).toBe((answer.body as { history_entries: number }).history_entries);
    await write(target, '_insert', { schema: 'member', key: m('ann'), ids: [device('d9')] });
    const next = await app.call('GET', `/v1/${target}/_changes?after=${(feed.body as components['schemas']['ChangePage']).next}`, admin);
    expect((next.body as components['schemas']['ChangePage']).changes.map((c) => c.op)).toEqual(['insert']);
  });

  test('when a node holds more IDs than one write may add, then it is exported and imported whole', async () => {
    const customer = uniqueCustomer('import-wide');
    await putSchema(app, customer, 'member', MEMBER);
    await write(customer, '_create', { schema: 'member', key: m('wide'), ids: Array.from({ length: 1000 }, (_, i) => device(`a-${i}`)) });
    await write(customer, '_insert', { schema: 'member', key: m('wide'), ids: Array.from({ length: 500 }, (_, i) => device(`b-${i}`)) });
    const exported = await exportOf(customer);
    const target = uniqueCustomer('import-wide-copy');
    expect(await importInto(target, exported)).toMatchObject({ status: 200, body: { nodes: 1, ids: 1501 } });
    expect(withoutHeader(await exportOf(target))).toEqual(withoutHeader(exported));
  });

  test('when an export fills more batches than the store writes at once, its nodes sharing IDs, then it is imported whole, exports again to the same lines but its header, and the feed lists its entries in the export order', async () => {
    const { weight, atOnce } = await app.store.importBatching();
    // A node weighs five records: its key, three devices every node holds (in one order or the other) and its
    // create. Enough nodes for one batch more than the store writes at once.
    const count = Math.ceil(((atOnce + 1) * weight) / 5);
    const shared = ['hot-1', 'hot-2', 'hot-3'].map(device);
    const keys = Array.from({ length: count }, (_, n) => `n-${String(n).padStart(6, '0')}`);
    const customer = uniqueCustomer('import-batches');
    await putSchema(app, customer, 'member', MEMBER);
    const bulk = keys.map((key, n) =>
      JSON.stringify({ op: 'create', body: { schema: 'member', key: m(key), ids: n % 2 === 0 ? shared : [...shared].reverse() } }),
    );
    const loaded = await fetch(`${app.baseUrl}/v1/${customer}/node/_bulk`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/x-ndjson' },
      body: bulk.join('\n'),
    });
    expect((await loaded.text()).split('\n').filter((l) => l && !l.includes('"status":201'))).toEqual([]);
    const exported = await exportOf(customer);

    const target = uniqueCustomer('import-batches-copy');
    expect(await importInto(target, exported)).toMatchObject({ status: 200, body: { nodes: count, ids: count * 4, history_entries: count } });
    expect(withoutHeader(await exportOf(target))).toEqual(withoutHeader(exported));
    const fed: string[] = [];
    for (let after = ''; ;) {
      const page = (await app.call('GET', `/v1/${target}/_changes?limit=1000${after}`, admin)).body as components['schemas']['ChangePage'];
      if (page.changes.length === 0) break;
      fed.push(...page.changes.map((change) => change.key.id ?? ''));
      after = `&after=${page.next}`;
    }
    expect(fed).toEqual(keys);
  });

  test('when lines weigh little for their size, then the store is handed them in batches of at most IMPORT_BATCH_BYTES and a line, and the import is whole', async () => {
    const handed: number[] = [];
    const real = await defaultTestStore();
    // The real store, but each batch it is handed measured first (as JSON, about the size of its lines).
    const importBatch = (customerId: string, batch: ImportBatch) => {
      handed.push(Buffer.byteLength(JSON.stringify(batch)));
      return real.importBatch(customerId, batch);
    };
    const measured = new Proxy(real, {
      get: (target, property) => {
        if (property === 'importBatch') return importBatch;
        const value: unknown = Reflect.get(target, property);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const own = await startApp({ store: measured });
    try {
      const customer = uniqueCustomer('import-light');
      const mapi = await issueLabelledToken(own, customer, 'mapi', 'deliveries');
      const delivery = await postDelivery(own, mapi.token, buildDelivery());
      const res = await fetch(`${own.baseUrl}/v1/${customer}/_export`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
      const exported = lines(await res.text()).slice(0, -1);
      // Impressions without days weigh nothing: about 10 MB of them, in 10,000 lines.
      const light = Array.from({ length: 10_000 }, (_, n) =>
        JSON.stringify({
          kind: 'impressions',
          id: device(`light-${String(n).padStart(6, '0')}-${'x'.repeat(1000)}`),
          delivery_id: delivery.delivery_id,
          days: [],
        }),
      );
      const body = [...exported, ...light, JSON.stringify({ kind: 'end', lines: exported.length + light.length })].join('\n');
      const target = uniqueCustomer('import-light-copy');
      const imported = await fetch(`${own.baseUrl}/v1/${target}/_import`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/x-ndjson' },
        body,
      });
      expect([imported.status, await imported.json()]).toMatchObject([200, { deliveries: 1 }]);
      expect(handed.length).toBeGreaterThan(1);
      expect(Math.max(...handed)).toBeLessThan(IMPORT_BATCH_BYTES + 1024);
    } finally {
      await own.close();
    }
  });

  test('when the export is gzip, then it is imported the same', async () => {
    const { customer } = await source();
    const exported = await exportOf(customer);
    const target = uniqueCustomer('import-gz');
    expect((await importInto(target, zlib.gzipSync(exported), { 'Content-Encoding': 'gzip' })).status).toBe(200);
    expect(withoutHeader(await exportOf(target))).toEqual(withoutHeader(exported));
  });

  test("when there is no token, a customer's own token, or a customer that holds data, then 401, 403 and 409 customer_not_empty, and nothing changes", async () => {
    const { customer } = await source();
    const exported = await exportOf(customer);
    const target = uniqueCustomer('import-auth');
    const own = await issueLabelledToken(app, target, 'bearer', 'own');
    const res = await fetch(`${app.baseUrl}/v1/${target}/_import`, { method: 'POST', headers: { 'Content-Type': 'application/x-ndjson' }, body: exported });
    expect(res.status).toBe(401);
    expect((await importInto(target, exported, {}, own.token)).status).toBe(403);
    const refused = await importInto(customer, exported);
    expect(refused).toMatchObject({ status: 409, body: { code: 'customer_not_empty' } });
    expect(withoutHeader(await exportOf(customer))).toEqual(withoutHeader(exported));
  });

  test('when a line is refused, the body is cut, or the gzip is broken, then 400 invalid_import names the line, and the customer holds nothing after', async () => {
    const { customer } = await source();
    const exported = lines(await exportOf(customer));
    const nodeAt = exported.findIndex((l) => l.includes('"kind":"node"'));
    const swap = (at: number, line: string) => exported.map((l, i) => (i === at ? line : l)).join('\n');
    const cases: Array<{ body: string | Buffer; line?: number | Array<number | undefined>; headers?: Record<string, string> }> = [
      { body: swap(nodeAt, '{"kind":"node",'), line: nodeAt + 1 },
      { body: swap(nodeAt, JSON.stringify({ kind: 'node', schema: 'member', key: m('ann'), ids: [id('undeclared', 'x')] })), line: nodeAt + 1 },
      { body: swap(nodeAt, JSON.stringify({ kind: 'node', schema: 'member', key: m('zzz'), ids: [] })), line: nodeAt + 2 },
      { body: swap(1, JSON.stringify({ kind: 'settings', require_token: false, timezone: 'Mars/Olympus' })), line: 2 },
      { body: swap(0, JSON.stringify({ kind: 'export', format: 2, customer_id: 'x', cursor: 'c1-aaaaaaaaaaaaaaaa' })), line: 1 },
      { body: swap(nodeAt, JSON.stringify({ kind: 'mystery' })), line: nodeAt + 1 },
      { body: exported.slice(0, -1).join('\n') },
      { body: swap(exported.length - 1, JSON.stringify({ kind: 'end', lines: 2 })), line: exported.length },
      { body: zlib.gzipSync(exported.join('\n')).subarray(0, 60), headers: { 'Content-Encoding': 'gzip' } },
      // Refused at its first line, and its gzip broken further on: whichever the import meets first answers (the line,
      // or the gzip), and the service lives on when the rest fails unread.
      {
        body: zlib.gzipSync([JSON.stringify({ kind: 'mystery' }), ...exported.slice(1), ...exported.slice(1)].join('\n')).subarray(0, -30),
        headers: { 'Content-Encoding': 'gzip' },
        line: [1, undefined],
      },
    ];
    for (const c of cases) {
      const target = uniqueCustomer('import-bad');
      const answer = await importInto(target, c.body, c.headers);
      expect({ status: answer.status, type: answer.type }).toEqual({ status: 400, type: 'application/problem+json; charset=utf-8' });
      const problem = answer.body as Problem;
      expect(problem.code).toBe('invalid_import');
      if (Array.isArray(c.line)) expect(c.line).toContain(problem.line);
      else expect(problem.line).toBe(c.line);
      // The detail names what is wrong, never a value of the line.
      expect(problem.detail).not.toContain('ann');
      const left = lines(await exportOf(target));
      expect(left.map((l) => (JSON.parse(l) as Line).kind)).toEqual(['export', 'settings', 'blocklist', 'delivery_ids', 'end']);
      // Empty again: the whole export now goes in.
      expect((await importInto(target, exported.join('\n'))).status).toBe(200);
    }
  });

  test('when a batch the store is writing is refused while a later line is checked, then 400 invalid_import names the line of the batch, not the later one, and the customer holds nothing after', async () => {
    const { customer } = await source();
    const exported = lines(await exportOf(customer));
    const schemaLine = exported.find((l) => l.includes('"kind":"schema"')) ?? '';
    // A batch ends once it weighs what the store asks for: the schema, the nodes and the separation fill the first
    // one, whose separation names a node the import has no line of. The next line, refused by its check, is read
    // while that batch is written.
    const { weight } = await app.store.importBatching();
    const nodes = Array.from({ length: weight - 2 }, (_, n) =>
      JSON.stringify({ kind: 'node', schema: 'member', key: m(`m-${String(n).padStart(6, '0')}`), ids: [] }),
    );
    const separation = JSON.stringify({
      kind: 'separation',
      nodes: [
        { schema: 'member', key: m('m-000000') },
        { schema: 'member', key: m('nobody') },
      ],
    });
    const body = [...exported.slice(0, 3), schemaLine, ...nodes, separation, JSON.stringify({ kind: 'mystery' }), ...exported.slice(-2)];
    const target = uniqueCustomer('import-batch-refused');
    const answer = await importInto(target, body.join('\n'));
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: 'invalid_import', line: body.indexOf(separation) + 1 });
    const left = lines(await exportOf(target));
    expect(left.map((l) => (JSON.parse(l) as Line).kind)).toEqual(['export', 'settings', 'blocklist', 'delivery_ids', 'end']);
  });

  test('when an import is under way, then its customer answers 503 import_in_progress, and a client that goes away leaves the customer empty', async () => {
    const { customer } = await source();
    const exported = lines(await exportOf(customer));
    const target = uniqueCustomer('import-slow');
    // The export but its last lines, and the rest held back: the import waits for them.
    const request = http.request(`${app.baseUrl}/v1/${target}/_import`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/x-ndjson', 'Transfer-Encoding': 'chunked' },
    });
    request.on('error', () => undefined);
    request.write(`${exported.slice(0, -2).join('\n')}\n`);
    const busy = await waitFor('the import to begin', async () => {
      const res = await app.call('GET', `/v1/${target}/settings`, admin);
      return res.status === 503 ? res : undefined;
    });
    expectProblem(busy, 503, 'import_in_progress');
    expect((await importInto(target, exported.join('\n'))).body).toMatchObject({ code: 'import_in_progress' });
    request.destroy();
    await waitFor('the import to be undone', async () => (await app.call('GET', `/v1/${target}/settings`, admin)).status === 200);
    const left = lines(await exportOf(target));
    expect(left.map((l) => (JSON.parse(l) as Line).kind)).toEqual(['export', 'settings', 'blocklist', 'delivery_ids', 'end']);
  });
});
