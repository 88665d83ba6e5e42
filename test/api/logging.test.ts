// The access log (one JSON line per request, tied to X-Request-Id) and the proof that secrets and secure ID values
// never reach the log.
import { recordingRequestIds, untilAccessLogged } from '../helpers/access-log';
import { ADMIN_TOKEN, startApp, type TestApp } from '../helpers/app';
import { memberSchema, putSchema } from '../helpers/factories';
import {
  accessLinesFor,
  buildSearch,
  contactSchema,
  expectInvalidToken,
  issueLabelledToken,
  nodePath,
  parsedLogs,
  revokeToken,
  searchPath,
  uniqueCustomer,
} from '../helpers/builders-auth';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('access log', () => {
  let app: TestApp;
  let customer: string;

  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(() => app.close());
  beforeEach(async () => {
    customer = uniqueCustomer('log');
    await putSchema(app, customer, 'member', memberSchema);
  });

  test('when every captured line is read, then each is one JSON object with a level, message and timestamp', async () => {
    await app.call('GET', '/healthz');
    expect(app.logs.length).toBeGreaterThan(0);
    for (const line of app.logs) {
      expect(line).not.toContain('\n');
      const parsed = JSON.parse(line) as Record<string, unknown>;
      expect(parsed).toEqual(expect.objectContaining({ level: expect.any(String), message: expect.any(String), timestamp: expect.any(String) }));
    }
  });

  test('when a node is created, then exactly one line describes the request with id, method, route template, status, duration and customer', async () => {
    const res = await app.call('POST', nodePath(customer, '_create'), {
      headers: { 'X-Request-Id': `req-create-${customer}` },
      body: { schema: 'member', key: { type: 'member_id', id: 'm-1' } },
    });
    expect(res.status).toBe(201);
    expect(res.headers['x-request-id']).toBe(`req-create-${customer}`);

    const lines = await accessLinesFor(app, `req-create-${customer}`);
    expect(lines).toHaveLength(1);
    const [line] = lines;
    expect(line).toEqual(
      expect.objectContaining({
        level: 'info',
        request_id: `req-create-${customer}`,
        method: 'POST',
        route: '/v1/:customer_id/node/_create',
        status: 201,
        customer,
      }),
    );
    expect(typeof line?.duration_ms).toBe('number');
    expect(line?.duration_ms as number).toBeGreaterThanOrEqual(0);
  });

  test('when the client sends no request id, then a UUID is generated, returned in X-Request-Id and used in the log line', async () => {
    const res = await app.call('POST', searchPath(customer), { body: buildSearch({ schema: 'member', key: { type: 'member_id', id: 'none' } }) });
    expect(res.status).toBe(200);
    const id = res.headers['x-request-id'] as string;
    expect(id).toMatch(UUID);
    const lines = await accessLinesFor(app, id);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ method: 'POST', route: '/v1/:customer_id/_search', status: 200, customer });
  });

  test('when the offered request id is not sane, then a fresh one is used and the offered one is not logged', async () => {
    const offered = 'bad id with spaces and <markup>';
    const res = await app.call('GET', '/healthz', { headers: { 'X-Request-Id': offered } });
    const id = res.headers['x-request-id'] as string;
    expect(id).toMatch(UUID);
    expect(await accessLinesFor(app, id)).toHaveLength(1);
    expect(app.logs.some((l) => l.includes('<markup>'))).toBe(false);
  });

  test('when a request fails, then its line carries the error status and the route template', async () => {
    const res = await app.call('POST', nodePath(customer, '_insert'), {
      headers: { 'X-Request-Id': `req-missing-${customer}` },
      body: { schema: 'member', key: { type: 'member_id', id: 'absent' }, ids: [{ type: 'device', id: 'd-1' }] },
    });
    expect(res.status).toBe(404);
    expect(res.body.request_id).toBe(`req-missing-${customer}`);
    const lines = await accessLinesFor(app, `req-missing-${customer}`);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ method: 'POST', route: '/v1/:customer_id/node/_insert', status: 404, customer });
  });

  test('when a token is refused, then the line carries 401, the route template and the customer', async () => {
    const res = await app.call('POST', nodePath(customer, '_create'), {
      headers: { 'X-Request-Id': `req-401-${customer}`, Authorization: 'Bearer not-a-token-we-issued-0123456789' },
      body: { schema: 'member', key: { type: 'member_id', id: 'm-x' } },
    });
    expectInvalidToken(res);
    const lines = await accessLinesFor(app, `req-401-${customer}`);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ method: 'POST', route: '/v1/:customer_id/node/_create', status: 401, customer });
  });

  test('when a path matches no route, then one line says so with status 404', async () => {
    const res = await app.call('GET', '/v1/nothing/here/at/all', { headers: { 'X-Request-Id': `req-404-${customer}` } });
    expect(res.status).toBe(404);
    const lines = await accessLinesFor(app, `req-404-${customer}`);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ method: 'GET', status: 404 });
    expect(lines[0]?.route).not.toContain('nothing');
  });

  test('when several requests run, then each gets its own id and its own single line', async () => {
    const ids = Array.from({ length: 10 }, (_, i) => `req-many-${i}-${customer}`);
    const responses = await Promise.all(
      ids.map((id, i) =>
        app.call('POST', nodePath(customer, '_create'), {
          headers: { 'X-Request-Id': id },
          body: { schema: 'member', key: { type: 'member_id', id: `m-${i}` } },
        }),
      ),
    );
    responses.forEach((res, i) => expect(res.headers['x-request-id']).toBe(ids[i]));
    for (const id of ids) expect(await accessLinesFor(app, id)).toHaveLength(1);
  });
});

