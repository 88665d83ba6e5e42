// What an operator relies on: Prometheus metrics (labelled by route templates, never by what clients send),
// the contract served as /openapi.yaml, Swagger UI at /docs from the service itself, and optional rate limiting.
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { ADMIN_TOKEN, startApp, type TestApp } from '../helpers/app';
import { expectProblem, revokeToken, uniqueCustomer, unknownToken } from '../helpers/builders-auth';
import { asMapi, buildDelivery, postDelivery } from '../helpers/deliveries';
import { createNode, issueToken, putSchema } from '../helpers/factories';

const CONTRACT_FILE = path.resolve(__dirname, '../../openapi.yaml');

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition; throws on a line that is neither a comment nor a sample. */
function parseExposition(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!match) throw new Error(`not a Prometheus sample line: ${line}`);
      const labels: Record<string, string> = {};
      for (const [, name, value] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
        labels[name as string] = value as string;
      }
      return { name: match[1] as string, labels, value: Number(match[3]) };
    });
}

async function scrape(app: TestApp): Promise<{ text: string; samples: Sample[] }> {
  const res = await app.call('GET', '/metrics');
  expect(res.status).toBe(200);
  return { text: res.text, samples: parseExposition(res.text) };
}

/** The value of the one sample of `name` whose labels include `labels`; undefined when there is none. */
function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

const schemaWithSecureEmail = { id_types: [{ type: 'member_id' }, { type: 'device' }, { type: 'email', secure: true }] };

