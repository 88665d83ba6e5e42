// Without PUBLIC_BASE_URL the delivery `link` and `Location` headers are built from the request's Host header.
// A Host that is not host[:port] (RFC 3986) could close the `<…>` of a link entry and add entries of its own:
// it is refused with 400 malformed_request on every path, before anything runs.
import net from 'node:net';
import request from 'supertest';
import { startApp, type TestApp } from '../helpers/app';
import { expectProblem, uniqueCustomer } from '../helpers/builders-nodesearch';
import { contractProblems } from '../helpers/contract';
import { buildDelivery, listPage, postDelivery } from '../helpers/deliveries';
import { issueToken } from '../helpers/factories';

const INJECTION = 'a>; rel="next", <http://evil.example';

/** Writes one raw request and reads until the server closes the connection. */
function sendRaw(baseUrl: string, bytes: string): Promise<{ statusLine: string; head: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(new URL(baseUrl).port), '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = Buffer.concat(chunks).toString('utf8').split('\r\n\r\n', 2);
      resolve({ statusLine: head.split('\r\n', 1)[0] ?? '', head, body });
    });
    socket.write(bytes);
  });
}

describe('the Host header', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(() => app.close());

  /** A customer with two deliveries, so that page 1 of count=1 has a next page. */
  async function customerWithTwoDeliveries(): Promise<string> {
    const { token } = await issueToken(app, uniqueCustomer('host'), 'mapi');
    await postDelivery(app, token, buildDelivery({ name: 'one' }));
    await postDelivery(app, token, buildDelivery({ name: 'two' }));
    return token;
  }

  const list = (token: string, host: string) => request(app.baseUrl).get('/v1/delivery?count=1&page=1').set('X-SERVICE-MAPI-TOKEN', token).set('Host', host);

  test('when the Host would inject a link entry, then the list is 400 malformed_request with no link header', async () => {
    const token = await customerWithTwoDeliveries();
    const res = await list(token, INJECTION);
    expect(contractProblems('GET', '/v1/delivery', res)).toEqual([]);
    expectProblem(res, 400, 'malformed_request');
    expect(res.headers.link).toBeUndefined();
    expect(res.text).not.toContain('evil');
  });

  test('when a create carries such a Host, then 400, no Location, and nothing is stored', async () => {
    const { token } = await issueToken(app, uniqueCustomer('host'), 'mapi');
    const res = await request(app.baseUrl).post('/v1/delivery').set('X-SERVICE-MAPI-TOKEN', token).set('Host', INJECTION).send(buildDelivery());
    expect(contractProblems('POST', '/v1/delivery', res)).toEqual([]);
    expectProblem(res, 400, 'malformed_request');
    expect(res.headers.location).toBeUndefined();
    expect((await listPage(app, token)).total).toBe(0);
  });

  test.each(['a b', 'a<b', 'a>b', 'a"b', 'a/b', 'a@b', 'a?b', 'a#b', 'a:b', 'a:123456', '[::1', '[zz::1]', '[::1%25eth0]', '', 'ex\u00e4mple.com'])(
    'when the Host is %j, then any path answers 400 malformed_request',
    async (host) => {
      const res = await request(app.baseUrl).get('/healthz').set('Host', host);
      expectProblem(res, 400, 'malformed_request');
    },
  );

  test('when two Host lines are sent, then 400 malformed_request', async () => {
    const answer = await sendRaw(app.baseUrl, 'GET /healthz HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\nConnection: close\r\n\r\n');
    expect(answer.statusLine).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'malformed_request' });
  });

  test.each([
    ['example.com:8080', 'http://example.com:8080'],
    ['10.0.0.7', 'http://10.0.0.7'],
    ['[::1]:8443', 'http://[::1]:8443'],
    ['[2001:db8::7]', 'http://[2001:db8::7]'],
    ['svc_1.internal', 'http://svc_1.internal'],
    ['xn--exmple-cua.com', 'http://xn--exmple-cua.com'],
  ])('when the Host is %s, then the link and Location URLs are built on %s', async (host, base) => {
    const token = await customerWithTwoDeliveries();
    const res = await list(token, host);
    expect(res.status).toBe(200);
    expect(res.headers.link).toBe(`<${base}/v1/delivery?count=1&page=2>; rel="next"`);
    const created = await request(app.baseUrl).post('/v1/delivery').set('X-SERVICE-MAPI-TOKEN', token).set('Host', host).send(buildDelivery());
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe(`${base}/v1/delivery/${(created.body as { delivery_id: number }).delivery_id}`);
  });

  test('when an HTTP/1.0 request has no Host, then the list (which needs one) is 400 and a health check still answers', async () => {
    const token = await customerWithTwoDeliveries();
    const listed = await sendRaw(app.baseUrl, `GET /v1/delivery?count=1 HTTP/1.0\r\nX-SERVICE-MAPI-TOKEN: ${token}\r\n\r\n`);
    expect(listed.statusLine).toMatch(/^HTTP\/1\.1 400 /);
    expect(listed.head.toLowerCase()).not.toContain('\r\nlink:');
    expect(JSON.parse(listed.body)).toMatchObject({ code: 'malformed_request' });
    const health = await sendRaw(app.baseUrl, 'GET /healthz HTTP/1.0\r\n\r\n');
    expect(health.statusLine).toMatch(/^HTTP\/1\.1 200 /);
  });

  test.each([
    ['https://api.example.com/idlink', 'https://api.example.com/idlink'],
    ['https://api.example.com/id"link>', 'https://api.example.com/id%22link%3E'],
  ])('when PUBLIC_BASE_URL is %s, then the URLs are built on %s, whatever well-formed Host is sent', async (configured, base) => {
    const proxied = await startApp({ env: { PUBLIC_BASE_URL: configured } });
    try {
      const { token } = await issueToken(proxied, uniqueCustomer('host'), 'mapi');
      await postDelivery(proxied, token, buildDelivery({ name: 'one' }));
      const created = await request(proxied.baseUrl).post('/v1/delivery').set('X-SERVICE-MAPI-TOKEN', token).set('Host', 'internal:9999').send(buildDelivery());
      expect(created.headers.location).toBe(`${base}/v1/delivery/${(created.body as { delivery_id: number }).delivery_id}`);
      const res = await request(proxied.baseUrl).get('/v1/delivery?count=1&page=2').set('X-SERVICE-MAPI-TOKEN', token).set('Host', 'internal:9999');
      expect(res.headers.link).toBe(`<${base}/v1/delivery?count=1&page=1>; rel="previous", <${base}/v1/delivery?count=1&page=1>; rel="prev"`);
    } finally {
      await proxied.close();
    }
  });
});
