// Exports through HTTP (docs/changes-and-export.md): GET /v1/{customer_id}/_export. Who may read one; every kind of
// line, in its order, each as openapi.yaml's ExportLine says; code-point order; no token; the end line; that an export
// is exactly the state of its cursor while writers run (its state plus the feed after its cursor is the state at the
// end); at most EXPORTS_MAX_RUNNING at once; a client that goes away ends its export. Runs on the in-memory store and a
// store on a file (which reads through a connection of its own), and on Neo4j (npm run test:neo4j).
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { ValidateFunction } from 'ajv';
import type { components } from '../../src/generated/openapi';
import { contractAjv, detach, loadContract } from '../../src/http/openapi';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store';
import { ADMIN_TOKEN, startApp, tempDir, type TestApp } from '../helpers/app';
import { expectProblem, id, uniqueCustomer } from '../helpers/builders-nodesearch';
import { issueLabelledToken } from '../helpers/builders-auth';
import { bulkChecked } from '../helpers/bulk';
import { asMapi, buildCondition, buildDelivery, postDelivery } from '../helpers/deliveries';
import { putSchema, type IdPairBody } from '../helpers/factories';
import { waitFor } from '../helpers/settling';
import { usesNeo4j } from '../helpers/store';

type Line = components['schemas']['ExportLine'];
type Change = components['schemas']['Change'];

const admin = { token: ADMIN_TOKEN };
const m = (value: string) => id('member_id', value);
const device = (value: string) => id('device', value);
const MEMBER = { id_types: [{ type: 'member_id' }, { type: 'device', links: false }, { type: 'email', secure: true, max_holders: 3 }] };

const contract = loadContract();
const validateLine: ValidateFunction = contractAjv(contract).compile(
  detach((contract.document.components as { schemas: Record<string, object> }).schemas.ExportLine) as object,
);

/** The export's text, read whole, with its status and content type. */
async function exportText(app: TestApp, customer: string, query = '', token = ADMIN_TOKEN): Promise<{ status: number; type: string; text: string }> {
  const res = await fetch(`${app.baseUrl}/v1/${customer}/_export${query}`, { headers: { Authorization: `Bearer ${token}` } });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

/** The lines of a complete export, each checked against ExportLine, the end line's count checked. */
async function exportLines(app: TestApp, customer: string, query = ''): Promise<Line[]> {
  const { status, type, text } = await exportText(app, customer, query);
  expect({ status, type }).toEqual({ status: 200, type: 'application/x-ndjson; charset=utf-8' });
  expect(text.endsWith('\n')).toBe(true);
  const lines = text
    .slice(0, -1)
    .split('\n')
    .map((l) => JSON.parse(l) as Line);
  for (const line of lines) {
    if (!validateLine(line)) throw new Error(`${JSON.stringify(line)} is no ExportLine: ${JSON.stringify(validateLine.errors)}`);
  }
  expect(lines.at(-1)).toEqual({ kind: 'end', lines: lines.length - 1 });
  return lines;
}

const ofKind = <K extends Line['kind']>(lines: Line[], kind: K): Array<Extract<Line, { kind: K }>> =>
  lines.filter((l): l is Extract<Line, { kind: K }> => l.kind === kind);

/** Code-point order, which JavaScript's `<` on strings is not (it compares UTF-16 code units). */
const byCodePoints = (a: string, b: string): number => {
  const x = [...a].map((c) => c.codePointAt(0) ?? 0);
  const y = [...b].map((c) => c.codePointAt(0) ?? 0);
  for (let i = 0; i < Math.min(x.length, y.length); i += 1) if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0);
  return x.length - y.length;
};

/** The nodes as a map from `schema type id` to their sorted IDs: what an export says and what the feed changes. */
type State = Map<string, string[]>;
const nodeName = (schema: string, key: IdPairBody) => `${schema} ${key.type} ${key.id}`;
const idName = (i: { type: string; id: string | null }) => `${i.type} ${i.id}`;
const stateOf = (lines: Line[]): State => new Map(ofKind(lines, 'node').map((n) => [nodeName(n.schema, n.key), n.ids.map(idName).sort()]));

/** `state` with the feed's changes applied, as a consumer that started from the export would apply them. */
function applied(state: State, changes: Change[]): State {
  const next = new Map(state);
  for (const c of changes) {
    if (c.key.id === null) throw new Error('no erase runs in this test');
    const name = nodeName(c.schema, { type: c.key.type, id: c.key.id });
    const key = idName(c.key);
    if (c.op === 'delete') {
      next.delete(name);
      continue;
    }
    const held = new Set(next.get(name) ?? []);
    // The node's own key is not among an export's ids.
    for (const a of c.added) if (idName(a) !== key) held.add(idName(a));
    for (const r of c.removed) held.delete(idName(r));
    next.set(name, [...held].sort());
  }
  return next;
}

