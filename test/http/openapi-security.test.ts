// Every operation of openapi.yaml declares its own `security`, and what it declares is what the service does:
// Swagger UI sends a token, and generated clients type one, only where the operation says so.
import { loadContract, operations } from '../../src/http/openapi';
import { type CallOptions, startApp, type TestApp } from '../helpers/app';
import { expectAuthenticationRequired } from '../helpers/builders-auth';
import { buildDelete, buildInsert, buildRekey, buildSearch, buildUpdate, id, uniqueCustomer } from '../helpers/builders-nodesearch';
import { buildDelivery } from '../helpers/deliveries';
import { buildNode, putSchema } from '../helpers/factories';

type Security = Array<Record<string, string[]>>;

/** What each kind of operation must declare. */
const DECLARATIONS = {
  /** A bearer token is optional: needed only where a secure type is involved. */
  optionalBearer: [{ bearer: [] }, {}],
  /** The administrator token, always. */
  admin: [{ bearer: [] }],
  /** A bearer token of the customer (or the administrator token), always: history and erasure. */
  customerBearer: [{ bearer: [] }],
  /** A mapi token in X-SERVICE-MAPI-TOKEN, always. */
  mapi: [{ mapi: [] }],
  /** A mapi token always, and a bearer token beside it for a `user` of a secure type: the showing calls. */
  mapiAndOptionalBearer: [{ mapi: [] }, { mapi: [], bearer: [] }],
  /** No token is read. */
  none: [],
} satisfies Record<string, Security>;
type Kind = keyof typeof DECLARATIONS;

/** Each operation, its kind, and a request that only the token (or its absence) decides. */
interface Case {
  kind: Kind;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: (customer: string) => string;
  options?: CallOptions;
  /** The status of that request without a token, for the kinds that need none. */
  anonymousStatus?: number;
}

// In the order they run: the node operations work on the node that _create makes (m-1, rekeyed to m-2).
/** The two nodes the separation cases name (they need not exist: a refusal for want of a token comes first). */
const SEPARATED_PAIR = [
  { schema: 'member', key: { type: 'member_id', id: 'm-8' } },
  { schema: 'member', key: { type: 'member_id', id: 'm-9' } },
];