describe('GET /metrics', () => {
  let app: TestApp;
  beforeEach(async () => {
    app = await startApp();
  });
  afterEach(() => app.close());

  test('when it is scraped, then it answers the Prometheus text format with HELP and TYPE lines and process metrics', async () => {
    const res = await app.call('GET', '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.text).toMatch(/^# HELP idlink_http_requests_total /m);
    expect(res.text).toMatch(/^# TYPE idlink_http_requests_total counter$/m);
    expect(res.text).toMatch(/^# TYPE idlink_http_request_duration_seconds histogram$/m);
    expect(res.text).toMatch(/^# TYPE idlink_store_operation_duration_seconds histogram$/m);
    expect(res.text).toMatch(/^# TYPE idlink_search_traversal_nodes histogram$/m);
    const samples = parseExposition(res.text);
    expect(valueOf(samples, 'idlink_process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  test('when requests have been served, then counts and latencies are labelled by route template, method and status', async () => {
    const customer = uniqueCustomer('ops');
    await putSchema(app, customer, 'member', schemaWithSecureEmail);
    await createNode(app, customer, { schema: 'member', key: { type: 'member_id', id: 'm-1' } });
    await createNode(app, customer, { schema: 'member', key: { type: 'member_id', id: 'm-2' } });
    expect((await app.call('POST', `/v1/${customer}/node/_create`, { body: { schema: 'member', key: { type: 'member_id', id: 'm-1' } } })).status).toBe(409);
    expect((await app.call('GET', `/v1/${customer}/schema/member`, { token: ADMIN_TOKEN })).status).toBe(200);
    expect((await app.call('GET', `/v1/${customer}/no-such-thing`)).status).toBe(404);

    const { samples } = await scrape(app);
    const create = { method: 'POST', route: '/v1/:customer_id/node/_create' };
    expect(valueOf(samples, 'idlink_http_requests_total', { ...create, status: '201' })).toBe(2);
    expect(valueOf(samples, 'idlink_http_requests_total', { ...create, status: '409' })).toBe(1);
    expect(valueOf(samples, 'idlink_http_requests_total', { method: 'PUT', route: '/v1/:customer_id/schema/:schema_id', status: '201' })).toBe(1);
    expect(valueOf(samples, 'idlink_http_requests_total', { method: 'GET', route: '/v1/:customer_id/schema/:schema_id', status: '200' })).toBe(1);
    expect(valueOf(samples, 'idlink_http_requests_total', { method: 'GET', route: '(unmatched)', status: '404' })).toBe(1);
    expect(valueOf(samples, 'idlink_http_request_duration_seconds_count', { ...create, status: '201' })).toBe(2);
    expect(valueOf(samples, 'idlink_http_request_duration_seconds_bucket', { ...create, status: '201', le: '+Inf' })).toBe(2);
    expect(valueOf(samples, 'idlink_http_request_duration_seconds_sum', { ...create, status: '201' })).toBeGreaterThan(0);

    const routes = new Set(samples.filter((s) => s.name.startsWith('idlink_http_')).map((s) => s.labels.route));
    for (const route of routes) expect(route).toMatch(/^(\(unmatched\)|\/[a-z0-9_/:]*)$/);
    expect([...routes].some((route) => route?.includes(customer))).toBe(false);
  });

  test('when Swagger UI files are served, then they are counted under one template, not as unmatched', async () => {
    const before = valueOf((await scrape(app)).samples, 'idlink_http_requests_total', { method: 'GET', route: '/docs/:asset', status: '200' }) ?? 0;
    expect((await request(app.baseUrl).get('/docs/swagger-ui.css')).status).toBe(200);
    expect((await request(app.baseUrl).get('/docs/')).status).toBe(200);
    const { samples } = await scrape(app);
    expect(valueOf(samples, 'idlink_http_requests_total', { method: 'GET', route: '/docs/:asset', status: '200' })).toBe(before + 2);
    expect(app.logs.some((l) => l.includes('"route":"/docs/:asset"'))).toBe(true);
  });

  test('when the store has been used, then its operations are timed by name and outcome, and search traversal sizes are recorded', async () => {
    const customer = uniqueCustomer('ops');
    await putSchema(app, customer, 'member', schemaWithSecureEmail);
    await createNode(app, customer, { schema: 'member', key: { type: 'member_id', id: 'm-1' }, ids: [{ type: 'device', id: 'd-shared' }] });
    await createNode(app, customer, { schema: 'member', key: { type: 'member_id', id: 'm-2' }, ids: [{ type: 'device', id: 'd-shared' }] });
    await createNode(app, customer, { schema: 'member', key: { type: 'member_id', id: 'm-3' } });
    expect((await app.call('POST', `/v1/${customer}/node/_create`, { body: { schema: 'member', key: { type: 'member_id', id: 'm-3' } } })).status).toBe(409);
    const search = await app.call('POST', `/v1/${customer}/_search`, {
      body: { match: { from: { schema: 'member', key: { type: 'member_id', id: 'm-1' } } } },
    });
    expect(search.status).toBe(200);

    const { samples } = await scrape(app);
    expect(valueOf(samples, 'idlink_store_operation_duration_seconds_count', { operation: 'createNode', outcome: 'ok' })).toBe(3);
    expect(valueOf(samples, 'idlink_store_operation_duration_seconds_count', { operation: 'createNode', outcome: 'error' })).toBe(1);
    expect(valueOf(samples, 'idlink_store_operation_duration_seconds_count', { operation: 'search', outcome: 'ok' })).toBe(1);
    // The search from m-1 visits m-1 and m-2 (linked through d-shared), not m-3.
    expect(valueOf(samples, 'idlink_search_traversal_nodes_count')).toBe(1);
    expect(valueOf(samples, 'idlink_search_traversal_nodes_sum')).toBe(2);
    expect(valueOf(samples, 'idlink_search_traversal_nodes_bucket', { le: '2' })).toBe(1);
    expect(valueOf(samples, 'idlink_search_traversal_nodes_bucket', { le: '1' })).toBe(0);
  });

  test('when requests carry customer ids, ID values, secure e-mails, tokens and request ids, then none of them appears anywhere in /metrics', async () => {
    const customer = uniqueCustomer('zqx-tenant');
    await putSchema(app, customer, 'zqx-schema', schemaWithSecureEmail);
    const bearer = (await issueToken(app, customer, 'bearer')).token;
    const mapi = (await issueToken(app, customer, 'mapi')).token;
    const garbage = 'zqxGarbageTokenNeverIssued0123456789';
    const member = { type: 'member_id', id: 'zqx-member-8842' };
    const email = { type: 'email', id: 'zqx.person@leak.example' };
    const device = { type: 'device', id: 'zqx-device-5521' };

    await createNode(app, customer, { schema: 'zqx-schema', key: member, ids: [email] }, bearer);
    expect((await app.call('POST', `/v1/${customer}/node/_insert`, { token: bearer, body: { schema: 'zqx-schema', key: member, ids: [device] } })).status).toBe(
      201,
    );
    const found = await app.call('POST', `/v1/${customer}/_search`, { token: bearer, body: { match: { from: { where: email } } } });
    expect(found.status).toBe(200);
    expect((await app.call('POST', `/v1/${customer}/_search`, { body: { match: { from: { where: email } } } })).status).toBe(401);
    expect((await app.call('POST', `/v1/${customer}/_search`, { token: garbage, body: { match: { from: { where: device } } } })).status).toBe(401);
    const delivery = await postDelivery(app, mapi, buildDelivery({ name: 'zqx-delivery-name' }));
    expect((await app.call('GET', `/v1/delivery/${delivery.delivery_id}`, asMapi(mapi))).status).toBe(200);
    expect((await app.call('GET', '/v1/delivery?count=5&page=zqx', asMapi(mapi))).status).toBe(400);
    expect((await app.call('GET', `/v1/${customer}/zqx-unknown-path`, { headers: { 'X-Request-Id': 'zqx-request-id-1' } })).status).toBe(404);
    expect((await app.call('DELETE', `/v1/${customer}/token/zqx-token-id`, { token: ADMIN_TOKEN })).status).toBe(404);

    const { text } = await scrape(app);
    expect(text.length).toBeGreaterThan(0);
    expect(text.toLowerCase()).not.toContain('zqx');
    for (const secret of [ADMIN_TOKEN, bearer, mapi, garbage, customer, member.id, email.id, device.id, 'leak.example']) {
      expect(text).not.toContain(secret);
    }
  });
});

describe('GET /openapi.yaml', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(() => app.close());

  test('when the contract is fetched, then it is exactly openapi.yaml, served as YAML', async () => {
    const res = await app.call('GET', '/openapi.yaml');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/yaml/);
    expect(res.text).toBe(fs.readFileSync(CONTRACT_FILE, 'utf8'));
  });
});

describe('Swagger UI at /docs', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(() => app.close());

  /** The script and stylesheet URLs of an HTML page. */
  function assetUrls(html: string): string[] {
    const scripts = [...html.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1] as string);
    const stylesheets = [...html.matchAll(/<link[^>]*rel="stylesheet"[^>]*href="([^"]+)"/g)].map((m) => m[1] as string);
    return [...scripts, ...stylesheets];
  }

  test('when /docs is requested, then it redirects to /docs/', async () => {
    const res = await request(app.baseUrl).get('/docs').redirects(0);
    expect(res.status).toBe(301);
    expect(res.headers.location).toBe('/docs/');
  });

  test('when /docs/ is loaded, then it is HTML whose scripts and stylesheets all come from the service itself and answer 200', async () => {
    const page = await app.call('GET', '/docs/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const assets = assetUrls(page.text);
    expect(assets.length).toBeGreaterThanOrEqual(3);
    for (const asset of assets) expect(asset).not.toMatch(/^([a-z][a-z0-9+.-]*:|\/\/)/i);
    expect(page.text).not.toMatch(/(src|href)="(https?:)?\/\//i);

    const pageUrl = `${app.baseUrl}/docs/`;
    const resolved = assets.map((asset) => new URL(asset, pageUrl));
    for (const url of resolved) expect(url.origin).toBe(app.baseUrl);
    const names = resolved.map((url) => url.pathname);
    expect(names).toEqual(expect.arrayContaining(['/docs/swagger-ui-bundle.js', '/docs/swagger-ui.css', '/docs/swagger-initializer.js']));

    for (const url of resolved) {
      const res = await request(app.baseUrl).get(url.pathname);
      expect({ asset: url.pathname, status: res.status }).toEqual({ asset: url.pathname, status: 200 });
      expect(res.text.length).toBeGreaterThan(0);
    }
  });

  test("when the initializer runs, then it loads the service's own openapi.yaml, not a demo API", async () => {
    const res = await request(app.baseUrl).get('/docs/swagger-initializer.js');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.text).not.toMatch(/petstore|https?:\/\//i);
    const url = /\burl:\s*'([^']+)'/.exec(res.text)?.[1];
    expect(url).toBeDefined();

    // Swagger UI resolves the url against the page, /docs/.
    const contractUrl = new URL(url as string, `${app.baseUrl}/docs/`);
    expect(contractUrl.href).toBe(`${app.baseUrl}/openapi.yaml`);
    const contract = await request(app.baseUrl).get(contractUrl.pathname);
    expect(contract.status).toBe(200);
    expect(contract.text).toBe(fs.readFileSync(CONTRACT_FILE, 'utf8'));
  });
});

describe('rate limiting', () => {
  const searchBody = { match: { from: { where: { type: 'device', id: 'd-1' } } } };

  test('when RATE_LIMIT_REQUESTS is not set, then 50 quick requests of one token are all answered, none with 429', async () => {
    const customer = uniqueCustomer('ops');
    const app = await startApp();
    try {
      const bearer = (await issueToken(app, customer)).token;
      const statuses: number[] = [];
      for (let i = 0; i < 50; i += 1) statuses.push((await app.call('POST', `/v1/${customer}/_search`, { token: bearer, body: searchBody })).status);
      expect(statuses).toEqual(Array(50).fill(200));
    } finally {
      await app.close();
    }
  });

  test('when RATE_LIMIT_REQUESTS=3, then the 4th request of one token in the window is 429 rate_limited with Retry-After, while another token still gets through', async () => {
    const customer = uniqueCustomer('ops');
    const app = await startApp({ env: { RATE_LIMIT_REQUESTS: '3' } });
    try {
      const first = (await issueToken(app, customer)).token;
      const second = (await issueToken(app, customer)).token;

      const statuses: number[] = [];
      for (let i = 0; i < 3; i += 1) statuses.push((await app.call('POST', `/v1/${customer}/_search`, { token: first, body: searchBody })).status);
      expect(statuses).toEqual([200, 200, 200]);

      const limited = await app.call('POST', `/v1/${customer}/_search`, { token: first, body: searchBody });
      expectProblem(limited, 429, 'rate_limited');
      expect(limited.body).toMatchObject({ status: 429, type: 'urn:idlink:problem:rate_limited' });
      const retryAfter = String(limited.headers['retry-after']);
      expect(retryAfter).toMatch(/^[0-9]+$/);
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(retryAfter)).toBeLessThanOrEqual(60);
      // Every endpoint under /v1 counts against the same token.
      expect((await app.call('GET', `/v1/${customer}/schema`, { token: first })).status).toBe(429);

      expect((await app.call('POST', `/v1/${customer}/_search`, { token: second, body: searchBody })).status).toBe(200);
    } finally {
      await app.close();
    }
  });

  test('when RATE_LIMIT_REQUESTS=3, then a mapi token is limited on the delivery endpoints as well', async () => {
    const customer = uniqueCustomer('ops');
    const app = await startApp({ env: { RATE_LIMIT_REQUESTS: '3' } });
    try {
      const mapi = (await issueToken(app, customer, 'mapi')).token;
      const statuses: number[] = [];
      for (let i = 0; i < 4; i += 1) statuses.push((await app.call('GET', '/v1/delivery', asMapi(mapi))).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
    } finally {
      await app.close();
    }
  });

  test('when RATE_LIMIT_REQUESTS=3, then requests without a token are limited per client IP, and a token-bearing request still gets through', async () => {
    const customer = uniqueCustomer('ops');
    const app = await startApp({ env: { RATE_LIMIT_REQUESTS: '3' } });
    try {
      const bearer = (await issueToken(app, customer)).token;
      const statuses: number[] = [];
      // Anonymous requests to different customers and endpoints share the caller's IP budget.
      statuses.push((await app.call('POST', `/v1/${customer}/_search`, { body: searchBody })).status);
      statuses.push((await app.call('POST', `/v1/${uniqueCustomer('other')}/_search`, { body: searchBody })).status);
      statuses.push((await app.call('POST', `/v1/${customer}/node/_create`, { body: { schema: 'member', key: { type: 'member_id', id: 'm-1' } } })).status);
      statuses.push((await app.call('POST', `/v1/${customer}/_search`, { body: searchBody })).status);
      expect(statuses).toEqual([200, 200, 404, 429]);

      const limited = await app.call('POST', `/v1/${uniqueCustomer('third')}/_search`, { body: searchBody });
      expectProblem(limited, 429, 'rate_limited');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);

      expect((await app.call('POST', `/v1/${customer}/_search`, { token: bearer, body: searchBody })).status).toBe(200);
    } finally {
      await app.close();
    }
  });

  /** Runs `body` against an app that allows 3 requests per identity per window. */
  async function withLimit(body: (app: TestApp, customer: string) => Promise<void>): Promise<void> {
    const app = await startApp({ env: { RATE_LIMIT_REQUESTS: '3' } });
    try {
      await body(app, uniqueCustomer('ops'));
    } finally {
      await app.close();
    }
  }

  test('when each anonymous search carries a made-up X-SERVICE-MAPI-TOKEN, then they still share the address budget and the 4th is 429', async () => {
    await withLimit(async (app, customer) => {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i += 1) {
        statuses.push((await app.call('POST', `/v1/${customer}/_search`, { body: searchBody, headers: { 'X-SERVICE-MAPI-TOKEN': unknownToken() } })).status);
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
    });
  });

  test('when each delivery request carries a made-up Authorization beside a valid mapi token, then they still count against that mapi token and the 4th is 429', async () => {
    await withLimit(async (app, customer) => {
      const mapi = (await issueToken(app, customer, 'mapi')).token;
      const statuses: number[] = [];
      for (let i = 0; i < 4; i += 1) {
        statuses.push((await app.call('GET', '/v1/delivery', { headers: { 'X-SERVICE-MAPI-TOKEN': mapi, Authorization: `Bearer ${unknownToken()}` } })).status);
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
    });
  });

  test('when one token is sent as "Bearer X", "bearer X", "Bearer  X" and "BEARER X ", then all four spellings share its budget and the 4th is 429', async () => {
    await withLimit(async (app, customer) => {
      const bearer = (await issueToken(app, customer)).token;
      const statuses: number[] = [];
      for (const authorization of [`Bearer ${bearer}`, `bearer ${bearer}`, `Bearer  ${bearer}`, `BEARER ${bearer} `]) {
        statuses.push((await app.call('POST', `/v1/${customer}/_search`, { body: searchBody, headers: { Authorization: authorization } })).status);
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
    });
  });

  test('when the administrator token is sent in different spellings, then they share one budget and the 4th is 429', async () => {
    await withLimit(async (app, customer) => {
      const statuses: number[] = [];
      for (const authorization of [`Bearer ${ADMIN_TOKEN}`, `bearer ${ADMIN_TOKEN}`, `Bearer  ${ADMIN_TOKEN}`, `BEARER ${ADMIN_TOKEN}`]) {
        statuses.push((await app.call('GET', `/v1/${customer}/schema`, { headers: { Authorization: authorization } })).status);
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
    });
  });

  test('when each request carries a different unknown or malformed token, then each 401 counts against the address and the 4th is 429', async () => {
    await withLimit(async (app, customer) => {
      const statuses: number[] = [];
      statuses.push((await app.call('POST', `/v1/${customer}/_search`, { token: unknownToken(), body: searchBody })).status);
      statuses.push((await app.call('POST', `/v1/${customer}/_search`, { headers: { Authorization: `Basic ${unknownToken()}` }, body: searchBody })).status);
      statuses.push((await app.call('GET', '/v1/delivery', asMapi(unknownToken()))).status);
      statuses.push((await app.call('POST', `/v1/${customer}/_search`, { token: unknownToken(), body: searchBody })).status);
      expect(statuses).toEqual([401, 401, 401, 429]);
      // The address is now out of budget, with or without a token that does not verify.
      expect((await app.call('POST', `/v1/${customer}/_search`, { body: searchBody })).status).toBe(429);
    });
  });

  test('when the address budget is used up, then neither an unknown nor a revoked token gets a fresh one', async () => {
    await withLimit(async (app, customer) => {
      const revoked = await issueToken(app, customer);
      await revokeToken(app, customer, revoked.token_id);
      for (let i = 0; i < 3; i += 1) expect((await app.call('POST', `/v1/${customer}/_search`, { body: searchBody })).status).toBe(200);

      expectProblem(await app.call('POST', `/v1/${customer}/_search`, { token: unknownToken(), body: searchBody }), 429, 'rate_limited');
      expectProblem(await app.call('POST', `/v1/${customer}/_search`, { token: revoked.token, body: searchBody }), 429, 'rate_limited');
      expectProblem(await app.call('GET', '/v1/delivery', asMapi(unknownToken())), 429, 'rate_limited');
    });
  });

  test('when a valid token uses up its own budget, then anonymous requests from the same address are still answered', async () => {
    await withLimit(async (app, customer) => {
      const bearer = (await issueToken(app, customer)).token;
      const statuses: number[] = [];
      for (let i = 0; i < 4; i += 1) statuses.push((await app.call('POST', `/v1/${customer}/_search`, { token: bearer, body: searchBody })).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      expect((await app.call('POST', `/v1/${customer}/_search`, { body: searchBody })).status).toBe(200);
    });
  });

  test('when rate limiting is on, then each request still looks its token up in the store once, shared by the limiter and the route', async () => {
    await withLimit(async (app, customer) => {
      const bearer = (await issueToken(app, customer)).token;
      const mapi = (await issueToken(app, customer, 'mapi')).token;
      expect((await app.call('POST', `/v1/${customer}/_search`, { token: bearer, body: searchBody })).status).toBe(200);
      expect((await app.call('POST', `/v1/${customer}/_search`, { token: bearer, body: searchBody })).status).toBe(200);
      expect((await app.call('GET', '/v1/delivery', asMapi(mapi))).status).toBe(200);
      const { samples } = await scrape(app);
      // The administrator token is recognised without the store; the three customer-token requests look up once each.
      expect(valueOf(samples, 'idlink_store_operation_duration_seconds_count', { operation: 'findActiveToken', outcome: 'ok' })).toBe(3);
    });
  });

  test('when the /v1 budget is used up, then health, readiness, metrics and docs are still answered', async () => {
    const customer = uniqueCustomer('ops');
    const app = await startApp({ env: { RATE_LIMIT_REQUESTS: '3' } });
    try {
      for (let i = 0; i < 3; i += 1) await app.call('POST', `/v1/${customer}/_search`, { body: searchBody });
      expect((await app.call('POST', `/v1/${customer}/_search`, { body: searchBody })).status).toBe(429);

      const statuses: number[] = [];
      for (let i = 0; i < 10; i += 1) {
        statuses.push((await app.call('GET', '/healthz')).status);
        statuses.push((await app.call('GET', '/readyz')).status);
      }
      statuses.push((await app.call('GET', '/metrics')).status);
      statuses.push((await app.call('GET', '/openapi.yaml')).status);
      statuses.push((await app.call('GET', '/docs/')).status);
      expect(statuses).toEqual(Array(23).fill(200));
    } finally {
      await app.close();
    }
  });
});