function exportSuite(name: string, start: () => Promise<TestApp>) {
  describe(name, () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await start();
    });
    afterAll(() => app.close());

    async function write(customer: string, op: string, body: unknown): Promise<void> {
      const res = await app.call('POST', `/v1/${customer}/node/${op}`, { ...admin, body });
      if (res.status >= 300) throw new Error(`${op} failed: ${res.status} ${res.text}`);
    }
    async function customerWith(): Promise<string> {
      const customer = uniqueCustomer('export');
      await putSchema(app, customer, 'member', MEMBER);
      return customer;
    }

    test('when a customer has settings, rules, schemas, nodes, a ban, deliveries and impressions, then the export lists each kind of line in its order, in code-point order, with the end line counting the others', async () => {
      const customer = await customerWith();
      await putSchema(app, customer, 'account', { id_types: [{ type: 'account_id' }, { type: 'member_id' }] });
      expect((await app.call('PUT', `/v1/${customer}/settings`, { ...admin, body: { timezone: 'Asia/Tokyo' } })).status).toBe(200);
      const rules = [{ type: 'member_id', values: ['blocked-one'] }];
      expect((await app.call('PUT', `/v1/${customer}/blocklist`, { ...admin, body: { rules } })).status).toBe(200);
      // Keys whose code-point order is not their UTF-16 order: U+10000 sorts after U+E000 and U+FFFF.
      const keys = ['\u{10000}', '\uE000', 'b', 'a\uFFFF', 'a\u{1F600}', 'A'];
      for (const k of keys)
        await write(customer, '_create', { schema: 'member', key: m(k), ids: [device(`d-${k}`), device('shared'), id('email', `${k}@x.test`)] });
      await write(customer, '_create', { schema: 'account', key: id('account_id', 'acc-1'), ids: [m('A')] });
      expect(
        (
          await app.call('POST', `/v1/${customer}/_separate`, {
            ...admin,
            body: {
              nodes: [
                { schema: 'member', key: m('b') },
                { schema: 'member', key: m('A') },
              ],
              remove_shared_from: 'A',
            },
          })
        ).status,
      ).toBe(200);
      const mapi = await issueLabelledToken(app, customer, 'mapi', 'deliveries');
      const first = await postDelivery(app, mapi.token, buildDelivery({ name: 'first' }));
      const second = await postDelivery(app, mapi.token, buildDelivery({ name: 'second', condition: buildCondition({ max_total_count_per_day: 5 }) }));
      for (const user of [m('b'), m('b'), m('A')]) {
        expect(
          (await app.call('POST', `/v1/delivery/${second.delivery_id}/_impression`, asMapi(mapi.token, { user, at: '2026-03-01T10:00:00Z' }))).status,
        ).toBe(201);
      }
      expect(
        (await app.call('POST', `/v1/delivery/${first.delivery_id}/_impression`, asMapi(mapi.token, { user: m('b'), at: '2026-03-02T10:00:00Z' }))).status,
      ).toBe(201);

      const lines = await exportLines(app, customer);
      const kinds = lines.map((l) => l.kind);
      const order = ['export', 'settings', 'blocklist', 'schema', 'node', 'separation', 'delivery_ids', 'delivery', 'impressions', 'end'];
      expect([...new Set(kinds)]).toEqual(order);
      expect(kinds).toEqual([...kinds].sort((a, b) => order.indexOf(a) - order.indexOf(b)));
      expect(lines[0]).toEqual({ kind: 'export', format: 1, customer_id: customer, cursor: expect.any(String) });
      expect(ofKind(lines, 'settings')).toEqual([{ kind: 'settings', require_token: false, timezone: 'Asia/Tokyo' }]);
      expect(ofKind(lines, 'blocklist')).toEqual([
        { kind: 'blocklist', rules: [{ type: 'member_id', values: ['blocked-one'], ignore_case: false, confusables: false }] },
      ]);
      expect(ofKind(lines, 'schema')).toEqual([
        {
          kind: 'schema',
          schema_id: 'account',
          id_types: [
            { type: 'account_id', secure: false, links: true },
            { type: 'member_id', secure: false, links: true },
          ],
        },
        {
          kind: 'schema',
          schema_id: 'member',
          id_types: [
            { type: 'member_id', secure: false, links: true },
            { type: 'device', secure: false, links: false },
            { type: 'email', secure: true, links: true, max_holders: 3 },
          ],
        },
      ]);
      const nodes = ofKind(lines, 'node');
      expect(nodes.map((n) => `${n.schema} ${n.key.id}`)).toEqual(['account acc-1', ...[...keys].sort(byCodePoints).map((k) => `member ${k}`)]);
      // b lost the ID it shared with A when the two were separated.
      expect(nodes.find((n) => n.key.id === 'b')).toEqual({ kind: 'node', schema: 'member', key: m('b'), ids: [device('d-b'), id('email', 'b@x.test')] });
      expect(nodes.find((n) => n.key.id === 'A')).toEqual({
        kind: 'node',
        schema: 'member',
        key: m('A'),
        ids: [device('d-A'), device('shared'), id('email', 'A@x.test')],
      });
      expect(ofKind(lines, 'separation')).toEqual([
        {
          kind: 'separation',
          nodes: [
            { schema: 'member', key: m('A') },
            { schema: 'member', key: m('b') },
          ],
        },
      ]);
      expect(ofKind(lines, 'delivery_ids')).toEqual([
        { kind: 'delivery_ids', delivery: second.delivery_id, condition: second.condition.condition_id, message: expect.any(Number) },
      ]);
      const deliveries = ofKind(lines, 'delivery');
      expect(deliveries.map((d) => d.delivery.name)).toEqual(['first', 'second']);
      expect(deliveries[1]?.delivery.condition.delivery_count).toBe(3);
      expect(ofKind(lines, 'impressions')).toEqual([
        { kind: 'impressions', id: m('A'), delivery_id: second.delivery_id, days: [{ day: '2026-03-01', count: 1 }] },
        { kind: 'impressions', id: m('b'), delivery_id: first.delivery_id, days: [{ day: '2026-03-02', count: 1 }] },
        { kind: 'impressions', id: m('b'), delivery_id: second.delivery_id, days: [{ day: '2026-03-01', count: 2 }] },
      ]);
      // A snapshot is not a credential: no token, nor its hash or id, is in it.
      const { text } = await exportText(app, customer);
      expect(text).not.toContain(mapi.token);
      expect(text).not.toContain(mapi.token_id);
    });

    test('when history=true, then one history line per key history holds, deleted nodes and rekeyings included, entries oldest first, keys in node order', async () => {
      const customer = await customerWith();
      await write(customer, '_create', { schema: 'member', key: m('b'), ids: [device('d1')] });
      await write(customer, '_insert', { schema: 'member', key: m('b'), ids: [device('d2')] });
      await write(customer, '_create', { schema: 'member', key: m('a'), ids: [] });
      await write(customer, '_delete', { schema: 'member', key: m('a') });
      await write(customer, '_rekeying', { schema: 'member', key: m('b'), set: { id: 'c' } });
      const lines = await exportLines(app, customer, '?history=true');
      const history = ofKind(lines, 'history');
      expect(history.map((h) => [h.key.id, h.entries.map((e) => e.op)])).toEqual([
        ['a', ['create', 'delete']],
        ['b', ['create', 'insert', 'rekeying']],
      ]);
      const entries = await app.call('GET', `/v1/${customer}/node/_history?schema=member&key_type=member_id&key_id=b`, admin);
      expect(history[1]?.entries).toEqual([...(entries.body as unknown[])].reverse());
      expect(ofKind(lines, 'node').map((n) => n.key.id)).toEqual(['c']);
      expect(ofKind(await exportLines(app, customer), 'history')).toEqual([]);
    });

    test('when a customer holds nothing, then the export is its header, the defaults and the end', async () => {
      const lines = await exportLines(app, uniqueCustomer('export-empty'));
      expect(lines.slice(1)).toEqual([
        { kind: 'settings', require_token: false, timezone: 'UTC' },
        { kind: 'blocklist', rules: [] },
        { kind: 'delivery_ids', delivery: 0, condition: 0, message: 0 },
        { kind: 'end', lines: 4 },
      ]);
    });

    test("when there is no token, another customer's token, or a bad history flag, then 401, 403 and 400, and the customer's own bearer token may export", async () => {
      const customer = await customerWith();
      const other = await customerWith();
      const own = await issueLabelledToken(app, customer, 'bearer', 'export');
      const foreign = await issueLabelledToken(app, other, 'bearer', 'export');
      expectProblem(await app.call('GET', `/v1/${customer}/_export`), 401, 'authentication_required');
      expectProblem(await app.call('GET', `/v1/${customer}/_export`, { token: foreign.token }), 403, 'forbidden');
      expectProblem(await app.call('GET', `/v1/${customer}/_export?history=maybe`, admin), 400, 'validation_failed');
      expect((await exportText(app, customer, '', own.token)).status).toBe(200);
    });

    test('when 8 writers create, insert, remove and delete while exports of 3,000 nodes run, then each export and the feed after its cursor make exactly the state at the end', async () => {
      const customer = await customerWith();
      const NODES = 3000;
      // Keys spread over the whole export, so that writes land before, in and after what an export has read.
      const key = (n: number) => m(`p-${String(n % NODES).padStart(4, '0')}`);
      const seed = Array.from({ length: NODES }, (_, n) => JSON.stringify({ op: 'create', body: { schema: 'member', key: key(n), ids: [device(`d-${n}`)] } }));
      for (let i = 0; i < NODES; i += 1000) expect((await bulkChecked(app.baseUrl, customer, seed.slice(i, i + 1000).join('\n'), admin)).res.status).toBe(200);
      let writing = true;
      const writer = async (w: number) => {
        for (let i = 0; writing; i += 1) {
          const target = key(w * 379 + i * 211);
          const op = i % 4;
          // Some of these are refused (an update of what another writer removed): they change nothing, and appear nowhere.
          if (op === 0) await write(customer, '_insert', { schema: 'member', key: target, ids: [device(`w${w}-${i}`)] });
          else if (op === 1) await write(customer, '_create', { schema: 'member', key: m(`n-${w}-${i}`), ids: [device(`u${w}-${i}`)] });
          else if (op === 2)
            await app.call('POST', `/v1/${customer}/node/_update`, {
              ...admin,
              body: { schema: 'member', key: target, set: device(`x${w}-${i}`), where: device(`w${w}-${i - 2}`) },
            });
          else await write(customer, '_delete', { schema: 'member', key: m(`n-${w}-${i - 2}`) });
        }
      };
      const writers = Array.from({ length: 8 }, (_, w) => writer(w));
      const exports: Line[][] = [];
      for (let e = 0; e < 4; e += 1) exports.push(await exportLines(app, customer));
      writing = false;
      await Promise.all(writers);
      const end = stateOf(await exportLines(app, customer));
      const feed = async (after?: string): Promise<Change[]> => {
        const changes: Change[] = [];
        for (let next = after; ;) {
          const res = await app.call('GET', `/v1/${customer}/_changes?limit=1000${next ? `&after=${next}` : ''}`, admin);
          const page = res.body as components['schemas']['ChangePage'];
          changes.push(...page.changes);
          next = page.next;
          if (page.changes.length < 1000) return changes;
        }
      };
      const all = await feed();
      expect(applied(new Map(), all)).toEqual(end);
      for (const lines of exports) {
        const header = lines[0];
        if (header?.kind !== 'export') throw new Error('no header');
        const after = await feed(header.cursor);
        expect(all.slice(all.length - after.length)).toEqual(after);
        // Exactly the changes up to its cursor: what the feed holds before it, replayed, and nothing of what follows.
        expect(stateOf(lines)).toEqual(applied(new Map(), all.slice(0, all.length - after.length)));
        expect(applied(stateOf(lines), after)).toEqual(end);
      }
    });

    test('when EXPORTS_MAX_RUNNING exports run, then one more is 503 server_busy, and a client that goes away ends its export', async () => {
      const limited = await startApp({ env: { EXPORTS_MAX_RUNNING: '1' } });
      try {
        const customer = uniqueCustomer('export-busy');
        await putSchema(limited, customer, 'member', MEMBER);
        // Enough lines that the answer does not fit in the socket's buffers while nobody reads it.
        const ids = Array.from({ length: 200 }, (_, i) => device(`${'x'.repeat(900)}-${i}`));
        for (let i = 0; i < 30; i += 1) {
          const res = await limited.call('POST', `/v1/${customer}/node/_create`, { ...admin, body: { schema: 'member', key: m(`big-${i}`), ids } });
          expect(res.status).toBe(201);
        }
        const unread = http.get(`${limited.baseUrl}/v1/${customer}/_export`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
        const response = await new Promise<http.IncomingMessage>((resolve) => unread.once('response', resolve));
        expect(response.statusCode).toBe(200);
        response.pause();
        const busy = await limited.call('GET', `/v1/${customer}/_export`, admin);
        expectProblem(busy, 503, 'server_busy');
        unread.destroy();
        await waitFor('an export after the first client went away', async () => (await exportText(limited, customer)).status === 200);
      } finally {
        await limited.close();
      }
    });
  });
}

exportSuite('exports', () => startApp());

if (!usesNeo4j()) {
  const dir = tempDir('export');
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  exportSuite('exports of a store on a file, read through a connection of their own', () =>
    startApp({ store: new SqliteStore({ path: path.join(dir, 'store.sqlite') }) }),
  );
}