const CASES: Record<string, Case> = {
  search: {
    kind: 'optionalBearer',
    method: 'POST',
    url: (c) => `/v1/${c}/_search`,
    options: { body: buildSearch({ schema: 'member', key: { type: 'member_id', id: 'm-1' } }) },
    anonymousStatus: 200,
  },
  graph: {
    kind: 'optionalBearer',
    method: 'POST',
    url: (c) => `/v1/${c}/_graph`,
    options: { body: { match: { from: { schema: 'member', key: { type: 'member_id', id: 'm-1' } } } } },
    anonymousStatus: 200,
  },
  createNode: { kind: 'optionalBearer', method: 'POST', url: (c) => `/v1/${c}/node/_create`, options: { body: buildNode() }, anonymousStatus: 201 },
  insertIds: { kind: 'optionalBearer', method: 'POST', url: (c) => `/v1/${c}/node/_insert`, options: { body: buildInsert() }, anonymousStatus: 201 },
  why: {
    kind: 'optionalBearer',
    method: 'POST',
    url: (c) => `/v1/${c}/_why`,
    options: { body: { from: { schema: 'member', key: { type: 'member_id', id: 'm-1' } }, to: { schema: 'member', key: { type: 'member_id', id: 'm-1' } } } },
    anonymousStatus: 200,
  },
  updateId: { kind: 'optionalBearer', method: 'POST', url: (c) => `/v1/${c}/node/_update`, options: { body: buildUpdate() }, anonymousStatus: 200 },
  upsertId: { kind: 'optionalBearer', method: 'POST', url: (c) => `/v1/${c}/node/_upsert`, options: { body: buildUpdate() }, anonymousStatus: 200 },
  rekeyNode: { kind: 'optionalBearer', method: 'POST', url: (c) => `/v1/${c}/node/_rekeying`, options: { body: buildRekey() }, anonymousStatus: 200 },
  deleteNode: {
    kind: 'optionalBearer',
    method: 'POST',
    url: (c) => `/v1/${c}/node/_delete`,
    options: { body: buildDelete({ key: id('member_id', 'm-2') }) },
    anonymousStatus: 204,
  },
  nodeHistory: { kind: 'customerBearer', method: 'GET', url: (c) => `/v1/${c}/node/_history?schema=member&key_type=member_id&key_id=m-1` },
  listChanges: { kind: 'customerBearer', method: 'GET', url: (c) => `/v1/${c}/_changes` },
  exportCustomer: { kind: 'customerBearer', method: 'GET', url: (c) => `/v1/${c}/_export` },
  eraseId: { kind: 'customerBearer', method: 'POST', url: (c) => `/v1/${c}/_erase`, options: { body: { id: { type: 'member_id', id: 'm-9' } } } },
  separateNodes: {
    kind: 'customerBearer',
    method: 'POST',
    url: (c) => `/v1/${c}/_separate`,
    options: { body: { nodes: SEPARATED_PAIR, remove_shared_from: 'none' } },
  },
  listSeparations: { kind: 'customerBearer', method: 'GET', url: (c) => `/v1/${c}/_separate` },
  unseparateNodes: {
    kind: 'customerBearer',
    method: 'DELETE',
    url: (c) => `/v1/${c}/_separate`,
    options: { body: { nodes: SEPARATED_PAIR } },
  },
  bulkNodes: {
    kind: 'optionalBearer',
    method: 'POST',
    url: (c) => `/v1/${c}/node/_bulk`,
    options: { headers: { 'Content-Type': 'application/x-ndjson' }, body: `${JSON.stringify({ op: 'create', body: buildNode() })}\n` },
    anonymousStatus: 200,
  },
  importCustomer: {
    kind: 'admin',
    method: 'POST',
    url: (c) => `/v1/${c}-imported/_import`,
    options: {
      headers: { 'Content-Type': 'application/x-ndjson' },
      body: `${JSON.stringify({ kind: 'export', format: 1, customer_id: 'x', cursor: 'c1-aaaaaaaaaaaaaaaa' })}\n`,
    },
  },
  listSchemas: { kind: 'admin', method: 'GET', url: (c) => `/v1/${c}/schema` },
  putSchema: { kind: 'admin', method: 'PUT', url: (c) => `/v1/${c}/schema/other`, options: { body: { id_types: [{ type: 'device' }] } } },
  getSchema: { kind: 'admin', method: 'GET', url: (c) => `/v1/${c}/schema/member` },
  deleteSchema: { kind: 'admin', method: 'DELETE', url: (c) => `/v1/${c}/schema/member` },
  createToken: { kind: 'admin', method: 'POST', url: (c) => `/v1/${c}/token`, options: { body: { kind: 'bearer' } } },
  listTokens: { kind: 'admin', method: 'GET', url: (c) => `/v1/${c}/token` },
  revokeToken: { kind: 'admin', method: 'DELETE', url: (c) => `/v1/${c}/token/tok_unknown` },
  getSettings: { kind: 'admin', method: 'GET', url: (c) => `/v1/${c}/settings` },
  putSettings: { kind: 'admin', method: 'PUT', url: (c) => `/v1/${c}/settings`, options: { body: { timezone: 'Europe/Berlin' } } },
  getBlocklist: { kind: 'admin', method: 'GET', url: (c) => `/v1/${c}/blocklist` },
  putBlocklist: { kind: 'admin', method: 'PUT', url: (c) => `/v1/${c}/blocklist`, options: { body: { rules: [{ type: 'device', values: ['0000'] }] } } },
  listDeliveries: { kind: 'mapi', method: 'GET', url: () => '/v1/delivery' },
  createDelivery: { kind: 'mapi', method: 'POST', url: () => '/v1/delivery', options: { body: buildDelivery() } },
  getDelivery: { kind: 'mapi', method: 'GET', url: () => '/v1/delivery/1' },
  replaceDelivery: { kind: 'mapi', method: 'PUT', url: () => '/v1/delivery/1', options: { body: buildDelivery() } },
  deleteDelivery: { kind: 'mapi', method: 'DELETE', url: () => '/v1/delivery/1' },
  deliveryEligibility: {
    kind: 'mapiAndOptionalBearer',
    method: 'POST',
    url: () => '/v1/delivery/_eligible',
    options: { body: { user: { type: 'member_id', id: 'm-1' }, event_name: 'app_open' } },
  },
  recordImpression: {
    kind: 'mapiAndOptionalBearer',
    method: 'POST',
    url: () => '/v1/delivery/1/_impression',
    options: { body: { user: { type: 'member_id', id: 'm-1' } } },
  },
  healthz: { kind: 'none', method: 'GET', url: () => '/healthz', anonymousStatus: 200 },
  readyz: { kind: 'none', method: 'GET', url: () => '/readyz', anonymousStatus: 200 },
  metrics: { kind: 'none', method: 'GET', url: () => '/metrics', anonymousStatus: 200 },
  contract: { kind: 'none', method: 'GET', url: () => '/openapi.yaml', anonymousStatus: 200 },
  docs: { kind: 'none', method: 'GET', url: () => '/docs/', anonymousStatus: 200 },
  // The test setup bundles the page into dist/explorer (test/global-setup.js), as `npm run build` does.
  explore: { kind: 'none', method: 'GET', url: () => '/explore', anonymousStatus: 200 },
};

