// A whole _bulk request through the real HTTP stack, its NDJSON answer kept as text (supertest would not parse it).
import request from 'supertest';

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
