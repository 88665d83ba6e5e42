import { startApp, type TestApp } from '../helpers/app';

describe('health endpoints', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(() => app.close());

  test('when the process runs, then /healthz is 200', async () => {
    const res = await app.call('GET', '/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  test('when the store answers, then /readyz is 200', async () => {
    const res = await app.call('GET', '/readyz');
    expect(res.status).toBe(200);
  });

  test('when the store is closed, then /readyz is 503 store_unavailable', async () => {
    const other = await startApp();
    await other.store.close();
    const res = await other.call('GET', '/readyz');
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('store_unavailable');
    await other.close();
  });

  test('when the path is unknown, then the answer is a 404 problem', async () => {
    const res = await app.call('GET', '/v2/nothing');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe('not_found');
  });
});

describe('a closed store', () => {
  test('when the store has been closed, then node operations and search answer 503 store_unavailable, not 500', async () => {
    const app = await startApp();
    await app.store.close();
    const search = await app.call('POST', '/v1/acme/_search', { body: { match: { from: { where: { type: 'device', id: 'd' } } } } });
    expect(search.status).toBe(503);
    expect(search.body.code).toBe('store_unavailable');
    const create = await app.call('POST', '/v1/acme/node/_create', { body: { schema: 'member', key: { type: 'member_id', id: 'm' } } });
    expect(create.status).toBe(503);
    await app.close();
  });
});

describe('probes and odd paths', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(() => app.close());

  test('when a load balancer adds a query string to a probe, then it is ignored', async () => {
    expect((await app.call('GET', '/healthz?ts=1')).status).toBe(200);
    expect((await app.call('GET', '/readyz?x=1&y=2')).status).toBe(200);
  });

  test('when a path has broken percent-encoding, then the answer is 400 validation_failed, not a body error', async () => {
    const res = await app.call('GET', '/v1/%zz/schema');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.errors).toEqual([{ path: '/path', message: 'is not valid percent-encoding' }]);
  });
});
