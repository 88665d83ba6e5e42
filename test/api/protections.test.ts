// Identity protections through HTTP (docs/keeping-people-apart.md): blocked values, customer settings (require_token,
// timezone), the type options links and max_holders, and the one-way secure flag. Every refusal is checked by
// reading the state back. This file also runs on Neo4j (npm run test:neo4j), so the holder race is proven on both stores.
import type { Response } from 'supertest';
import { ADMIN_TOKEN, startApp, type TestApp } from '../helpers/app';
import { bulkChecked } from '../helpers/bulk';
import { expectAuthenticationRequired, issueLabelledToken, nodePath, type NodeOperation, searchPath } from '../helpers/builders-auth';
import {
  buildInsert,
  buildRekey,
  buildSearch,
  buildUpdate,
  errorPaths,
  expectProblem,
  id,
  searchIds,
  storedIds,
  uniqueCustomer,
} from '../helpers/builders-nodesearch';
import { VARIANT_RULES, VARIANTS } from '../helpers/blocklist-variants';
import { buildNode, createNode, putSchema } from '../helpers/factories';

const admin = { token: ADMIN_TOKEN };
const m = (value: string) => id('member_id', value);
const device = (value: string) => id('device', value);
const cookie = (value: string) => id('cookie', value);
const email = (value: string) => id('email', value);

/** The member schema of the other API tests, with options given to some of its types. */
function memberSchemaWith(options: Record<string, { secure?: boolean; links?: boolean; max_holders?: number }> = {}) {
  const base: Array<{ type: string; secure?: boolean }> = [{ type: 'member_id' }, { type: 'device' }, { type: 'cookie' }, { type: 'email', secure: true }];
  return { id_types: base.map((t) => ({ ...t, ...options[t.type] })) };
}

