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
