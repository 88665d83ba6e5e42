// Every error code of src/domain/errors.ts, provoked through the real app beside secure IDs: no refusal, single or a
// _bulk line, ever holds a secure value, whoever asks (docs/errors.md), nor does the log. A code no request here
// provokes says why it cannot name an ID. A code added to ErrorCode without an entry fails tsc (the Record) and this
// suite (which reads errors.ts). This file also runs on Neo4j (npm run test:neo4j).
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Response } from 'supertest';
import type { ErrorCode } from '../../src/domain/errors';
import { untilAccessLogged } from '../helpers/access-log';
import { ADMIN_TOKEN, type CallOptions, startApp, type TestApp } from '../helpers/app';
import { bulkChecked } from '../helpers/bulk';
import { unknownToken } from '../helpers/builders-auth';
import { buildSearch, id, uniqueCustomer } from '../helpers/builders-nodesearch';
import { asMapi, buildCondition, buildDelivery, postDelivery } from '../helpers/deliveries';
import { createNode, type IdPairBody, issueToken, putSchema } from '../helpers/factories';

/** The secure values of the customer below: the key of a node, IDs held, a key a request names that no node has. */
const S_KEY = 'hidden.key@example.com';
const S_OTHER = 'other.key@example.com';
const S_HELD = 'held.secret@example.com';
const S_SSN = '123-45-6789';
const S_MISSING = 'nobody.here@example.com';
const S_BLOCKED = 'blocked.secret@example.com';
const SECRETS = [S_KEY, S_OTHER, S_HELD, S_SSN, S_MISSING, S_BLOCKED];

const MEMBER = {
  id_types: [{ type: 'member_id' }, { type: 'device' }, { type: 'cookie' }, { type: 'email', secure: true }, { type: 'ssn', secure: true, max_holders: 1 }],
};
const CONTACT = { id_types: [{ type: 'email', secure: true }, { type: 'device' }, { type: 'cookie' }] };
/** What the app is started with: small enough that one request passes each bound. */
const ENV = { NODE_MAX_IDS: '4', TRAVERSAL_MAX_NODES: '3' };

const m = (value: string) => id('member_id', value);
const email = (value: string) => id('email', value);
const device = (value: string) => id('device', value);
const cookie = (value: string) => id('cookie', value);
const ssn = (value: string) => id('ssn', value);
const member = (key: IdPairBody) => ({ schema: 'member', key });
const contact = (value: string) => ({ schema: 'contact', key: email(value) });

/** One refusal a request got: the answer's status and code, or a _bulk line's, and all its text. */
interface Refusal {
  status: number;
  code: unknown;
  text: string;
  /** The request's X-Request-Id, for waiting on its log line. */
  requestId?: string;
}

/** What provoking a code needs: the app, the customer below and its tokens. */
interface Setting {
  app: TestApp;
  customer: string;
  /** A bearer token of the customer, and a mapi token. */
  bearer: string;
  mapi: string;
  /** A bearer token of another customer. */
  foreignBearer: string;
}

/** Requests that provoke the code, each answering its refusals; or why the code cannot name an ID. */
type Entry = { provoke: (s: Setting) => Promise<Refusal[]> } | { cannotNameAnId: string };

const anonymous = {};
const asAdmin = { token: ADMIN_TOKEN };

const requestIdOf = (res: Response): string | undefined => (typeof res.headers['x-request-id'] === 'string' ? res.headers['x-request-id'] : undefined);
const refusalOf = (res: Response): Refusal => ({
  status: res.status,
  code: (res.body as { code?: unknown }).code,
  text: res.text,
  requestId: requestIdOf(res),
});

async function call(s: Setting, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, options: CallOptions): Promise<Refusal[]> {
  return [refusalOf(await s.app.call(method, url, options))];
}

const node = (s: Setting, op: string, body: unknown, options: CallOptions = anonymous) => call(s, 'POST', `/v1/${s.customer}/node/${op}`, { ...options, body });
const search = (s: Setting, body: unknown, options: CallOptions = anonymous) => call(s, 'POST', `/v1/${s.customer}/_search`, { ...options, body });
const separate = (s: Setting, method: 'POST' | 'DELETE', body: unknown) => call(s, method, `/v1/${s.customer}/_separate`, { ...asAdmin, body });