describe('secrets never reach the log', () => {
  test('when a realistic session runs, then no log line holds the admin token, an issued secret or a secure e-mail value', async () => {
    const app = recordingRequestIds(await startApp());
    try {
      const customer = uniqueCustomer('secrecy');
      const secureValues = ['secret.person@example.com', 'hidden.partner@example.com', 'renamed.person@example.com'];
      const secrets: string[] = [ADMIN_TOKEN];
      const badToken = 'idl_bearer_ThisLooksSecretButWasNeverIssued0123456789';
      secrets.push(badToken);

      await putSchema(app, customer, 'member', memberSchema);
      await putSchema(app, customer, 'contact', contactSchema);
      const bearer = await issueLabelledToken(app, customer, 'bearer', 'crm');
      const mapi = await issueLabelledToken(app, customer, 'mapi');
      const doomed = await issueLabelledToken(app, customer, 'bearer', 'to revoke');
      secrets.push(bearer.token, mapi.token, doomed.token);

      const ok = async (p: Promise<{ status: number; text: string }>, status: number) => {
        const res = await p;
        expect({ status: res.status, text: res.text }).toEqual({ status, text: expect.any(String) });
      };
      const [secret, partner, renamed] = secureValues as [string, string, string];
      const email = (id: string) => ({ type: 'email', id });
      const member = { type: 'member_id', id: 'm-secret' };

      await ok(
        app.call('POST', nodePath(customer, '_create'), {
          token: bearer.token,
          body: { schema: 'member', key: member, ids: [email(secret), { type: 'device', id: 'd-1' }] },
        }),
        201,
      );
      await ok(
        app.call('POST', nodePath(customer, '_create'), {
          token: bearer.token,
          body: { schema: 'contact', key: email(partner), ids: [{ type: 'device', id: 'd-1' }] },
        }),
        201,
      );
      // A conflict whose response names the secure ID.
      await ok(app.call('POST', nodePath(customer, '_insert'), { token: bearer.token, body: { schema: 'member', key: member, ids: [email(secret)] } }), 409);
      await ok(app.call('POST', nodePath(customer, '_create'), { token: bearer.token, body: { schema: 'contact', key: email(partner) } }), 409);
      // Searches from the secure value, with the token and (refused) without.
      const found = await app.call('POST', searchPath(customer), { token: bearer.token, body: buildSearch({ where: email(secret) }) });
      expect(found.body.results).toEqual(expect.arrayContaining([email(secret), email(partner)]));
      await ok(app.call('POST', searchPath(customer), { body: buildSearch({ where: email(secret) }) }), 401);
      await ok(app.call('POST', searchPath(customer), { token: mapi.token, body: buildSearch({ where: email(secret) }) }), 403);
      // A rekeying and an update of secure values.
      await ok(
        app.call('POST', nodePath(customer, '_rekeying'), { token: bearer.token, body: { schema: 'contact', key: email(partner), set: { id: renamed } } }),
        200,
      );
      await ok(
        app.call('POST', nodePath(customer, '_update'), {
          token: ADMIN_TOKEN,
          body: { schema: 'member', key: member, where: email(secret), set: email(partner) },
        }),
        200,
      );
      // Revocation, then the revoked token and a token that was never issued.
      await revokeToken(app, customer, doomed.token_id);
      expectInvalidToken(await app.call('POST', searchPath(customer), { token: doomed.token, body: buildSearch({ where: email(partner) }) }));
      expectInvalidToken(await app.call('POST', nodePath(customer, '_delete'), { token: badToken, body: { schema: 'contact', key: email(renamed) } }));
      expectInvalidToken(
        await app.call('GET', `/v1/${customer}/token`, { headers: { Authorization: `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}` } }),
      );
      // A body that breaks the schema while carrying a secure value.
      await ok(app.call('POST', nodePath(customer, '_create'), { token: bearer.token, body: { schema: 'member', key: email(secret), surplus: secret } }), 400);
      await ok(app.call('DELETE', `/v1/${customer}/token/${bearer.token_id}`, { token: ADMIN_TOKEN }), 204);

      // Every request's access line has landed, and the log really covers the session.
      await untilAccessLogged(app, app.requestIds);
      expect(app.requestIds.length).toBeGreaterThanOrEqual(19);
      const requestLines = parsedLogs(app).filter((l) => l.message === 'request');
      expect(requestLines.length).toBeGreaterThanOrEqual(19);

      const leaks = app.logs.filter((line) =>
        [...secrets, ...secureValues, Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')].some((s) => line.includes(s)),
      );
      expect(leaks).toEqual([]);
    } finally {
      await app.close();
    }
  });
});