describe('identity protections', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(() => app.close());

  const post = (customer: string, op: NodeOperation, body: unknown, token?: string) =>
    app.call('POST', nodePath(customer, op), { body, ...(token ? { token } : {}) });
  const held = (customer: string, key: { type: string; id: string } = m('m-1'), schema = 'member') => storedIds(app, customer, key, schema);

  const putBlocklist = (customer: string, rules: unknown) => app.call('PUT', `/v1/${customer}/blocklist`, { ...admin, body: { rules } });
  const getBlocklist = (customer: string) => app.call('GET', `/v1/${customer}/blocklist`, admin);
  const putSettings = (customer: string, settings: object) => app.call('PUT', `/v1/${customer}/settings`, { ...admin, body: settings });
  const getSettings = (customer: string) => app.call('GET', `/v1/${customer}/settings`, admin);
  const schemaUrl = (customer: string, schemaId = 'member') => `/v1/${customer}/schema/${schemaId}`;

  async function blockWith(customer: string, rules: object[]): Promise<void> {
    const res = await putBlocklist(customer, rules);
    if (res.status !== 200) throw new Error(`blocklist setup failed: ${res.status} ${res.text}`);
  }

  /** A whole _bulk request; its result lines when 200, else its problem in `res.body`. */
  const bulk = (customer: string, lines: Array<{ op: string; body: object }>, token?: string) =>
    bulkChecked(app.baseUrl, customer, lines.map((l) => JSON.stringify(l)).join('\n'), token ? { token } : {});

  describe('blocked values', () => {
    /** Rules used by most tests: two device values (any case), and member_id keys that look like test accounts. */
    const RULES = [
      { type: 'device', values: ['000000', 'unknown'], ignore_case: true },
      { type: 'member_id', pattern: 'test-[0-9]+' },
    ];

    /** A customer with the member schema, m-1 holding d-1, test-1 (a key blocked later) holding device 000000, then RULES. */
    async function blockingCustomer(): Promise<string> {
      const customer = uniqueCustomer('block');
      await putSchema(app, customer);
      await createNode(app, customer, buildNode({ ids: [device('d-1')] }));
      await createNode(app, customer, buildNode({ key: m('test-1'), ids: [device('000000')] }));
      await blockWith(customer, RULES);
      return customer;
    }

    test('when no blocklist was ever put, then GET answers an empty list of rules', async () => {
      const res = await getBlocklist(uniqueCustomer('block'));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ rules: [] });
    });

    test('when a blocklist is put, then 200 with the rules as stored, ignore_case always present, and GET returns them in order', async () => {
      const customer = uniqueCustomer('block');
      const rules = [
        { type: 'email', values: ['test@test.com', 'none@none'], ignore_case: true },
        { type: 'device', pattern: '^0+$' },
      ];
      const res = await putBlocklist(customer, rules);
      expect(res.status).toBe(200);
      const stored = {
        rules: [
          { ...rules[0], confusables: false },
          { type: 'device', pattern: '^0+$', ignore_case: false, confusables: false },
        ],
      };
      expect(res.body).toEqual(stored);
      expect((await getBlocklist(customer)).body).toEqual(stored);
    });

    test('when a blocklist is put again, then it replaces every rule, and an empty list removes them all', async () => {
      const customer = uniqueCustomer('block');
      await blockWith(customer, RULES);
      await blockWith(customer, [{ type: 'cookie', values: ['c-0'] }]);
      expect((await getBlocklist(customer)).body).toEqual({ rules: [{ type: 'cookie', values: ['c-0'], ignore_case: false, confusables: false }] });
      expect((await putBlocklist(customer, [])).body).toEqual({ rules: [] });
      expect((await getBlocklist(customer)).body).toEqual({ rules: [] });
    });

    test("when a create's key is blocked, then 422 blocked_id naming /body/key/id, without the value, and no node is made", async () => {
      const customer = await blockingCustomer();
      const res = await post(customer, '_create', buildNode({ key: m('test-42'), ids: [device('d-9')] }));
      expectProblem(res, 422, 'blocked_id');
      expect(errorPaths(res)).toEqual(['/body/key/id']);
      expect(res.text).not.toContain('test-42');
      expect(await held(customer, m('test-42'))).toBeUndefined();
    });

    test("when an entry of a create's ids is blocked, then 422 blocked_id naming /body/ids/2/id and no node is made", async () => {
      const customer = await blockingCustomer();
      const res = await post(customer, '_create', buildNode({ key: m('m-2'), ids: [device('d-2'), cookie('c-2'), device('UnKnOwN')] }));
      expectProblem(res, 422, 'blocked_id');
      expect(errorPaths(res)).toEqual(['/body/ids/2/id']);
      expect(await held(customer, m('m-2'))).toBeUndefined();
    });

    test('when both the key and ids of a create are blocked, then each path is named', async () => {
      const customer = await blockingCustomer();
      const res = await post(customer, '_create', buildNode({ key: m('test-7'), ids: [device('000000'), cookie('c-7')] }));
      expectProblem(res, 422, 'blocked_id');
      expect(errorPaths(res)).toEqual(['/body/key/id', '/body/ids/0/id']);
      expect(await held(customer, m('test-7'))).toBeUndefined();
    });

    test('when an insert holds a blocked value in ids, then 422 blocked_id naming it and none of the ids is added', async () => {
      const customer = await blockingCustomer();
      const res = await post(customer, '_insert', buildInsert({ ids: [cookie('c-1'), device('unknown')] }));
      expectProblem(res, 422, 'blocked_id');
      expect(errorPaths(res)).toEqual(['/body/ids/1/id']);
      expect(await held(customer)).toEqual([device('d-1'), m('m-1')]);
    });

    test('when an insert goes into a node whose key is blocked (held from before the rule), then 422 naming /body/key/id and nothing is added', async () => {
      const customer = await blockingCustomer();
      const res = await post(customer, '_insert', buildInsert({ key: m('test-1'), ids: [cookie('c-1')] }));
      expectProblem(res, 422, 'blocked_id');
      expect(errorPaths(res)).toEqual(['/body/key/id']);
      expect(await held(customer, m('test-1'))).toEqual([device('000000'), m('test-1')]);
    });

    test.each(['_update', '_upsert'] as const)(
      'when a %s sets a blocked value, then 422 blocked_id naming /body/set/id and the node is unchanged',
      async (op) => {
        const customer = await blockingCustomer();
        const res = await post(customer, op, buildUpdate({ where: device('d-1'), set: device('000000') }));
        expectProblem(res, 422, 'blocked_id');
        expect(errorPaths(res)).toEqual(['/body/set/id']);
        expect(await held(customer)).toEqual([device('d-1'), m('m-1')]);
      },
    );

    test.each(['_update', '_upsert'] as const)(
      'when a %s goes into a node whose key is blocked, then 422 blocked_id naming /body/key/id and the node is unchanged',
      async (op) => {
        const customer = await blockingCustomer();
        const res = await post(customer, op, buildUpdate({ key: m('test-1'), where: device('d-none'), set: device('d-2') }));
        expectProblem(res, 422, 'blocked_id');
        expect(errorPaths(res)).toEqual(['/body/key/id']);
        expect(await held(customer, m('test-1'))).toEqual([device('000000'), m('test-1')]);
      },
    );

    test('when an update replaces a blocked value the node holds (where is never checked), then 200 and the blocked value is gone', async () => {
      const customer = uniqueCustomer('block');
      await putSchema(app, customer);
      await createNode(app, customer, buildNode({ ids: [device('000000')] }));
      await blockWith(customer, RULES);
      const res = await post(customer, '_update', buildUpdate({ where: device('000000'), set: device('d-2') }));
      expect(res.status).toBe(200);
      expect(await held(customer)).toEqual([device('d-2'), m('m-1')]);
    });

    test('when a rekeying sets a blocked new key, then 422 blocked_id naming /body/set/id and the node keeps its key', async () => {
      const customer = await blockingCustomer();
      const res = await post(customer, '_rekeying', buildRekey({ set: { id: 'test-9' } }));
      expectProblem(res, 422, 'blocked_id');
      expect(errorPaths(res)).toEqual(['/body/set/id']);
      expect(await held(customer)).toEqual([device('d-1'), m('m-1')]);
      expect(await held(customer, m('test-9'))).toBeUndefined();
    });

    test('when a node with a blocked key is rekeyed to an allowed one (the old key is not checked), then 200 and it has left the blocked key', async () => {
      const customer = await blockingCustomer();
      const res = await post(customer, '_rekeying', buildRekey({ key: m('test-1'), set: { id: 'm-5' } }));
      expect(res.status).toBe(200);
      expect(await held(customer, m('test-1'))).toBeUndefined();
      expect(await held(customer, m('m-5'))).toEqual([device('000000'), m('m-5')]);
    });

    test('when a blocked value held from before the rule is deleted, and then its node, then both deletes are 204: a delete is never blocked', async () => {
      const customer = await blockingCustomer();
      expect((await post(customer, '_delete', { schema: 'member', key: m('test-1'), where: device('000000') })).status).toBe(204);
      expect(await held(customer, m('test-1'))).toEqual([m('test-1')]);
      expect((await post(customer, '_delete', { schema: 'member', key: m('test-1') })).status).toBe(204);
      expect(await held(customer, m('test-1'))).toBeUndefined();
    });

    test('when values blocked today were held before the rule, then they stay held and searches still find and return them', async () => {
      const customer = await blockingCustomer();
      await createNode(app, customer, buildNode({ key: m('m-2'), ids: [device('d-1')] }));
      expect(await held(customer, m('test-1'))).toEqual([device('000000'), m('test-1')]);
      const fromKey = await searchIds(app, customer, buildSearch({ schema: 'member', key: m('test-1') }));
      expect(fromKey).toEqual({ results: [device('000000'), m('test-1')], total: 2 });
      const fromWhere = await searchIds(app, customer, buildSearch({ where: device('000000') }));
      expect(fromWhere).toEqual({ results: [device('000000'), m('test-1')], total: 2 });
    });

    test('when each _bulk line holds a blocked value, then that line is 422 blocked_id naming its path, a delete line is not, and the other lines run', async () => {
      const customer = await blockingCustomer();
      const { res, results } = await bulk(customer, [
        { op: 'create', body: buildNode({ key: m('test-3') }) },
        { op: 'create', body: buildNode({ key: m('m-2'), ids: [device('d-2')] }) },
        { op: 'insert', body: buildInsert({ ids: [cookie('c-1'), cookie('c-2'), device('000000')] }) },
        { op: 'upsert', body: buildUpdate({ where: device('d-none'), set: device('UNKNOWN') }) },
        { op: 'insert', body: buildInsert({ key: m('m-2'), ids: [cookie('c-2')] }) },
        { op: 'delete', body: { schema: 'member', key: m('test-1'), where: device('000000') } },
      ]);
      expect(res.status).toBe(200);
      expect(results.map((r) => [r.line, r.status, r.code, r.errors?.map((e) => e.path)])).toEqual([
        [1, 422, 'blocked_id', ['/body/key/id']],
        [2, 201, undefined, undefined],
        [3, 422, 'blocked_id', ['/body/ids/2/id']],
        [4, 422, 'blocked_id', ['/body/set/id']],
        [5, 201, undefined, undefined],
        [6, 204, undefined, undefined],
      ]);
      expect(await held(customer, m('test-3'))).toBeUndefined();
      expect(await held(customer)).toEqual([device('d-1'), m('m-1')]);
      expect(await held(customer, m('m-2'))).toEqual([cookie('c-2'), device('d-2'), m('m-2')]);
      expect(await held(customer, m('test-1'))).toEqual([m('test-1')]);
    });

    test('when a pattern is given, then it blocks only values it matches whole, and only of its type', async () => {
      const customer = uniqueCustomer('block');
      await putSchema(app, customer);
      await blockWith(customer, [{ type: 'device', pattern: '0+' }]);
      expectProblem(await post(customer, '_create', buildNode({ ids: [device('000')] })), 422, 'blocked_id');
      for (const [i, allowed] of [device('0001'), device('a000'), cookie('000')].entries()) {
        expect((await post(customer, '_create', buildNode({ key: m(`m-allowed-${i}`), ids: [allowed] }))).status).toBe(201);
        expect(await held(customer, m(`m-allowed-${i}`))).toContainEqual(allowed);
      }
      expect(await held(customer)).toBeUndefined();
    });

    test('when a rule ignores case, then every spelling is blocked; when it does not, then only the exact value is', async () => {
      const customer = uniqueCustomer('block');
      await putSchema(app, customer);
      await blockWith(customer, [
        { type: 'cookie', values: ['Abc'] },
        { type: 'device', pattern: 'x+y', ignore_case: true },
      ]);
      expectProblem(await post(customer, '_create', buildNode({ key: m('m-1'), ids: [cookie('Abc')] })), 422, 'blocked_id');
      expectProblem(await post(customer, '_create', buildNode({ key: m('m-2'), ids: [device('XxXY')] })), 422, 'blocked_id');
      expect((await post(customer, '_create', buildNode({ key: m('m-3'), ids: [cookie('abc'), cookie('ABC'), device('xyz')] }))).status).toBe(201);
      expect(await held(customer, m('m-1'))).toBeUndefined();
      expect(await held(customer, m('m-2'))).toBeUndefined();
      expect(await held(customer, m('m-3'))).toEqual([cookie('ABC'), cookie('abc'), device('xyz'), m('m-3')]);
    });

    test("when one customer blocks a value, then another customer's writes of it are not refused", async () => {
      const customer = await blockingCustomer();
      const other = uniqueCustomer('block-other');
      await putSchema(app, other);
      expect((await post(other, '_create', buildNode({ key: m('test-1'), ids: [device('000000')] }))).status).toBe(201);
      expect(await held(other, m('test-1'))).toEqual([device('000000'), m('test-1')]);
      expectProblem(await post(customer, '_create', buildNode({ key: m('test-2') })), 422, 'blocked_id');
    });

    const refusedPatterns = [
      ['a nested quantifier that could backtrack catastrophically', '(a+)+$'],
      ['a backreference RE2 cannot compile', '(a)\\1'],
      ['a lookahead RE2 cannot compile', '(?=a)a'],
      ['an inline flag safe-regex2 cannot check', '(?i)abc'],
      ['overlapping alternatives safe-regex2 misses', '(a|a)*b'],
      ['alternatives that overlap in length, which safe-regex2 misses', '(a|aa)*c'],
      ['a class member that normalizes to two characters', '[ß]+'],
    ] as const;
    test.each(refusedPatterns)('when a rule has %s, then 400 validation_failed naming /body/rules/1/pattern and the old rules stay', async (_what, pattern) => {
      const customer = uniqueCustomer('block');
      await blockWith(customer, RULES);
      const before = (await getBlocklist(customer)).body;
      const res = await putBlocklist(customer, [
        { type: 'cookie', values: ['c-0'] },
        { type: 'device', pattern, ignore_case: true },
      ]);
      expectProblem(res, 400, 'validation_failed');
      expect(errorPaths(res)).toEqual(['/body/rules/1/pattern']);
      expect((await getBlocklist(customer)).body).toEqual(before);
    });

    test('when a rule has both values and pattern, or neither, then 400 validation_failed and nothing is stored', async () => {
      const customer = uniqueCustomer('block');
      expectProblem(await putBlocklist(customer, [{ type: 'device', values: ['x'], pattern: 'x' }]), 400, 'validation_failed');
      expectProblem(await putBlocklist(customer, [{ type: 'device' }]), 400, 'validation_failed');
      expect((await getBlocklist(customer)).body).toEqual({ rules: [] });
    });

    // A PUT refuses (a|a)*$ now, but a store may hold it from before that check; re2js runs it in linear time, so
    // the writes below answer at once. Jest's timeout is the bound: a backtracking engine would take far longer.
    test('when a hostile pattern, (a|a)*$, was stored before the ambiguity check, then it stays, and writes of long near-matches answer promptly and are checked right', async () => {
      const customer = uniqueCustomer('block');
      await putSchema(app, customer);
      expectProblem(await putBlocklist(customer, [{ type: 'device', pattern: '(a|a)*$' }]), 400, 'validation_failed');
      await app.store.putBlocklist(customer, [{ type: 'device', pattern: '(a|a)*$', ignoreCase: false }]);
      expect((await getBlocklist(customer)).body).toEqual({ rules: [{ type: 'device', pattern: '(a|a)*$', ignore_case: false, confusables: false }] });

      const nearMiss = `${'a'.repeat(50)}b`;
      const longNearMiss = `${'a'.repeat(999)}b`;
      expect((await post(customer, '_create', buildNode({ ids: [device(nearMiss)] }))).status).toBe(201);
      expect((await post(customer, '_insert', buildInsert({ ids: [device(longNearMiss)] }))).status).toBe(201);
      expect(await held(customer)).toEqual([device(longNearMiss), device(nearMiss), m('m-1')]);
      const blocked = await post(customer, '_insert', buildInsert({ ids: [device('a'.repeat(1000))] }));
      expectProblem(blocked, 422, 'blocked_id');
      expect(errorPaths(blocked)).toEqual(['/body/ids/0/id']);
      expect(await held(customer)).toEqual([device(longNearMiss), device(nearMiss), m('m-1')]);
    });
  });

  describe('blocked values are compared normalized', () => {
    /** A customer with the member schema and VARIANT_RULES. */
    async function variantCustomer(): Promise<string> {
      const customer = uniqueCustomer('block-norm');
      await putSchema(app, customer);
      await blockWith(customer, [...VARIANT_RULES]);
      return customer;
    }

    test.each(VARIANTS)('when a write holds a blocked value with %s, then 422 blocked_id and nothing is made', async (_what, type, value) => {
      const customer = await variantCustomer();
      const key = type === 'member_id' ? id(type, value) : m('m-variant');
      const ids = type === 'member_id' ? [] : [id(type, value)];
      // email is a secure type: the administrator token writes it.
      const res = await post(customer, '_create', buildNode({ key, ids }), ADMIN_TOKEN);
      expectProblem(res, 422, 'blocked_id');
      expect(errorPaths(res)).toEqual([type === 'member_id' ? '/body/key/id' : '/body/ids/0/id']);
      expect(await held(customer, key)).toBeUndefined();
    });

    test.each([
      ['a trailing NUL', 'email', 'Test@TEST.com\u0000'],
      ['a NUL inside', 'email', 'test@\u0000test.com'],
      ['a C0 control before it', 'email', '\u0001test@test.com'],
      ['a DEL after it', 'email', 'test@test.com\u007f'],
      ['a C1 control after it', 'email', 'test@test.com\u0085'],
      ['a trailing NUL after zeros', 'device', '0000\u0000'],
      ['a unit separator inside', 'member_id', 'ad\u001fmin'],
    ])('when a write holds a blocked value with %s, then 422 blocked_id, on its own and as a _bulk line, and nothing is made', async (_what, type, value) => {
      const customer = await variantCustomer();
      const key = type === 'member_id' ? id(type, value) : m('m-control');
      const ids = type === 'member_id' ? [] : [id(type, value)];
      const res = await post(customer, '_create', buildNode({ key, ids }), ADMIN_TOKEN);
      expectProblem(res, 422, 'blocked_id');
      expect(errorPaths(res)).toEqual([type === 'member_id' ? '/body/key/id' : '/body/ids/0/id']);
      const { results } = await bulk(customer, [{ op: 'create', body: buildNode({ key, ids }) }], ADMIN_TOKEN);
      expect(results.map((r) => [r.status, r.code])).toEqual([[422, 'blocked_id']]);
      expect(await held(customer, key)).toBeUndefined();
      if (type !== 'member_id') {
        await createNode(app, customer, buildNode({ key: m('m-held'), ids: [] }));
        expectProblem(
          await post(customer, '_upsert', { schema: 'member', key: m('m-held'), where: id(type, 'none'), set: id(type, value) }, ADMIN_TOKEN),
          422,
          'blocked_id',
        );
        expect(await held(customer, m('m-held'))).toEqual([m('m-held')]);
      }
    });

    test('when values only resemble blocked ones, then they are written', async () => {
      const customer = await variantCustomer();
      const allowed = [email('test@test.co'), device('٠٠١'), device('0O0'), cookie('٠٠٠')];
      expect((await post(customer, '_create', buildNode({ key: m('admins'), ids: allowed }), ADMIN_TOKEN)).status).toBe(201);
      expect(await held(customer, m('admins'))).toEqual(expect.arrayContaining(allowed));
    });

    test('when a rule has confusables, then 200 with it stored, GET shows it, and a Cyrillic letter in a Latin word is blocked; without it, it is not', async () => {
      const customer = uniqueCustomer('block-norm');
      await putSchema(app, customer);
      const rules = [
        { type: 'member_id', values: ['admin'], ignore_case: true, confusables: true },
        { type: 'cookie', values: ['admin'], ignore_case: true },
      ];
      const stored = { rules: [rules[0], { ...rules[1], confusables: false }] };
      expect((await putBlocklist(customer, rules)).body).toEqual(stored);
      expect((await getBlocklist(customer)).body).toEqual(stored);
      const cyrillic = 'аdmin'; // its first letter is U+0430
      const res = await post(customer, '_create', buildNode({ key: m(cyrillic), ids: [cookie(cyrillic)] }));
      expectProblem(res, 422, 'blocked_id');
      expect(errorPaths(res)).toEqual(['/body/key/id']);
      expect((await post(customer, '_create', buildNode({ key: m('m-2'), ids: [cookie(cyrillic)] }))).status).toBe(201);
      expect(await held(customer, m('m-2'))).toEqual([cookie(cyrillic), m('m-2')]);
    });

    test('when confusables is given on a pattern rule, then 400 validation_failed naming it and nothing is stored', async () => {
      const customer = uniqueCustomer('block-norm');
      const res = await putBlocklist(customer, [{ type: 'device', pattern: '0+', confusables: true }]);
      expectProblem(res, 400, 'validation_failed');
      expect(errorPaths(res)).toEqual(['/body/rules/0/confusables']);
      expect((await getBlocklist(customer)).body).toEqual({ rules: [] });
    });

    test('when a pattern has fullwidth literals, then they block their normalized spelling', async () => {
      const customer = uniqueCustomer('block-norm');
      await putSchema(app, customer);
      await blockWith(customer, [{ type: 'device', pattern: 'ｕｎｋｎｏｗｎ-\\d+', ignore_case: true }]);
      expectProblem(await post(customer, '_create', buildNode({ ids: [device('Unknown-٤٢')] })), 422, 'blocked_id');
      expect(await held(customer)).toBeUndefined();
    });
  });

  describe('customer settings', () => {
    test('when no settings were ever put, then GET answers the defaults', async () => {
      const res = await getSettings(uniqueCustomer('settings'));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ require_token: false, timezone: 'UTC' });
    });

    test('when settings are put, then 200 with them as stored, and GET returns them', async () => {
      const customer = uniqueCustomer('settings');
      const res = await putSettings(customer, { require_token: true, timezone: 'Asia/Tokyo' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ require_token: true, timezone: 'Asia/Tokyo' });
      expect((await getSettings(customer)).body).toEqual({ require_token: true, timezone: 'Asia/Tokyo' });
    });

    test('when a put leaves a field out, then that field takes its default, not its stored value', async () => {
      const customer = uniqueCustomer('settings');
      await putSettings(customer, { require_token: true, timezone: 'Asia/Tokyo' });
      expect((await putSettings(customer, { require_token: true })).body).toEqual({ require_token: true, timezone: 'UTC' });
      expect((await putSettings(customer, { timezone: 'Asia/Tokyo' })).body).toEqual({ require_token: false, timezone: 'Asia/Tokyo' });
      expect((await putSettings(customer, {})).body).toEqual({ require_token: false, timezone: 'UTC' });
      expect((await getSettings(customer)).body).toEqual({ require_token: false, timezone: 'UTC' });
    });

    test('when the timezone is no IANA name, then 400 validation_failed naming /body/timezone and the settings stay', async () => {
      const customer = uniqueCustomer('settings');
      await putSettings(customer, { require_token: true, timezone: 'Asia/Tokyo' });
      const res = await putSettings(customer, { require_token: false, timezone: 'Mars/Olympus' });
      expectProblem(res, 400, 'validation_failed');
      expect(errorPaths(res)).toEqual(['/body/timezone']);
      expect((await getSettings(customer)).body).toEqual({ require_token: true, timezone: 'Asia/Tokyo' });
    });

    test('when the timezone is spelled in lower case, then it is stored under its IANA spelling', async () => {
      const customer = uniqueCustomer('settings');
      expect((await putSettings(customer, { timezone: 'europe/berlin' })).body).toEqual({ require_token: false, timezone: 'Europe/Berlin' });
      expect((await getSettings(customer)).body).toEqual({ require_token: false, timezone: 'Europe/Berlin' });
    });

    test('when require_token is not a boolean, or a field is unknown, then 400 validation_failed and the settings stay', async () => {
      const customer = uniqueCustomer('settings');
      expectProblem(await putSettings(customer, { require_token: 'yes' }), 400, 'validation_failed');
      expectProblem(await putSettings(customer, { timezone: 'UTC', locale: 'de' }), 400, 'validation_failed');
      expect((await getSettings(customer)).body).toEqual({ require_token: false, timezone: 'UTC' });
    });

    describe('who may read and change settings and blocklists', () => {
      const endpoints = [
        { name: 'reading the settings', method: 'GET', path: (c: string) => `/v1/${c}/settings` },
        { name: 'putting the settings', method: 'PUT', path: (c: string) => `/v1/${c}/settings`, body: { require_token: true } },
        { name: 'reading the blocklist', method: 'GET', path: (c: string) => `/v1/${c}/blocklist` },
        { name: 'putting the blocklist', method: 'PUT', path: (c: string) => `/v1/${c}/blocklist`, body: { rules: [{ type: 'device', values: ['d-1'] }] } },
      ] as const;
      const state = async (customer: string) => ({ settings: (await getSettings(customer)).body, blocklist: (await getBlocklist(customer)).body });
      const send = (customer: string, e: (typeof endpoints)[number], token?: string) =>
        app.call(e.method, e.path(customer), { ...('body' in e ? { body: e.body } : {}), ...(token ? { token } : {}) });

      test.each(endpoints)('when $name is asked without a token, then 401 authentication_required and nothing changes', async (e) => {
        const customer = uniqueCustomer('settings');
        const before = await state(customer);
        expectAuthenticationRequired(await send(customer, e));
        expect(await state(customer)).toEqual(before);
      });

      test.each(endpoints)("when $name is asked with the customer's own bearer token, then 403 forbidden and nothing changes", async (e) => {
        const customer = uniqueCustomer('settings');
        const { token } = await issueLabelledToken(app, customer);
        const before = await state(customer);
        expectProblem(await send(customer, e, token), 403, 'forbidden');
        expect(await state(customer)).toEqual(before);
      });
    });

    describe('require_token', () => {
      interface Case {
        name: string;
        op: NodeOperation | '_search';
        body: object;
        ok: number;
      }
      // Only open types: without require_token none of these would need a token.
      const cases: Case[] = [
        { name: 'a search', op: '_search', body: buildSearch({ schema: 'member', key: m('m-1') }), ok: 200 },
        { name: 'a search from where', op: '_search', body: buildSearch({ where: device('d-1') }), ok: 200 },
        { name: 'a create', op: '_create', body: buildNode({ key: m('m-2'), ids: [device('d-2')] }), ok: 201 },
        { name: 'an insert', op: '_insert', body: buildInsert({ ids: [cookie('c-1')] }), ok: 201 },
        { name: 'an update', op: '_update', body: buildUpdate({ where: device('d-1'), set: device('d-9') }), ok: 200 },
        { name: 'an upsert', op: '_upsert', body: buildUpdate({ where: device('d-none'), set: device('d-9') }), ok: 200 },
        { name: 'a rekeying', op: '_rekeying', body: buildRekey({ set: { id: 'm-1b' } }), ok: 200 },
        { name: 'a delete of an ID', op: '_delete', body: { schema: 'member', key: m('m-1'), where: device('d-1') }, ok: 204 },
        { name: 'a delete of a node', op: '_delete', body: { schema: 'member', key: m('m-3') }, ok: 204 },
      ];

      let customer: string;
      let own: string;
      let foreign: string;
      const pathOf = (c: Case, on = customer) => (c.op === '_search' ? searchPath(on) : nodePath(on, c.op));
      const send = (c: Case, token?: string, on = customer) => app.call('POST', pathOf(c, on), { body: c.body, ...(token ? { token } : {}) });
      const snapshot = async (on = customer) => ({
        m1: await held(on),
        m1b: await held(on, m('m-1b')),
        m2: await held(on, m('m-2')),
        m3: await held(on, m('m-3')),
      });

      /** The member schema, m-1 holding d-1 and m-3 holding d-3. */
      async function withNodes(c: string): Promise<void> {
        await putSchema(app, c);
        await createNode(app, c, buildNode({ ids: [device('d-1')] }));
        await createNode(app, c, buildNode({ key: m('m-3'), ids: [device('d-3')] }));
      }

      beforeEach(async () => {
        customer = uniqueCustomer('require');
        await withNodes(customer);
        own = (await issueLabelledToken(app, customer)).token;
        foreign = (await issueLabelledToken(app, uniqueCustomer('require-other'))).token;
        expect((await putSettings(customer, { require_token: true })).status).toBe(200);
      });

      test.each(cases)('when $name is sent without a token, then 401 authentication_required and nothing changes', async (c) => {
        const before = await snapshot();
        expectAuthenticationRequired(await send(c));
        expect(await snapshot()).toEqual(before);
      });

      test.each(cases)("when $name is sent with the customer's bearer token, then it succeeds", async (c) => {
        expect((await send(c, own)).status).toBe(c.ok);
      });

      test.each(cases)('when $name is sent with the administrator token, then it succeeds', async (c) => {
        expect((await send(c, ADMIN_TOKEN)).status).toBe(c.ok);
      });

      test.each(cases)("when $name is sent with another customer's token, then 403 forbidden as before and nothing changes", async (c) => {
        const before = await snapshot();
        expectProblem(await send(c, foreign), 403, 'forbidden');
        expect(await snapshot()).toEqual(before);
      });

      test.each(cases)('when $name is sent without a token to a customer that does not require one, then it succeeds', async (c) => {
        const other = uniqueCustomer('require-not');
        await withNodes(other);
        expect((await send(c, undefined, other)).status).toBe(c.ok);
      });

      test('when require_token is put back to false, then open writes need no token again', async () => {
        expect((await putSettings(customer, { require_token: false })).body).toEqual({ require_token: false, timezone: 'UTC' });
        expect((await post(customer, '_insert', buildInsert({ ids: [cookie('c-1')] }))).status).toBe(201);
        expect(await held(customer)).toEqual([cookie('c-1'), device('d-1'), m('m-1')]);
      });

      test('when a _bulk request has no token, then the whole request is 401 authentication_required, no line runs and nothing changes', async () => {
        const before = await snapshot();
        const lines = [
          { op: 'create', body: buildNode({ key: m('m-2'), ids: [device('d-2')] }) },
          { op: 'insert', body: buildInsert({ ids: [cookie('c-1')] }) },
        ];
        const { res, results } = await bulk(customer, lines);
        expectAuthenticationRequired(res);
        expect(results).toEqual([]);
        expect(res.text).not.toContain('"line"');
        expect(await snapshot()).toEqual(before);
      });

      test("when a _bulk request has the customer's bearer token, then its lines run", async () => {
        const { res, results } = await bulk(customer, [{ op: 'create', body: buildNode({ key: m('m-2'), ids: [device('d-2')] }) }], own);
        expect(res.status).toBe(200);
        expect(results).toEqual([{ line: 1, status: 201 }]);
        expect(await held(customer, m('m-2'))).toEqual([device('d-2'), m('m-2')]);
      });

      test("when a _bulk request has another customer's token, then 403 forbidden and no line runs", async () => {
        const { res, results } = await bulk(customer, [{ op: 'create', body: buildNode({ key: m('m-2') }) }], foreign);
        expectProblem(res, 403, 'forbidden');
        expect(results).toEqual([]);
        expect(await held(customer, m('m-2'))).toBeUndefined();
      });

      test('when a search or a write names a schema that does not exist and has no token, then 401 comes before 404 schema_not_found', async () => {
        const search = buildSearch({ schema: 'nosuch', key: m('m-1') });
        const create = buildNode({ schema: 'nosuch' });
        expectAuthenticationRequired(await app.call('POST', searchPath(customer), { body: search }));
        expectAuthenticationRequired(await post(customer, '_create', create));
        expectProblem(await app.call('POST', searchPath(customer), { token: own, body: search }), 404, 'schema_not_found');
        expectProblem(await post(customer, '_create', create, own), 404, 'schema_not_found');
        expect(await held(customer, m('m-1'), 'nosuch')).toBeUndefined();
      });
    });
  });

  describe('type options in schemas', () => {
    test('when a schema declares links and max_holders, then PUT and GET show links on every type and max_holders where it is set', async () => {
      const customer = uniqueCustomer('options');
      const res = await app.call('PUT', schemaUrl(customer), {
        ...admin,
        body: {
          id_types: [
            { type: 'member_id' },
            { type: 'device', links: false, max_holders: 5 },
            { type: 'ip', links: false },
            { type: 'cookie', max_holders: 1000000 },
          ],
        },
      });
      expect(res.status).toBe(201);
      const expected = {
        schema_id: 'member',
        id_types: [
          { type: 'member_id', secure: false, links: true },
          { type: 'device', secure: false, links: false, max_holders: 5 },
          { type: 'ip', secure: false, links: false },
          { type: 'cookie', secure: false, links: true, max_holders: 1000000 },
        ],
      };
      expect(res.body).toEqual(expected);
      expect((await app.call('GET', schemaUrl(customer), admin)).body).toEqual(expected);
    });

    test('when another schema declares a type with another links value, then 409 type_option_conflict and it is not created', async () => {
      const customer = uniqueCustomer('options');
      await putSchema(app, customer, 'member', memberSchemaWith({ device: { links: false } }));
      // Leaving links out means the default (true), which conflicts too.
      for (const declared of [{ type: 'device' }, { type: 'device', links: true }]) {
        expectProblem(await app.call('PUT', schemaUrl(customer, 'account'), { ...admin, body: { id_types: [declared] } }), 409, 'type_option_conflict');
      }
      expectProblem(await app.call('GET', schemaUrl(customer, 'account'), admin), 404, 'schema_not_found');
      expect((await app.call('PUT', schemaUrl(customer, 'account'), { ...admin, body: { id_types: [{ type: 'device', links: false }] } })).status).toBe(201);
    });

    test('when another schema declares a type with another max_holders, or none, then 409 type_option_conflict and nothing changes', async () => {
      const customer = uniqueCustomer('options');
      await putSchema(app, customer, 'member', memberSchemaWith({ device: { max_holders: 5 } }));
      await putSchema(app, customer, 'account', { id_types: [{ type: 'member_id' }] });
      const before = (await app.call('GET', schemaUrl(customer, 'account'), admin)).body;
      for (const declared of [{ type: 'device', max_holders: 6 }, { type: 'device' }]) {
        const res = await app.call('PUT', schemaUrl(customer, 'account'), { ...admin, body: { id_types: [{ type: 'member_id' }, declared] } });
        expectProblem(res, 409, 'type_option_conflict');
      }
      expect((await app.call('GET', schemaUrl(customer, 'account'), admin)).body).toEqual(before);
      const agreeing = await app.call('PUT', schemaUrl(customer, 'account'), {
        ...admin,
        body: { id_types: [{ type: 'member_id' }, { type: 'device', max_holders: 5 }] },
      });
      expect(agreeing.status).toBe(200);
    });

    test('when a type would stop being secure while a node holds an ID of it, then 409 secure_type_in_use and nothing changes; once no node holds one, it may', async () => {
      const customer = uniqueCustomer('options');
      await putSchema(app, customer);
      await createNode(app, customer, buildNode({ ids: [email('ann@example.com')] }), ADMIN_TOKEN);
      const before = (await app.call('GET', schemaUrl(customer), admin)).body;
      const open = memberSchemaWith({ email: { secure: false } });
      expectProblem(await app.call('PUT', schemaUrl(customer), { ...admin, body: open }), 409, 'secure_type_in_use');
      expect((await app.call('GET', schemaUrl(customer), admin)).body).toEqual(before);
      // Still secure: an anonymous search does not see the e-mail.
      expect(await searchIds(app, customer, buildSearch())).toEqual({ results: [m('m-1')], total: 1 });

      expect((await post(customer, '_delete', { schema: 'member', key: m('m-1') }, ADMIN_TOKEN)).status).toBe(204);
      const res = await app.call('PUT', schemaUrl(customer), { ...admin, body: open });
      expect(res.status).toBe(200);
      expect(res.body.id_types).toContainEqual({ type: 'email', secure: false, links: true });
    });

    test('when a type held by nodes is made secure, then 200 and anonymous searches stop seeing it', async () => {
      const customer = uniqueCustomer('options');
      await putSchema(app, customer);
      await createNode(app, customer, buildNode({ ids: [device('d-1')] }));
      const res = await app.call('PUT', schemaUrl(customer), { ...admin, body: memberSchemaWith({ device: { secure: true } }) });
      expect(res.status).toBe(200);
      expect(res.body.id_types).toContainEqual({ type: 'device', secure: true, links: true });
      expect(await searchIds(app, customer, buildSearch())).toEqual({ results: [m('m-1')], total: 1 });
    });

    test.each([0, 1000001, 1.5, '5', -1, null])('when max_holders is %p, then 400 validation_failed naming it and no schema is made', async (maxHolders) => {
      const customer = uniqueCustomer('options');
      const res = await app.call('PUT', schemaUrl(customer), {
        ...admin,
        body: { id_types: [{ type: 'member_id' }, { type: 'device', max_holders: maxHolders }] },
      });
      expectProblem(res, 400, 'validation_failed');
      expect(errorPaths(res)).toContain('/body/id_types/1/max_holders');
      expectProblem(await app.call('GET', schemaUrl(customer), admin), 404, 'schema_not_found');
    });

    test.each(['no', 0, null])('when links is %p, then 400 validation_failed naming it and no schema is made', async (links) => {
      const customer = uniqueCustomer('options');
      const res = await app.call('PUT', schemaUrl(customer), { ...admin, body: { id_types: [{ type: 'member_id' }, { type: 'device', links }] } });
      expectProblem(res, 400, 'validation_failed');
      expect(errorPaths(res)).toContain('/body/id_types/1/links');
      expectProblem(await app.call('GET', schemaUrl(customer), admin), 404, 'schema_not_found');
    });
  });

  describe('max_holders', () => {
    // A value that must never show up in a message: the holder limit names the type and the limit only.
    const HOT = device('hot-tablet-7f3a');

    /** device has max_holders 2, and m-1 and m-2 hold HOT; m-3 holds d-3. */
    async function fullCustomer(): Promise<string> {
      const customer = uniqueCustomer('holders');
      await putSchema(app, customer, 'member', memberSchemaWith({ device: { max_holders: 2 } }));
      await createNode(app, customer, buildNode({ ids: [HOT] }));
      await createNode(app, customer, buildNode({ key: m('m-2'), ids: [HOT] }));
      await createNode(app, customer, buildNode({ key: m('m-3'), ids: [device('d-3')] }));
      return customer;
    }

    /** 409 holder_limit_reached whose message names the type and the limit, never the value. */
    function expectHolderLimit(res: Response, type = 'device', limit = 2): void {
      expectProblem(res, 409, 'holder_limit_reached');
      expect(res.body.detail).toContain(type);
      expect(res.body.detail).toContain(String(limit));
      expect(res.text).not.toContain(HOT.id);
    }

    test('when a create would make one more node hold an ID at its limit, then 409 holder_limit_reached and no node is made', async () => {
      const customer = await fullCustomer();
      expectHolderLimit(await post(customer, '_create', buildNode({ key: m('m-4'), ids: [cookie('c-4'), HOT] })));
      expect(await held(customer, m('m-4'))).toBeUndefined();
    });

    test('when an insert would make one more node hold it, then 409 holder_limit_reached and none of the ids is added', async () => {
      const customer = await fullCustomer();
      expectHolderLimit(await post(customer, '_insert', buildInsert({ key: m('m-3'), ids: [cookie('c-3'), HOT] })));
      expect(await held(customer, m('m-3'))).toEqual([device('d-3'), m('m-3')]);
    });

    test.each([
      ['an update', '_update', device('d-3')],
      ['an upsert replacing a held ID', '_upsert', device('d-3')],
      ['an upsert adding it', '_upsert', device('d-none')],
    ] as const)('when %s would make one more node hold it, then 409 holder_limit_reached and the node is unchanged', async (_name, op, where) => {
      const customer = await fullCustomer();
      expectHolderLimit(await post(customer, op, buildUpdate({ key: m('m-3'), where, set: HOT })));
      expect(await held(customer, m('m-3'))).toEqual([device('d-3'), m('m-3')]);
    });

    test('when a node that holds the ID already is written again, then the limit is no obstacle', async () => {
      const customer = await fullCustomer();
      expect((await post(customer, '_upsert', buildUpdate({ where: device('d-none'), set: HOT }))).status).toBe(200);
      expect((await post(customer, '_insert', buildInsert({ ids: [cookie('c-1')] }))).status).toBe(201);
      expect(await held(customer)).toEqual([cookie('c-1'), HOT, m('m-1')]);
    });

    test('when one holder lets the ID go, then another node may take it, up to the limit again', async () => {
      const customer = await fullCustomer();
      expect((await post(customer, '_delete', { schema: 'member', key: m('m-1'), where: HOT })).status).toBe(204);
      expect((await post(customer, '_insert', buildInsert({ key: m('m-3'), ids: [HOT] }))).status).toBe(201);
      expect(await held(customer, m('m-3'))).toEqual([device('d-3'), HOT, m('m-3')]);
      expectHolderLimit(await post(customer, '_insert', buildInsert({ ids: [HOT] })));
      expect(await held(customer)).toEqual([m('m-1')]);
    });

    test('when the limit of the key type is reached, then a create and a rekeying to that key are 409 holder_limit_reached and change nothing', async () => {
      const customer = uniqueCustomer('holders');
      // member_id may be held by one node: profile/m-7 holds it, so no member node may take m-7 as its key.
      await putSchema(app, customer, 'member', memberSchemaWith({ member_id: { max_holders: 1 } }));
      await putSchema(app, customer, 'profile', { id_types: [{ type: 'member_id', max_holders: 1 }] });
      await createNode(app, customer, { schema: 'profile', key: m('m-7') });
      await createNode(app, customer, buildNode({ ids: [device('d-1')] }));

      expectHolderLimit(await post(customer, '_create', buildNode({ key: m('m-7') })), 'member_id', 1);
      expect(await held(customer, m('m-7'))).toBeUndefined();
      const rekeyed = await post(customer, '_rekeying', buildRekey({ set: { id: 'm-7' } }));
      expectHolderLimit(rekeyed, 'member_id', 1);
      expect(await held(customer)).toEqual([device('d-1'), m('m-1')]);
      expect(await held(customer, m('m-7'))).toBeUndefined();
      expect(await held(customer, m('m-7'), 'profile')).toEqual([m('m-7')]);
    });

    test('when _bulk lines would make one more node hold it, then those lines are 409 holder_limit_reached and the others run in order', async () => {
      const customer = await fullCustomer();
      const { res, results } = await bulk(customer, [
        { op: 'create', body: buildNode({ key: m('m-4'), ids: [HOT] }) },
        { op: 'insert', body: buildInsert({ key: m('m-3'), ids: [HOT] }) },
        { op: 'upsert', body: buildUpdate({ key: m('m-3'), where: device('d-3'), set: HOT }) },
        { op: 'create', body: buildNode({ key: m('m-5'), ids: [device('d-5')] }) },
        { op: 'delete', body: { schema: 'member', key: m('m-2') } },
        { op: 'insert', body: buildInsert({ key: m('m-3'), ids: [HOT] }) },
        { op: 'insert', body: buildInsert({ key: m('m-5'), ids: [HOT] }) },
      ]);
      expect(res.status).toBe(200);
      expect(results.map((r) => [r.line, r.status, r.code])).toEqual([
        [1, 409, 'holder_limit_reached'],
        [2, 409, 'holder_limit_reached'],
        [3, 409, 'holder_limit_reached'],
        [4, 201, undefined],
        [5, 204, undefined],
        [6, 201, undefined],
        [7, 409, 'holder_limit_reached'],
      ]);
      expect(res.text).not.toContain(HOT.id);
      expect(await held(customer, m('m-4'))).toBeUndefined();
      expect(await held(customer, m('m-2'))).toBeUndefined();
      expect(await held(customer, m('m-3'))).toEqual([device('d-3'), HOT, m('m-3')]);
      expect(await held(customer, m('m-5'))).toEqual([device('d-5'), m('m-5')]);
    });

    test('when max_holders is lowered below the holders of today, then 200, they keep the ID, and the next write is refused', async () => {
      const customer = await fullCustomer();
      const res = await app.call('PUT', schemaUrl(customer), { ...admin, body: memberSchemaWith({ device: { max_holders: 1 } }) });
      expect(res.status).toBe(200);
      expect(res.body.id_types).toContainEqual({ type: 'device', secure: false, links: true, max_holders: 1 });
      expect(await held(customer)).toEqual([HOT, m('m-1')]);
      expect(await held(customer, m('m-2'))).toEqual([HOT, m('m-2')]);
      expectHolderLimit(await post(customer, '_insert', buildInsert({ key: m('m-3'), ids: [HOT] })), 'device', 1);
      expect(await held(customer, m('m-3'))).toEqual([device('d-3'), m('m-3')]);
    });

    test("when one customer's ID is at its limit, then another customer's nodes may still hold the same value", async () => {
      const customer = await fullCustomer();
      const other = uniqueCustomer('holders-other');
      await putSchema(app, other, 'member', memberSchemaWith({ device: { max_holders: 2 } }));
      expect((await post(other, '_create', buildNode({ ids: [HOT] }))).status).toBe(201);
      expect(await held(other)).toEqual([HOT, m('m-1')]);
      expectHolderLimit(await post(customer, '_create', buildNode({ key: m('m-9'), ids: [HOT] })));
    });

    const PARALLEL = 100;
    const LIMIT = 5;
    test(`when ${PARALLEL} creates of distinct nodes holding one device race with max_holders ${LIMIT}, then exactly ${LIMIT} are 201 and a where-search finds exactly those ${LIMIT} keys`, async () => {
      const customer = uniqueCustomer('holders-race');
      await putSchema(app, customer, 'member', memberSchemaWith({ device: { max_holders: LIMIT } }));
      const key = (i: number) => m(`m-${String(i).padStart(3, '0')}`);
      const responses = await Promise.all(
        Array.from({ length: PARALLEL }, (_, i) => post(customer, '_create', buildNode({ key: key(i), ids: [device('tablet-1')] }))),
      );
      const created = responses.flatMap((res, i) => (res.status === 201 ? [key(i)] : []));
      const refused = responses.filter((res) => res.status === 409);
      expect({ created: created.length, refused: refused.length }).toEqual({ created: LIMIT, refused: PARALLEL - LIMIT });
      for (const res of refused) expectProblem(res, 409, 'holder_limit_reached');

      const found = await searchIds(app, customer, buildSearch({ where: device('tablet-1') }, { having: { type: 'member_id' } }));
      expect(found).toEqual({ results: created, total: LIMIT });
    }, 120_000);
  });

  describe('links: false', () => {
    // Two people (member schema, keyed by member_id) who share one device, the tablet at home.
    const TABLET = device('tablet-1');
    const ANN = m('m-ann');
    const BOB = m('m-bob');
    const annIds = [cookie('c-ann'), TABLET, ANN];
    const bobIds = [cookie('c-bob'), TABLET, BOB];
    const both = [cookie('c-ann'), cookie('c-bob'), TABLET, ANN, BOB];

    async function household(deviceLinks: boolean | undefined): Promise<string> {
      const customer = uniqueCustomer('links');
      await putSchema(app, customer, 'member', memberSchemaWith(deviceLinks === undefined ? {} : { device: { links: deviceLinks } }));
      await createNode(app, customer, buildNode({ key: ANN, ids: [TABLET, cookie('c-ann')] }));
      await createNode(app, customer, buildNode({ key: BOB, ids: [TABLET, cookie('c-bob')] }));
      return customer;
    }
    const fromAnn = (step: 'ONE' | 'ALL' = 'ALL') => buildSearch({ schema: 'member', key: ANN }, { step });

    test('when device links (the default), then a search from one person returns the other’s IDs too', async () => {
      const customer = await household(undefined);
      expect(await searchIds(app, customer, fromAnn('ALL'))).toEqual({ results: both, total: 5 });
      expect(await searchIds(app, customer, fromAnn('ONE'))).toEqual({ results: both, total: 5 });
    });

    test('when device is declared links: false, then neither ONE nor ALL steps through it, though the device is in each person’s results', async () => {
      const customer = await household(false);
      expect(await searchIds(app, customer, fromAnn('ALL'))).toEqual({ results: annIds, total: 3 });
      expect(await searchIds(app, customer, fromAnn('ONE'))).toEqual({ results: annIds, total: 3 });
      expect(await searchIds(app, customer, buildSearch({ schema: 'member', key: BOB }))).toEqual({ results: bobIds, total: 3 });
      // exclude leaves nothing: the other person is not a target.
      expect(await searchIds(app, customer, buildSearch({ schema: 'member', key: ANN, exclude: true }))).toEqual({ results: [], total: 0 });
    });

    test('when device is declared links: false, then a where on the device still starts from every node holding it', async () => {
      const customer = await household(false);
      expect(await searchIds(app, customer, buildSearch({ where: TABLET }))).toEqual({ results: both, total: 5 });
      expect(await searchIds(app, customer, buildSearch({ where: TABLET }, { having: { type: 'member_id' } }))).toEqual({ results: [ANN, BOB], total: 2 });
    });

    test('when links is changed on the schema, then the next search follows it at once, both ways', async () => {
      const customer = await household(undefined);
      await putSchema(app, customer, 'member', memberSchemaWith({ device: { links: false } }));
      expect(await searchIds(app, customer, fromAnn())).toEqual({ results: annIds, total: 3 });
      await putSchema(app, customer, 'member', memberSchemaWith({ device: { links: true } }));
      expect(await searchIds(app, customer, fromAnn())).toEqual({ results: both, total: 5 });
    });

    test('when the two people also share a linking ID, then they are linked through it, and a third node holding only the device is not reached', async () => {
      const customer = await household(false);
      await createNode(app, customer, buildNode({ key: m('m-cat'), ids: [TABLET] }));
      expect((await post(customer, '_insert', buildInsert({ key: BOB, ids: [cookie('c-ann')] }))).status).toBe(201);
      expect(await searchIds(app, customer, fromAnn())).toEqual({ results: [cookie('c-ann'), cookie('c-bob'), TABLET, ANN, BOB], total: 5 });
    });
  });
});
