// NODE_MAX_IDS: a node holds at most that many IDs. A create, insert, upsert or bulk line that would take a node
// past it is 409 node_id_limit_reached and adds nothing, also when many writes to one node race.
import { startApp, type TestApp } from '../helpers/app';
import { postBulk } from '../helpers/bulk';
import { contractProblems } from '../helpers/contract';
import { buildDelete, buildInsert, buildRekey, buildUpdate, expectProblem, id, storedIds, uniqueCustomer } from '../helpers/builders-nodesearch';
import { buildNode, createNode, putSchema } from '../helpers/factories';

const KEY = id('member_id', 'm-1');

describe('NODE_MAX_IDS', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp({ env: { NODE_MAX_IDS: '3' } });
  });
  afterAll(() => app.close());

  const send = (customer: string, op: string, body: unknown) => app.call('POST', `/v1/${customer}/node/_${op}`, { body });
  const held = (customer: string, key = KEY) => storedIds(app, customer, key);

  /** A customer with the member schema and m-1 holding its key and `ids`. */
  async function customerHolding(ids: Array<{ type: string; id: string }>): Promise<string> {
    const customer = uniqueCustomer('limit');
    await putSchema(app, customer);
    await createNode(app, customer, buildNode({ ids }));
    return customer;
  }

  test('when create would make a node of more than NODE_MAX_IDS IDs, then 409 node_id_limit_reached and no node is made', async () => {
    const customer = uniqueCustomer('limit');
    await putSchema(app, customer);
    const res = await send(customer, 'create', buildNode({ ids: [id('device', 'd-1'), id('device', 'd-2'), id('cookie', 'c-1')] }));
    expectProblem(res, 409, 'node_id_limit_reached');
    expect(res.body.detail).toMatch(/more than 3 IDs/);
    expect(await held(customer)).toBeUndefined();
  });

  test('when create makes a node of exactly NODE_MAX_IDS IDs, the key listed again and counted once, then 201', async () => {
    const customer = uniqueCustomer('limit');
    await putSchema(app, customer);
    const res = await send(customer, 'create', buildNode({ ids: [KEY, id('device', 'd-1'), id('cookie', 'c-1')] }));
    expect(res.status).toBe(201);
    expect(await held(customer)).toEqual([id('cookie', 'c-1'), id('device', 'd-1'), KEY]);
  });

  test('when insert would take the node past NODE_MAX_IDS, then 409 node_id_limit_reached and none of the IDs is added', async () => {
    const customer = await customerHolding([id('device', 'd-1')]);
    expectProblem(await send(customer, 'insert', buildInsert({ ids: [id('cookie', 'c-1'), id('cookie', 'c-2')] })), 409, 'node_id_limit_reached');
    expect(await held(customer)).toEqual([id('device', 'd-1'), KEY]);
    expect((await send(customer, 'insert', buildInsert({ ids: [id('cookie', 'c-1')] }))).status).toBe(201);
    expectProblem(await send(customer, 'insert', buildInsert({ ids: [id('cookie', 'c-2')] })), 409, 'node_id_limit_reached');
    expect(await held(customer)).toEqual([id('cookie', 'c-1'), id('device', 'd-1'), KEY]);
  });

  test('when upsert would add an ID to a full node, then 409 node_id_limit_reached; replacing a held ID and rekeying still work', async () => {
    const customer = await customerHolding([id('device', 'd-1'), id('cookie', 'c-1')]);
    expectProblem(await send(customer, 'upsert', buildUpdate({ where: id('device', 'd-9'), set: id('device', 'd-2') })), 409, 'node_id_limit_reached');
    expect(await held(customer)).toEqual([id('cookie', 'c-1'), id('device', 'd-1'), KEY]);
    // A replacement does not grow the node, nor does rekeying.
    expect((await send(customer, 'upsert', buildUpdate({ where: id('device', 'd-1'), set: id('device', 'd-2') }))).status).toBe(200);
    expect((await send(customer, 'update', buildUpdate({ where: id('cookie', 'c-1'), set: id('cookie', 'c-2') }))).status).toBe(200);
    expect(await held(customer)).toEqual([id('cookie', 'c-2'), id('device', 'd-2'), KEY]);
    expect((await send(customer, 'rekeying', buildRekey({ set: { id: 'm-9' } }))).status).toBe(200);
    expect(await held(customer, id('member_id', 'm-9'))).toEqual([id('cookie', 'c-2'), id('device', 'd-2'), id('member_id', 'm-9')]);
  });

  test('when an ID is deleted from a full node, then one more can be added', async () => {
    const customer = await customerHolding([id('device', 'd-1'), id('cookie', 'c-1')]);
    expect((await send(customer, 'delete', buildDelete({ where: id('cookie', 'c-1') }))).status).toBe(204);
    expect((await send(customer, 'insert', buildInsert({ ids: [id('cookie', 'c-2')] }))).status).toBe(201);
    expect(await held(customer)).toEqual([id('cookie', 'c-2'), id('device', 'd-1'), KEY]);
  });

  test('when bulk lines would take a node past NODE_MAX_IDS, then those lines are 409 node_id_limit_reached and the others run', async () => {
    const customer = uniqueCustomer('limit');
    await putSchema(app, customer);
    const lines = [
      { op: 'create', body: buildNode({ ids: [id('device', 'd-1'), id('device', 'd-2'), id('cookie', 'c-1')] }) },
      { op: 'create', body: buildNode({ ids: [id('device', 'd-1')] }) },
      { op: 'insert', body: buildInsert({ ids: [id('cookie', 'c-1'), id('cookie', 'c-2')] }) },
      { op: 'insert', body: buildInsert({ ids: [id('cookie', 'c-1')] }) },
      { op: 'upsert', body: buildUpdate({ where: id('device', 'd-9'), set: id('device', 'd-2') }) },
      { op: 'delete', body: buildDelete({ where: id('cookie', 'c-1') }) },
      { op: 'upsert', body: buildUpdate({ where: id('device', 'd-9'), set: id('device', 'd-2') }) },
      { op: 'insert', body: buildInsert({ ids: [id('cookie', 'c-3')] }) },
    ];
    const res = await postBulk(app.baseUrl, customer, lines.map((l) => JSON.stringify(l)).join('\n'));
    expect(contractProblems('POST', `/v1/${customer}/node/_bulk`, res)).toEqual([]);
    expect(res.status).toBe(200);
    const results = res.text
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { line: number; status: number; code?: string });
    expect(results.map((r) => [r.line, r.status, r.code])).toEqual([
      [1, 409, 'node_id_limit_reached'],
      [2, 201, undefined],
      [3, 409, 'node_id_limit_reached'],
      [4, 201, undefined],
      [5, 409, 'node_id_limit_reached'],
      [6, 204, undefined],
      [7, 200, undefined],
      [8, 409, 'node_id_limit_reached'],
    ]);
    expect(await held(customer)).toEqual([id('device', 'd-1'), id('device', 'd-2'), KEY]);
  });
});