/** A _bulk request's line results, each a refusal of its own; the whole answer when it is refused whole. */
async function bulk(s: Setting, lines: string[], token?: string): Promise<Refusal[]> {
  const { res, results } = await bulkChecked(s.app.baseUrl, s.customer, lines.join('\n'), token ? { token } : {});
  if (res.status !== 200) return [refusalOf(res)];
  return results.map((r) => ({ status: r.status, code: r.code, text: JSON.stringify(r), requestId: requestIdOf(res) }));
}
const line = (op: string, body: unknown) => JSON.stringify({ op, body });

/** Sends `request` as it is on a socket of its own and reads the answer until the service closes the connection. */
function rawExchange(s: Setting, request: string): Promise<Refusal[]> {
  const { port } = new URL(s.app.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      const body = text.slice(text.indexOf('\r\n\r\n') + 4);
      resolve([{ status, code: (JSON.parse(body) as { code?: unknown }).code, text, requestId: /^X-Request-Id: (.+)$/im.exec(text)?.[1]?.trim() }]);
    });
    socket.end(request);
  });
}

const CASES: Record<ErrorCode, Entry> = {
  malformed_request: {
    provoke: async (s) => [
      // The history answer carries absolute URLs: without a usable Host it cannot be answered.
      ...(await call(s, 'GET', `/v1/${s.customer}/node/_history?schema=contact&key_type=email&key_id=${encodeURIComponent(S_KEY)}&count=1&page=1`, {
        headers: { Host: 'not a host' },
      })),
      ...(await rawExchange(s, `POST /v1/${s.customer}/_search HTTP/1.1\r\nHost: x\r\nX-Key: ${S_KEY}\x01\r\n\r\n`)),
    ],
  },
  invalid_json: {
    provoke: async (s) => {
      const res = await s.app.call('POST', `/v1/${s.customer}/node/_create`, {
        headers: { 'Content-Type': 'application/json' },
        body: `{"schema":"contact","key":{"type":"email","id":"${S_KEY}"`,
      });
      return [refusalOf(res), ...(await bulk(s, [`{"op":"create","body":{"schema":"contact","key":{"type":"email","id":"${S_KEY}"}`]))];
    },
  },
  validation_failed: {
    provoke: async (s) => {
      const tooLong = { schema: 'contact', key: email(S_KEY.repeat(60)), ids: [device(S_KEY)] };
      return [
        ...(await node(s, '_create', tooLong)),
        ...(await node(s, '_create', { ...contact(S_KEY), ids: [{ type: 'email', id: S_HELD, value: S_HELD }] })),
        ...(await bulk(s, [line('create', tooLong), line('delete', { ...contact(S_KEY), where: email(S_KEY), extra: S_KEY })])),
      ];
    },
  },
  key_type_not_in_schema: { provoke: (s) => node(s, '_create', { schema: 'member', key: id('undeclared', S_KEY) }) },
  id_type_not_in_schema: { provoke: (s) => node(s, '_insert', { ...member(m('ann')), ids: [id('undeclared', S_KEY)] }) },
  blocked_id: {
    provoke: async (s) => [
      ...(await node(s, '_create', { ...contact(S_BLOCKED), ids: [] }, asAdmin)),
      ...(await node(s, '_insert', { ...member(m('bob')), ids: [email(S_BLOCKED)] }, asAdmin)),
      ...(await bulk(s, [line('create', contact(S_BLOCKED))], ADMIN_TOKEN)),
    ],
  },
  invalid_search: {
    provoke: async (s) => [
      ...(await search(s, { match: { from: { key: email(S_KEY) } } })),
      ...(await call(s, 'POST', `/v1/${s.customer}/_why`, { body: { from: { key: email(S_KEY) }, to: { where: device('tablet-9') } } })),
    ],
  },
  authentication_required: {
    provoke: async (s) => [
      ...(await search(s, buildSearch({ where: email(S_KEY) }))),
      ...(await node(s, '_create', contact(S_MISSING))),
      ...(await bulk(s, [line('insert', { ...contact(S_KEY), ids: [cookie('c-new')] })])),
      ...(await call(s, 'POST', '/v1/delivery/_eligible', asMapi(s.mapi, { user: email(S_HELD), event_name: 'app_open' }))),
    ],
  },
  invalid_token: { provoke: (s) => search(s, buildSearch({ where: email(S_KEY) }), { token: unknownToken() }) },
  forbidden: { provoke: (s) => search(s, buildSearch({ where: email(S_KEY) }), { token: s.foreignBearer }) },
  schema_not_found: { provoke: (s) => node(s, '_create', { schema: 'undeclared', key: email(S_KEY) }) },
  node_not_found: {
    provoke: async (s) => [
      ...(await node(s, '_insert', { ...contact(S_MISSING), ids: [device('d-x')] }, asAdmin)),
      ...(await node(s, '_delete', contact(S_MISSING), asAdmin)),
      ...(await bulk(s, [line('insert', { ...contact(S_MISSING), ids: [device('d-x')] }), line('delete', contact(S_MISSING))], ADMIN_TOKEN)),
      ...(await separate(s, 'POST', { nodes: [member(m('ann')), contact(S_MISSING)], remove_shared_from: 'none' })),
      ...(await separate(s, 'DELETE', { nodes: [contact(S_MISSING), member(m('ann'))] })),
      ...(await call(s, 'POST', `/v1/${s.customer}/_why`, { body: { from: { where: device('nowhere') }, to: { where: device('tablet-9') } } })),
    ],
  },
  delivery_not_found: {
    provoke: (s) => call(s, 'POST', '/v1/delivery/999999/_impression', { ...asMapi(s.mapi, { user: email(S_HELD) }), token: s.bearer }),
  },
  not_found: { provoke: (s) => call(s, 'GET', `/v1/${s.customer}/node/${encodeURIComponent(S_KEY)}`, anonymous) },
  node_exists: {
    provoke: async (s) => [
      ...(await node(s, '_create', contact(S_KEY), asAdmin)),
      ...(await node(s, '_rekeying', { ...contact(S_OTHER), set: { id: S_KEY } }, asAdmin)),
      ...(await bulk(s, [line('create', contact(S_KEY))], ADMIN_TOKEN)),
    ],
  },
  id_exists: {
    provoke: async (s) => [
      ...(await node(s, '_insert', { ...member(m('bob')), ids: [email(S_HELD)] }, asAdmin)),
      ...(await node(s, '_update', { ...member(m('bob')), where: device('d-bob'), set: email(S_HELD) }, asAdmin)),
      ...(await bulk(s, [line('insert', { ...member(m('bob')), ids: [email(S_HELD)] })], ADMIN_TOKEN)),
    ],
  },
  key_id_immutable: {
    provoke: async (s) => [
      ...(await node(s, '_update', { ...contact(S_KEY), where: email(S_KEY), set: email(S_MISSING) }, asAdmin)),
      // contact S_OTHER holds S_KEY, the key of the other node: that key cannot leave its node.
      ...(await separate(s, 'POST', { nodes: [contact(S_KEY), contact(S_OTHER)], remove_shared_from: 'A' })),
    ],
  },
  secure_flag_conflict: {
    provoke: (s) => call(s, 'PUT', `/v1/${s.customer}/schema/third`, { ...asAdmin, body: { id_types: [{ type: 'email' }] } }),
  },
  type_option_conflict: {
    provoke: (s) => call(s, 'PUT', `/v1/${s.customer}/schema/third`, { ...asAdmin, body: { id_types: [{ type: 'ssn', secure: true }] } }),
  },
  secure_type_in_use: {
    provoke: (s) =>
      call(s, 'PUT', `/v1/${s.customer}/schema/member`, {
        ...asAdmin,
        body: { id_types: MEMBER.id_types.map((t) => (t.type === 'ssn' ? { ...t, secure: false } : t)) },
      }),
  },
  schema_in_use: { provoke: (s) => call(s, 'DELETE', `/v1/${s.customer}/schema/contact`, asAdmin) },
  schema_changed: {
    cannotNameAnId:
      'only a schema or policy replaced while a write runs provokes it, which no single request can arrange; its detail names the schema at most (schemaChanged, policyChanged in src/domain/store.ts)',
  },
  node_id_limit_reached: {
    provoke: async (s) => [
      ...(await node(s, '_insert', { ...contact(S_KEY), ids: [cookie('c-a'), cookie('c-b')] }, asAdmin)),
      ...(await bulk(s, [line('insert', { ...contact(S_KEY), ids: [cookie('c-a'), cookie('c-b')] })], ADMIN_TOKEN)),
    ],
  },
  holder_limit_reached: {
    provoke: async (s) => [
      ...(await node(s, '_insert', { ...member(m('ann')), ids: [ssn(S_SSN)] }, asAdmin)),
      ...(await bulk(s, [line('upsert', { ...member(m('ann')), where: ssn('none'), set: ssn(S_SSN) })], ADMIN_TOKEN)),
    ],
  },
  ids_shared: { provoke: (s) => separate(s, 'POST', { nodes: [contact(S_KEY), contact(S_OTHER)], remove_shared_from: 'none' }) },
  separated_nodes: {
    // Without a token: ann is separated from the node keyed by S_KEY, which holds tablet-9.
    provoke: async (s) => [
      ...(await node(s, '_insert', { ...member(m('ann')), ids: [device('tablet-9')] })),
      ...(await node(s, '_upsert', { ...member(m('ann')), where: device('none'), set: device('tablet-9') })),
      ...(await bulk(s, [line('insert', { ...member(m('ann')), ids: [device('tablet-9')] }), line('insert', { ...member(m('ann')), ids: [cookie('c-9')] })])),
      ...(await node(s, '_insert', { ...contact(S_KEY), ids: [device('tablet-ann')] }, asAdmin)),
    ],
  },
  separation_not_found: { provoke: (s) => separate(s, 'DELETE', { nodes: [contact(S_KEY), contact(S_OTHER)] }) },
  invalid_cursor: {
    // The cursor is the caller's own text: the detail does not repeat it.
    provoke: (s) => call(s, 'GET', `/v1/${s.customer}/_changes?after=${encodeURIComponent(S_KEY.slice(0, 60))}`, asAdmin),
  },
  cursor_expired: {
    cannotNameAnId: 'a cursor behind what retention deleted; its detail is fixed words and names the setting (src/domain/changes.ts)',
  },
  customer_not_empty: {
    cannotNameAnId: 'an import into a customer that holds data; its detail is fixed words (src/store/sqlite/sqlite-import.ts, src/store/neo4j/neo4j-import.ts)',
  },
  import_in_progress: {
    cannotNameAnId: 'a request to a customer an import is writing to; its detail is fixed words',
  },
  invalid_import: {
    provoke: async (s) => {
      const header = JSON.stringify({ kind: 'export', format: 1, customer_id: s.customer, cursor: 'c1-aaaaaaaaaaaaaaaa' });
      const schema = JSON.stringify({ kind: 'schema', schema_id: 'contact', id_types: [{ type: 'email', secure: true, links: true }] });
      const bodies = [
        // A type the node's schema does not declare, a broken line, and a node out of order, each holding the value.
        [header, schema, JSON.stringify({ kind: 'node', schema: 'contact', key: email(S_KEY), ids: [ssn(S_KEY)] })],
        [header, `{"kind":"node","schema":"contact","key":{"type":"email","id":"${S_KEY}"`],
        [
          header,
          schema,
          JSON.stringify({ kind: 'node', schema: 'contact', key: email(`${S_KEY}z`), ids: [] }),
          JSON.stringify({ kind: 'node', schema: 'contact', key: email(S_KEY), ids: [] }),
        ],
      ];
      const refusals: Refusal[] = [];
      for (const [i, lines] of bodies.entries()) {
        const res = await fetch(`${s.app.baseUrl}/v1/${s.customer}-import-${i}/_import`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/x-ndjson' },
          body: lines.join('\n'),
        });
        const text = await res.text();
        refusals.push({
          status: res.status,
          code: (JSON.parse(text) as { code?: unknown }).code,
          text,
          requestId: res.headers.get('x-request-id') ?? undefined,
        });
      }
      return refusals;
    },
  },
  cap_reached: {
    provoke: async (s) => {
      const condition = buildCondition({ trigger: { event_name: ['app_open'], period: [{ start: '2026-01-01T00:00:00Z', end: '2027-01-01T00:00:00Z' }] } });
      const { delivery_id } = await postDelivery(s.app, s.mapi, buildDelivery({ condition: { ...condition, max_total_count: 1 } }));
      const impression = () =>
        s.app.call('POST', `/v1/delivery/${delivery_id}/_impression`, {
          ...asMapi(s.mapi, { user: email(S_HELD), at: '2026-06-15T12:00:00Z' }),
          token: s.bearer,
        });
      expect((await impression()).status).toBe(201);
      return [refusalOf(await impression())];
    },
  },
  payload_too_large: {
    provoke: async (s) => {
      const padded = { ...contact(S_KEY), ids: [device(S_KEY)], pad: 'x'.repeat(1024 * 1024) };
      return [...(await node(s, '_create', padded)), ...(await bulk(s, [line('create', padded)]))];
    },
  },
  unsupported_media_type: {
    provoke: (s) => node(s, '_create', JSON.stringify(contact(S_KEY)), { headers: { 'Content-Type': 'text/plain' } }),
  },
  component_too_large: {
    // The node keyed by S_KEY and three members hold cookie c-9: four nodes, past TRAVERSAL_MAX_NODES.
    provoke: (s) => search(s, buildSearch({ where: cookie('c-9') }, { step: 'ALL' })),
  },
  answer_too_large: {
    cannotNameAnId:
      'refused by the size of an answer before it is built; its detail names RESPONSE_MEMORY_LIMIT and what to ask for instead (src/http/answer-memory.ts)',
  },
  rate_limited: {
    cannotNameAnId: 'the limiter refuses by a count before any route reads the request; its detail is the seconds to wait (src/http/rate-limit.ts)',
  },
  request_timeout: {
    cannotNameAnId:
      'a body or a _bulk line too slow to arrive is refused by the time it took, never by what arrived; its detail names the limit (src/http/middleware.ts, server.ts, routes/bulk.ts)',
  },
  expectation_failed: {
    provoke: (s) => {
      const body = JSON.stringify(buildSearch({ where: email(S_KEY) }));
      return rawExchange(
        s,
        `POST /v1/${s.customer}/_search HTTP/1.1\r\nHost: x\r\nExpect: ${S_KEY}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
    },
  },
  headers_too_large: {
    provoke: (s) => rawExchange(s, `POST /v1/${s.customer}/_search HTTP/1.1\r\nHost: x\r\nX-Key: ${S_KEY.repeat(800)}\r\nContent-Length: 0\r\n\r\n`),
  },
  server_busy: {
    cannotNameAnId:
      'refused for memory or slots that others hold, before the request is read; its detail names the setting and when to retry (src/http/admission.ts, answer-memory.ts, bulk-slots.ts)',
  },
  store_unavailable: { cannotNameAnId: 'the store did not answer; its detail says so in fixed words, and so does the log line it makes (src/store/**)' },
  internal_error: {
    cannotNameAnId:
      'a fault of ours, answered with fixed words; test/api/unhandled-error-log.test.ts forces one on each store with a secure value and checks the answer and the log',
  },
};

/** The members of the ErrorCode union as errors.ts writes them. */
function errorCodesInSource(): string[] {
  const source = fs.readFileSync(path.join(__dirname, '..', '..', 'src', 'domain', 'errors.ts'), 'utf8');
  const union = /export type ErrorCode =([^;]*);/.exec(source)?.[1] ?? '';
  return [...union.matchAll(/'([a-z_]+)'/g)].map((match) => match[1] as string);
}

/** Every way a secure value could be spelled in a body, a header or a log line. */
const spellings = (secret: string): string[] => [secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)];

describe('no refusal holds a secure value', () => {
  let setting: Setting;

  beforeAll(async () => {
    const app = await startApp({ env: ENV });
    const customer = uniqueCustomer('refusals');
    await putSchema(app, customer, 'member', MEMBER);
    await putSchema(app, customer, 'contact', CONTACT);
    await createNode(app, customer, { ...member(m('ann')), ids: [device('tablet-ann')] });
    await createNode(app, customer, { ...member(m('bob')), ids: [device('d-bob'), email(S_HELD), ssn(S_SSN)] }, ADMIN_TOKEN);
    await createNode(app, customer, { ...contact(S_KEY), ids: [device('tablet-9'), cookie('c-9')] }, ADMIN_TOKEN);
    await createNode(app, customer, { ...contact(S_OTHER), ids: [email(S_KEY)] }, ADMIN_TOKEN);
    for (const n of ['n-1', 'n-2', 'n-3']) await createNode(app, customer, { ...member(m(n)), ids: [cookie('c-9')] });
    const separated = await app.call('POST', `/v1/${customer}/_separate`, {
      ...asAdmin,
      body: { nodes: [member(m('ann')), contact(S_KEY)], remove_shared_from: 'none' },
    });
    expect(separated.status).toBe(200);
    const blocked = await app.call('PUT', `/v1/${customer}/blocklist`, { ...asAdmin, body: { rules: [{ type: 'email', values: [S_BLOCKED] }] } });
    expect(blocked.status).toBe(200);
    const other = uniqueCustomer('refusals-other');
    await putSchema(app, other, 'member', MEMBER);
    setting = {
      app,
      customer,
      bearer: (await issueToken(app, customer)).token,
      mapi: (await issueToken(app, customer, 'mapi')).token,
      foreignBearer: (await issueToken(app, other)).token,
    };
  });
  afterAll(() => setting.app.close());

  test('when errors.ts has an error code, then this suite has an entry for it, and no entry names a code errors.ts lacks', () => {
    expect(Object.keys(CASES).sort()).toEqual(errorCodesInSource().sort());
    expect(Object.keys(CASES).length).toBeGreaterThan(30);
  });

  const provoked = Object.entries(CASES).flatMap(([code, entry]) => ('provoke' in entry ? [[code, entry.provoke] as const] : []));
  const explained = Object.entries(CASES).flatMap(([code, entry]) => ('cannotNameAnId' in entry ? [[code, entry.cannotNameAnId] as const] : []));

  test.each(provoked)('when %s is provoked beside secure IDs, then every refusal is that code and holds no secure value', async (code, provoke) => {
    const refusals = await provoke(setting);
    expect(refusals.length).toBeGreaterThan(0);
    for (const refusal of refusals) {
      expect([code, refusal.code, refusal.status]).toEqual([code, code, expect.any(Number)]);
      expect(refusal.status).toBeGreaterThanOrEqual(400);
      for (const secret of SECRETS) {
        for (const spelled of spellings(secret))
          expect({ code, spelled, leakedIn: refusal.text.includes(spelled) ? refusal.text : false }).toEqual({ code, spelled, leakedIn: false });
      }
    }
  });

  test.each(explained)('when %s cannot be provoked by one request, then its entry says why it cannot name an ID', (_code, why) => {
    expect(why.length).toBeGreaterThan(40);
  });

  test('when a separated node is keyed by a secure ID, then separated_nodes still names it, by its type and schema', async () => {
    const [refusal] = await node(setting, '_insert', { ...member(m('ann')), ids: [device('tablet-9')] });
    expect(JSON.parse(refusal?.text ?? '{}')).toMatchObject({
      code: 'separated_nodes',
      detail:
        "The nodes with keys email (secure) in schema 'contact' and member_id=ann in schema 'member' are separated (_separate); they may not hold a common ID, and nothing was written.",
    });
  });

  test('when every refusal above was answered, then the log holds no secure value either', async () => {
    const refusals: Refusal[] = [];
    for (const provoke of provoked.map(([, p]) => p)) refusals.push(...(await provoke(setting)));
    // Each request's last log line is written when its answer is finished: wait for every one.
    const requestIds = [...new Set(refusals.flatMap((r) => (r.requestId === undefined ? [] : [r.requestId])))];
    expect(requestIds.length).toBeGreaterThan(provoked.length);
    await untilAccessLogged(setting.app, requestIds);
    const logs = setting.app.logs.join('\n');
    expect(logs.length).toBeGreaterThan(0);
    for (const secret of SECRETS) for (const spelled of spellings(secret)) expect(logs.includes(spelled)).toBe(false);
  });
});
