// The attacks of the second adversarial review that have no process test of their own, scaled down and run
// against the real server (`node dist/main.js`, built by jest's globalSetup) on a fresh SQLite file: an ALL search
// and graph from a `links: false` ID many nodes hold, a mapi token alone asking about a secure ID, spellings of
// blocked values, the order of nodes whose keys are hidden, and idempotency keys and `_bulk` encodings. One server
// serves the file; each test has a customer of its own.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { deflateSync, gzipSync } from 'node:zlib';
import { VARIANT_RULES, VARIANTS } from '../helpers/blocklist-variants';
import { buildCondition, buildDelivery } from '../helpers/deliveries';
import { type ServerProcess, startServer } from '../helpers/server-process';

const ADMIN = 'review-probes-admin-token-0123456789';
const AT = '2026-06-15T12:00:00Z';

type IdPair = { type: string; id: string };
const id = (type: string, value: string): IdPair => ({ type, id: value });

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

let server: ServerProcess;
let base: string;
let dir: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'idlink-review-probes-'));
  ({ server, base } = await startServer(
    { PORT: '0', HOST: '127.0.0.1', SQLITE_PATH: path.join(dir, 'idlink.sqlite'), ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'info' },
    dir,
  ));
});

afterAll(async () => {
  if (server && server.child.exitCode === null && server.child.signalCode === null) {
    server.child.kill('SIGKILL');
    await server.exited;
  }
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** A request with the bearer `token` and/or the `mapi` token; a JSON body unless `raw` is given. */
async function call(
  method: string,
  url: string,
  options: { token?: string; mapi?: string; body?: unknown; raw?: Buffer | string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {
    ...(options.token ? { Authorization: `Bearer ${options.token}` } : {}),
    ...(options.mapi ? { 'X-SERVICE-MAPI-TOKEN': options.mapi } : {}),
    ...(options.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
    ...options.headers,
  };
  const body = options.raw ?? (options.body !== undefined ? JSON.stringify(options.body) : undefined);
  const res = await fetch(`${base}${url}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** Fails with the answer unless its status is `status`; returns its JSON. */
async function expectStatus<T = unknown>(answer: Promise<Answer>, status: number): Promise<T> {
  const res = await answer;
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${res.text}`);
  return res.json as T;
}

const code = (res: Answer): unknown => (res.json as { code?: unknown } | undefined)?.code;

let customers = 0;
const customer = (what: string): string => `probe-${what}-${process.pid}-${(customers += 1)}`;

async function putSchema(c: string, idTypes: Array<{ type: string; secure?: boolean; links?: boolean }>): Promise<void> {
  await expectStatus(call('PUT', `/v1/${c}/schema/member`, { token: ADMIN, body: { id_types: idTypes } }), 201);
}

async function issue(c: string, kind: 'bearer' | 'mapi'): Promise<string> {
  return (await expectStatus<{ token: string }>(call('POST', `/v1/${c}/token`, { token: ADMIN, body: { kind } }), 201)).token;
}

async function create(c: string, key: IdPair, ids: IdPair[], token = ADMIN): Promise<void> {
  await expectStatus(call('POST', `/v1/${c}/node/_create`, { token, body: { schema: 'member', key, ids } }), 201);
}

/** A delivery shown on app_open around AT, with caps no test here reaches. */
async function showable(mapi: string): Promise<number> {
  const body = buildDelivery({
    condition: buildCondition({
      trigger: { event_name: ['app_open'], period: [{ start: '2026-01-01T00:00:00Z', end: '2027-01-01T00:00:00Z' }] },
      max_delivery_count: 1000,
      max_total_count: 1000,
      max_total_count_per_day: 1000,
    }),
  });
  return (await expectStatus<{ delivery_id: number }>(call('POST', '/v1/delivery', { mapi, body }), 201)).delivery_id;
}

const deliveryCount = async (mapi: string, deliveryId: number): Promise<number> =>
  (await expectStatus<{ condition: { delivery_count: number } }>(call('GET', `/v1/delivery/${deliveryId}`, { mapi }), 200)).condition.delivery_count;

interface GraphNode {
  schema: string;
  key: { type: string; id: string | null };
  ids: IdPair[];
}
interface GraphAnswer {
  nodes: GraphNode[];
  truncated: boolean;
}

describe('the second review, scaled down, against the real server', () => {
  test('when 200 nodes each hold device:shared and ip:hot (ip links: false), then search ALL and _graph step ALL from ip:hot answer 200 with the whole component', async () => {
    const c = customer('hot');
    await putSchema(c, [{ type: 'member_id' }, { type: 'device' }, { type: 'ip', links: false }]);
    const members = Array.from({ length: 200 }, (_, i) => `m${String(i).padStart(3, '0')}`);
    const lines = members.map((m) =>
      JSON.stringify({ op: 'create', body: { schema: 'member', key: id('member_id', m), ids: [id('device', 'shared'), id('ip', 'hot')] } }),
    );
    const bulk = await call('POST', `/v1/${c}/node/_bulk`, { token: ADMIN, raw: lines.join('\n'), headers: { 'Content-Type': 'application/x-ndjson' } });
    expect(bulk.status).toBe(200);
    expect(bulk.text.split('\n').filter((l) => l && !l.includes('"status":201'))).toEqual([]);
    const from = { schema: 'member', where: id('ip', 'hot') };

    const search = await call('POST', `/v1/${c}/_search`, { body: { match: { from, step: 'ALL' } } });
    expect(search.status).toBe(200);
    const found = search.json as { results: IdPair[]; total: number };
    // Every member id, the shared device and the hot ip, each once.
    expect(found.total).toBe(202);
    expect(new Set(found.results.map((r) => `${r.type}:${r.id}`))).toEqual(new Set(['device:shared', 'ip:hot', ...members.map((m) => `member_id:${m}`)]));

    const graph = await call('POST', `/v1/${c}/_graph`, { body: { match: { from, step: 'ALL' } } });
    expect(graph.status).toBe(200);
    const drawn = graph.json as GraphAnswer;
    expect(drawn.truncated).toBe(false);
    expect(drawn.nodes.map((n) => n.key.id)).toEqual(members);
    expect(drawn.nodes.every((n) => n.ids.length === 3)).toBe(true);
  });

  test('when only a mapi token is sent for a user of a secure type, then _eligible (explain) and _impression are 401 authentication_required for a linked and an unknown e-mail alike, and nothing is counted', async () => {
    const c = customer('mapi');
    await putSchema(c, [{ type: 'member_id' }, { type: 'email', secure: true }]);
    const mapi = await issue(c, 'mapi');
    const bearer = await issue(c, 'bearer');
    const deliveryId = await showable(mapi);
    const linked = id('email', 'ann@example.com');
    const unknown = id('email', 'nobody@example.com');
    await create(c, id('member_id', 'ann'), [linked], bearer);
    // Ann is shown it once through her member id: a leak would answer person_total 2 for her e-mail and 1 for the other.
    await expectStatus(call('POST', `/v1/delivery/${deliveryId}/_impression`, { mapi, body: { user: id('member_id', 'ann'), at: AT } }), 201);

    const answers: Record<string, unknown[]> = {};
    for (const [name, user] of [
      ['linked', linked],
      ['unknown', unknown],
    ] as const) {
      const asked = await call('POST', '/v1/delivery/_eligible', { mapi, body: { user, event_name: 'app_open', at: AT, explain: true } });
      const counted = await call('POST', `/v1/delivery/${deliveryId}/_impression`, { mapi, body: { user, at: AT, idempotency_key: `k-${name}` } });
      for (const res of [asked, counted]) {
        expect([res.status, code(res)]).toEqual([401, 'authentication_required']);
        expect(res.text).not.toContain('@example.com');
      }
      answers[name] = [asked, counted].map((res) => ({ ...(res.json as object), request_id: undefined }));
    }
    expect(answers.linked).toEqual(answers.unknown);
    expect(await deliveryCount(mapi, deliveryId)).toBe(1);

    // With the bearer token the same keys are new (nothing was stored under them), and Ann's count goes on from 1.
    const again = await call('POST', `/v1/delivery/${deliveryId}/_impression`, {
      mapi,
      token: bearer,
      body: { user: linked, at: AT, idempotency_key: 'k-linked' },
    });
    expect([again.status, again.headers.get('idempotent-replayed'), again.json]).toEqual([
      201,
      null,
      { delivery_id: deliveryId, delivery_count: 2, person_total: 2, person_today: 2 },
    ]);
    const other = await call('POST', `/v1/delivery/${deliveryId}/_impression`, {
      mapi,
      token: bearer,
      body: { user: unknown, at: AT, idempotency_key: 'k-unknown' },
    });
    expect([other.status, other.headers.get('idempotent-replayed'), (other.json as { person_total: number }).person_total]).toEqual([201, null, 1]);
  });

  test(`when a blocklist holds test@test.com and admin (ignore_case) and the pattern 0+, then each of the ${VARIANTS.length} spellings that showed the same is refused 422 blocked_id on a create, and nothing is made`, async () => {
    const c = customer('block');
    await putSchema(c, [{ type: 'member_id' }, { type: 'device' }, { type: 'email', secure: true }]);
    await expectStatus(call('PUT', `/v1/${c}/blocklist`, { token: ADMIN, body: { rules: VARIANT_RULES } }), 200);

    const refused: string[] = [];
    for (const [index, [what, type, value]] of VARIANTS.entries()) {
      const key = type === 'member_id' ? id(type, value) : id('member_id', `holder-${index}`);
      const ids = type === 'member_id' ? [] : [id(type, value)];
      const res = await call('POST', `/v1/${c}/node/_create`, { token: ADMIN, body: { schema: 'member', key, ids } });
      if (res.status === 422 && code(res) === 'blocked_id') refused.push(what);
      else process.stdout.write(`blocklist variant ${what}: ${res.status} ${res.text}\n`);
    }
    expect(refused).toEqual(VARIANTS.map(([what]) => what));

    // No node holds any of the values, and every holder key is still free.
    for (const [, type, value] of VARIANTS) {
      const found = await expectStatus<{ total: number }>(
        call('POST', `/v1/${c}/_search`, { token: ADMIN, body: { match: { from: { where: id(type, value) }, step: 'ALL' } } }),
        200,
      );
      expect(found.total).toBe(0);
    }
    for (const index of VARIANTS.keys()) await create(c, id('member_id', `holder-${index}`), [id('device', `fine-${index}`)]);
  });

  test('when an anonymous _graph answers a level of nodes keyed by a secure type, then their order stays the same whatever their hidden key values, which order them for a token', async () => {
    const c = customer('order');
    await putSchema(c, [{ type: 'member_id' }, { type: 'device' }, { type: 'email', secure: true }]);
    // Each node also holds a tag, an open ID, so an anonymous answer tells the nodes apart.
    for (const [value, tag] of [
      ['b@example.com', 'tag-b'],
      ['c@example.com', 'tag-c'],
      ['a@example.com', 'tag-a'],
    ] as const) {
      await create(c, id('email', value), [id('device', 'shared'), id('device', tag)]);
    }
    const body = { match: { from: { where: id('device', 'shared') }, step: 'ONE' } };
    const tagOf = (n: GraphNode): string => n.ids.find((i) => i.id.startsWith('tag-'))?.id ?? '?';
    /** The nodes' tags in the order the administrator token is answered, which shows the keys. */
    const tags = async (): Promise<string[]> =>
      (await expectStatus<GraphAnswer>(call('POST', `/v1/${c}/_graph`, { token: ADMIN, body }), 200)).nodes.map(tagOf);
    const anonymous = async (): Promise<{ tags: string[]; keys: Array<string | null> }> => {
      const answer = await expectStatus<GraphAnswer>(call('POST', `/v1/${c}/_graph`, { body }), 200);
      return { tags: answer.nodes.map(tagOf), keys: answer.nodes.map((n) => n.key.id) };
    };

    expect(await tags()).toEqual(['tag-a', 'tag-b', 'tag-c']);
    const before = await anonymous();
    expect(before.keys).toEqual([null, null, null]);
    expect([...before.tags].sort()).toEqual(['tag-a', 'tag-b', 'tag-c']);

    // b moves past c in value order: where it is answered anonymously must not move with it.
    await expectStatus(
      call('POST', `/v1/${c}/node/_rekeying`, { token: ADMIN, body: { schema: 'member', key: id('email', 'b@example.com'), set: { id: 'd@example.com' } } }),
      200,
    );
    expect(await tags()).toEqual(['tag-a', 'tag-c', 'tag-b']);
    expect((await anonymous()).tags).toEqual(before.tags);
  });

  test('when a user with an idempotent impression is erased, then the same impression with the same key is counted anew, not replayed', async () => {
    const c = customer('erase');
    await putSchema(c, [{ type: 'member_id' }, { type: 'device' }]);
    const mapi = await issue(c, 'mapi');
    const bearer = await issue(c, 'bearer');
    const deliveryId = await showable(mapi);
    await create(c, id('member_id', 'ann'), [id('device', 'ann-phone')]);
    const shown = () =>
      call('POST', `/v1/delivery/${deliveryId}/_impression`, { mapi, body: { user: id('device', 'ann-phone'), at: AT, idempotency_key: 'shown-1' } });

    const first = await shown();
    expect([first.status, first.headers.get('idempotent-replayed'), first.json]).toEqual([
      201,
      null,
      { delivery_id: deliveryId, delivery_count: 1, person_total: 1, person_today: 1 },
    ]);
    const replayed = await shown();
    expect([replayed.status, replayed.headers.get('idempotent-replayed'), replayed.json]).toEqual([201, 'true', first.json]);

    expect(await expectStatus(call('POST', `/v1/${c}/_erase`, { token: bearer, body: { id: id('device', 'ann-phone'), scope: 'person' } }), 200)).toEqual({
      nodes_deleted: 1,
      ids_removed: 0,
    });

    const anew = await shown();
    expect([anew.status, anew.headers.get('idempotent-replayed'), anew.json]).toEqual([
      201,
      null,
      { delivery_id: deliveryId, delivery_count: 2, person_total: 1, person_today: 1 },
    ]);
    expect(await deliveryCount(mapi, deliveryId)).toBe(2);
  });

  test('when a _bulk body is sent with Content-Encoding gzip, then its lines are inflated and applied one by one; with Content-Encoding deflate, then 415 and no line is applied', async () => {
    const c = customer('bulk-gzip');
    await putSchema(c, [{ type: 'member_id' }]);
    const line = (m: string) => JSON.stringify({ op: 'create', body: { schema: 'member', key: id('member_id', m) } });
    const bulk = (raw: Buffer, encoding: string) =>
      call('POST', `/v1/${c}/node/_bulk`, { token: ADMIN, raw, headers: { 'Content-Type': 'application/x-ndjson', 'Content-Encoding': encoding } });

    const gzipped = await bulk(gzipSync(`${[line('g1'), line('g1'), line('g2')].join('\n')}\n`), 'gzip');
    expect(gzipped.status).toBe(200);
    const results = gzipped.text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { line: number; status: number; code?: string });
    expect(results.map((r) => [r.line, r.status, r.code])).toEqual([
      [1, 201, undefined],
      [2, 409, 'node_exists'],
      [3, 201, undefined],
    ]);

    const deflated = await bulk(deflateSync(`${line('d1')}\n`), 'deflate');
    expect([deflated.status, code(deflated)]).toEqual([415, 'unsupported_media_type']);

    // g1 and g2 exist; d1 does not.
    for (const [m, status] of [
      ['g1', 409],
      ['g2', 409],
      ['d1', 201],
    ] as const) {
      expect((await call('POST', `/v1/${c}/node/_create`, { token: ADMIN, body: { schema: 'member', key: id('member_id', m) } })).status).toBe(status);
    }
  });
});
