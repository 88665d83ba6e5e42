// POST /floor, the bench's store floor (BENCH_FLOOR_ROUTE): mounted only when the setting is on. Plain requests,
// not app.call: the route is no part of openapi.yaml.
import request from 'supertest';
import { startApp, type TestApp } from '../helpers/app';

describe('bench floor route', () => {
  const apps: TestApp[] = [];
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((a) => a.close()));
  });
  const start = async (env: Record<string, string>) => {
    const app = await startApp({ env });
    apps.push(app);
    return app;
  };

  test('when BENCH_FLOOR_ROUTE is true, then POST /floor runs the store floor and answers the constant body', async () => {
    const app = await start({ BENCH_FLOOR_ROUTE: 'true' });
    const floor = jest.spyOn(app.store, 'floor');
    const res = await request(app.baseUrl)
      .post('/floor')
      .send({ match: { from: { schema: 'member', key: { type: 'member_id', id: 'm-1' } } } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ results: [{ type: 'member_id', id: 'm-1' }], total: 1 });
    expect(floor).toHaveBeenCalledTimes(1);
  });

  test('when BENCH_FLOOR_ROUTE is not set, then /floor is the 404 problem of any unknown path', async () => {
    const app = await start({});
    const res = await request(app.baseUrl).post('/floor').send({});
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  test('when the store is closed, then POST /floor is a 503 store_unavailable problem, not a 500', async () => {
    const app = await start({ BENCH_FLOOR_ROUTE: 'true' });
    await app.store.close();
    const res = await request(app.baseUrl).post('/floor').send({});
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('store_unavailable');
  });
});