const contract = loadContract();
const declared = [...operations(contract)].map(({ path, method, operation }) => ({
  operationId: operation.operationId,
  path,
  method: method.toUpperCase(),
  security: (operation as { security?: Security }).security,
}));
const schemes = Object.keys((contract.document.components as { securitySchemes: object }).securitySchemes);

describe('security in openapi.yaml', () => {
  test('when every operation is walked, then each declares its own security, naming only schemes the contract defines', () => {
    expect(declared.length).toBeGreaterThanOrEqual(Object.keys(CASES).length);
    expect(declared.filter((o) => !Array.isArray(o.security)).map((o) => o.operationId)).toEqual([]);
    const unknown = declared.flatMap((o) => (o.security ?? []).flatMap((requirement) => Object.keys(requirement).filter((s) => !schemes.includes(s))));
    expect(unknown).toEqual([]);
  });

  test('when every operation is walked, then its security is the one its kind needs (a new operation must be classified here)', () => {
    const actual = Object.fromEntries(declared.map((o) => [o.operationId, o.security]));
    const expected = Object.fromEntries(Object.entries(CASES).map(([id, c]) => [id, DECLARATIONS[c.kind]]));
    expect(actual).toEqual(expected);
  });

  test("when every case is checked against its operation, then its method and URL are that operation's", () => {
    for (const o of declared) {
      const c = CASES[o.operationId] as Case;
      expect(`${c.method} ${c.url('acme')}`).toMatch(new RegExp(`^${o.method} ${o.path.replace(/\{[^}]+\}/g, '[^/]+')}(\\?.*)?$`));
    }
  });
});

describe('the service does what security declares', () => {
  let app: TestApp;
  const customer = uniqueCustomer('sec');
  beforeAll(async () => {
    app = await startApp();
    await putSchema(app, customer);
  });
  afterAll(() => app.close());

  test.each(Object.entries(CASES).filter(([, c]) => ['admin', 'mapi', 'mapiAndOptionalBearer', 'customerBearer'].includes(c.kind)))(
    'when %s is called without a token, then it is 401 authentication_required',
    async (_id, c) => {
      expectAuthenticationRequired(await app.call(c.method, c.url(customer), c.options));
    },
  );

  test('when the operations whose token is optional run without one on open types, then each succeeds', async () => {
    const statuses: Record<string, number> = {};
    const expected: Record<string, number> = {};
    for (const [id, c] of Object.entries(CASES).filter(([, x]) => x.kind === 'optionalBearer')) {
      statuses[id] = (await app.call(c.method, c.url(customer), c.options)).status;
      expected[id] = c.anonymousStatus as number;
    }
    expect(statuses).toEqual(expected);
  });

  test.each(Object.entries(CASES).filter(([, c]) => c.kind === 'none'))(
    'when %s is called with a malformed Authorization header, then it is answered as usual (no token is read)',
    async (_id, c) => {
      const res = await app.call(c.method, c.url(customer), { headers: { Authorization: 'Bearer not a token!' } });
      expect(res.status).toBe(c.anonymousStatus);
    },
  );
});
