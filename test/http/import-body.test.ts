// What an _import body can make the service read and hold: a body of 2 GB in one line is refused once the line passes
// the import's line limit (16 MB), without the rest being read, and the customer holds nothing; a body that is not NDJSON, or with an
// encoding other than gzip, is 415 before anything is read. The store does not decide any of it: SQLite only.
import http from 'node:http';
import { ADMIN_TOKEN, startApp, type TestApp } from '../helpers/app';
import { uniqueCustomer } from '../helpers/builders-nodesearch';

const TWO_GB = 2 * 1024 ** 3;

describe('import bodies', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(() => app.close());

  test('when a body of 2 GB is one line, then the answer is 400 invalid_import for line 1 long before the body ends, and the customer holds nothing', async () => {
    const customer = uniqueCustomer('import-huge');
    const chunk = Buffer.alloc(1024 * 1024, 'x');
    const { status, body, sent } = await new Promise<{ status: number; body: string; sent: number }>((resolve, reject) => {
      let sent = 0;
      const request = http.request(`${app.baseUrl}/v1/${customer}/_import`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/x-ndjson', 'Content-Length': String(TWO_GB) },
      });
      let answered = false;
      request.on('response', (res) => {
        answered = true;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (part: string) => (text += part));
        res.on('end', () => {
          request.destroy();
          resolve({ status: res.statusCode ?? 0, body: text, sent });
        });
      });
      request.on('error', (e) => {
        if (!answered) reject(e);
      });
      const pump = () => {
        while (!answered && sent < TWO_GB) {
          sent += chunk.length;
          if (!request.write(chunk)) {
            request.once('drain', pump);
            return;
          }
        }
      };
      pump();
    });
    expect(status).toBe(400);
    expect(JSON.parse(body)).toMatchObject({ code: 'invalid_import', line: 1 });
    // The server stopped reading: at most what the sockets' buffers took after the line passed 16 MB.
    expect(sent).toBeLessThan(96 * 1024 * 1024);
    const left = await fetch(`${app.baseUrl}/v1/${customer}/_export`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect((await left.text()).split('\n').filter((l) => l.includes('"kind":"node"'))).toEqual([]);
  });

  test('when the body is JSON, or deflate, then 415 unsupported_media_type', async () => {
    const customer = uniqueCustomer('import-type');
    const json = await app.call('POST', `/v1/${customer}/_import`, { token: ADMIN_TOKEN, body: { kind: 'export' } });
    expect(json.status).toBe(415);
    const deflate = await fetch(`${app.baseUrl}/v1/${customer}/_import`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, 'Content-Type': 'application/x-ndjson', 'Content-Encoding': 'deflate' },
      body: 'x',
    });
    expect(deflate.status).toBe(415);
  });
});
