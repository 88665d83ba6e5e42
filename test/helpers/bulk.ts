// A whole _bulk request through the real HTTP stack, its NDJSON answer kept as text (supertest would not parse it).
import request from 'supertest';
import { contractProblems } from './contract';

/** One NDJSON line of a _bulk answer. */
export interface BulkResult {
  line: number;
  status: number;
  code?: string;
  detail?: string;
  errors?: Array<{ path: string; message: string }>;
}

export async function postBulk(baseUrl: string, customer: string, body: string, options: { token?: string; contentType?: string } = {}): Promise<request.Response> {
  let req = request(baseUrl).post(`/v1/${customer}/node/_bulk`).set('Content-Type', options.contentType ?? 'application/x-ndjson');
  if (options.token) req = req.set('Authorization', `Bearer ${options.token}`);
  const res = await req
    .buffer(true)
    .parse((response, done) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => done(null, text));
    })
    .send(body);
  res.text = res.body as string;
  return res;
}

/**
 * postBulk, then the answer checked against openapi.yaml (a problem's body parsed first), and the result lines of a
 * 200 answer (none for any other status).
 */
export async function bulkChecked(
  baseUrl: string,
  customer: string,
  body: string,
  options: { token?: string; contentType?: string } = {},
): Promise<{ res: request.Response; results: BulkResult[] }> {
  const res = await postBulk(baseUrl, customer, body, options);
  if (String(res.headers['content-type']).startsWith('application/problem+json')) res.body = JSON.parse(res.text);
  expect(contractProblems('POST', `/v1/${customer}/node/_bulk`, res)).toEqual([]);
  const results = res.status === 200 ? res.text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as BulkResult) : [];
  return { res, results };
}