describe('NODE_MAX_IDS under concurrency', () => {
  const LIMIT = 20;
  const PARALLEL = 50;
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp({ env: { NODE_MAX_IDS: String(LIMIT) } });
  });
  afterAll(() => app.close());

  test(`when ${PARALLEL} inserts and upserts of distinct IDs race into one node holding only its key, then exactly ${LIMIT - 1} succeed and the node holds ${LIMIT} IDs`, async () => {
    const customer = uniqueCustomer('limit-race');
    await putSchema(app, customer);
    await createNode(app, customer, buildNode({ ids: [] }));
    const device = (i: number) => id('device', `d-${String(i).padStart(2, '0')}`);
    const responses = await Promise.all(
      Array.from({ length: PARALLEL }, (_, i) =>
        i % 2 === 0
          ? app.call('POST', `/v1/${customer}/node/_insert`, { body: buildInsert({ ids: [device(i)] }) })
          : app.call('POST', `/v1/${customer}/node/_upsert`, { body: buildUpdate({ where: id('device', 'never-held'), set: device(i) }) }),
      ),
    );
    const succeeded = responses.flatMap((res, i) => (res.status === 201 || res.status === 200 ? [i] : []));
    const refused = responses.filter((res) => res.status === 409);
    expect({ succeeded: succeeded.length, refused: refused.length }).toEqual({ succeeded: LIMIT - 1, refused: PARALLEL - (LIMIT - 1) });
    for (const res of refused) expect(res.body.code).toBe('node_id_limit_reached');
    // Exactly the IDs of the writes that were answered with success, and the key: none of a refused write.
    const expected = [...succeeded.map(device), KEY].sort((a, b) => (a.type + a.id < b.type + b.id ? -1 : 1));
    expect(await storedIds(app, customer, KEY)).toEqual(expected);
  });
});
