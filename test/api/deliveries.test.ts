// The delivery endpoints through HTTP: paging and its headers, every bound of a delivery, tokens, refused writes
// and the fields the server owns. Every response is also checked against openapi.yaml by `app.call`.
import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import type { DeliveryAnswer as Delivery } from '../helpers/deliveries';
import { ADMIN_TOKEN, startApp, type TestApp } from '../helpers/app';
import {
  asMapi,
  buildButton,
  buildCondition,
  buildDelivery,
  buildMessage,
  buildPeriod,
  clientPart,
  type DeliveryBody,
  listPage,
  type MessageBody,
  periods,
  postDelivery,
  urlOfLength,
} from '../helpers/deliveries';
import { issueToken } from '../helpers/factories';

let customerCounter = 0;
const newCustomer = (): string => `dlv-${++customerCounter}-${randomBytes(4).toString('hex')}`;

/** A well-formed secret the service never issued. */
const unknownMapiToken = (): string => `idl_mapi_${randomBytes(32).toString('base64url')}`;

function expectProblem(res: Response, status: number, code: string): void {
  expect({ status: res.status, code: (res.body as { code?: unknown }).code }).toEqual({ status, code });
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
}

/** 400 validation_failed whose every error points at `path`. */
function expectInvalidAt(res: Response, path: string): void {
  expectProblem(res, 400, 'validation_failed');
  const paths = ((res.body as { errors?: Array<{ path: string }> }).errors ?? []).map((e) => e.path);
  expect(paths.length).toBeGreaterThan(0);
  expect([...new Set(paths)]).toEqual([path]);
}

const firstMessage = (d: DeliveryBody): MessageBody => d.message[0] as MessageBody;
const ids = (items: Delivery[]): number[] => items.map((d) => d.delivery_id);

describe('deliveries API', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(() => app.close());

  const pageUrl = (query: string): string => `<${app.baseUrl}/v1/delivery?${query}>`;

  // ------------------------------------------------------------------ paging
  describe('listing page by page (45 deliveries)', () => {
    let token: string;
    let all: number[];
    beforeAll(async () => {
      token = (await issueToken(app, newCustomer(), 'mapi')).token;
      all = [];
      for (let i = 1; i <= 45; i++) all.push((await postDelivery(app, token, buildDelivery({ name: `delivery ${i}` }))).delivery_id);
    });

    const walk = [
      { page: 1, from: 0, to: 20, link: () => `${pageUrl('count=20&page=2')}; rel="next"` },
      {
        page: 2,
        from: 20,
        to: 40,
        link: () => `${pageUrl('count=20&page=3')}; rel="next", ${pageUrl('count=20&page=1')}; rel="previous", ${pageUrl('count=20&page=1')}; rel="prev"`,
      },
      { page: 3, from: 40, to: 45, link: () => `${pageUrl('count=20&page=2')}; rel="previous", ${pageUrl('count=20&page=2')}; rel="prev"` },
      { page: 4, from: 45, to: 45, link: () => `${pageUrl('count=20&page=3')}; rel="previous", ${pageUrl('count=20&page=3')}; rel="prev"` },
    ];

    test.each(walk)('when page $page is asked with count=20, then it holds its slice, the exact link header and X-Total-Count 45', async (w) => {
      const res = await app.call('GET', `/v1/delivery?count=20&page=${w.page}`, asMapi(token));
      expect(res.status).toBe(200);
      expect(ids(res.body as Delivery[])).toEqual(all.slice(w.from, w.to));
      expect(res.headers.link).toBe(w.link());
      expect(res.headers['x-total-count']).toBe('45');
    });

    test('when all pages are walked, then every delivery comes once, in ascending delivery_id order', async () => {
      const seen: number[] = [];
      for (let page = 1; page <= 4; page++) seen.push(...ids((await listPage(app, token, `?count=20&page=${page}`)).items));
      expect(seen).toHaveLength(45);
      expect(new Set(seen).size).toBe(45);
      expect(seen).toEqual([...seen].sort((a, b) => a - b));
      expect(seen).toEqual(all);
    });

    test('when count is absent, then pages hold 20 and the links carry count=20', async () => {
      const first = await listPage(app, token);
      expect(ids(first.items)).toEqual(all.slice(0, 20));
      expect(first.link).toBe(`${pageUrl('count=20&page=2')}; rel="next"`);
      expect(first.total).toBe(45);

      const second = await listPage(app, token, '?page=2');
      expect(ids(second.items)).toEqual(all.slice(20, 40));
      expect(second.link).toBe(
        `${pageUrl('count=20&page=3')}; rel="next", ${pageUrl('count=20&page=1')}; rel="previous", ${pageUrl('count=20&page=1')}; rel="prev"`,
      );
    });

    test('when the last page is exactly full, then it has no next link', async () => {
      const last = await listPage(app, token, '?count=15&page=3');
      expect(ids(last.items)).toEqual(all.slice(30, 45));
      expect(last.link).toBe(`${pageUrl('count=15&page=2')}; rel="previous", ${pageUrl('count=15&page=2')}; rel="prev"`);
    });

    test('when count is 1, then one delivery comes with a next link only', async () => {
      const res = await app.call('GET', '/v1/delivery?count=1', asMapi(token));
      expect(res.status).toBe(200);
      expect(ids(res.body as Delivery[])).toEqual(all.slice(0, 1));
      expect(res.headers.link).toBe(`${pageUrl('count=1&page=2')}; rel="next"`);
      expect(res.headers['x-total-count']).toBe('45');
    });

    test('when count is 100, then all 45 come on one page and there is no link header', async () => {
      const res = await app.call('GET', '/v1/delivery?count=100&page=1', asMapi(token));
      expect(res.status).toBe(200);
      expect(ids(res.body as Delivery[])).toEqual(all);
      expect(res.headers.link).toBeUndefined();
      expect(res.headers['x-total-count']).toBe('45');
    });

    test('when page is 1000000, then it is accepted and empty, with a previous link', async () => {
      const res = await app.call('GET', '/v1/delivery?count=20&page=1000000', asMapi(token));
      expect(res.status).toBe(200);
      expect(res.body).toEqual([]);
      expect(res.headers.link).toBe(`${pageUrl('count=20&page=999999')}; rel="previous", ${pageUrl('count=20&page=999999')}; rel="prev"`);
      expect(res.headers['x-total-count']).toBe('45');
    });

    test('when the customer has no deliveries, then the list is empty, X-Total-Count is 0 and there is no link header', async () => {
      const empty = (await issueToken(app, newCustomer(), 'mapi')).token;
      const res = await app.call('GET', '/v1/delivery', asMapi(empty));
      expect(res.status).toBe(200);
      expect(res.body).toEqual([]);
      expect(res.headers.link).toBeUndefined();
      expect(res.headers['x-total-count']).toBe('0');
    });
  });

  // ------------------------------------------------------------------ query bounds
  describe('query parameters', () => {
    let token: string;
    beforeAll(async () => {
      token = (await issueToken(app, newCustomer(), 'mapi')).token;
      await postDelivery(app, token);
    });

    test.each(['?count=1', '?count=100', '?page=1', '?count=1&page=1'])('when the query is %s, then it is accepted', async (query) => {
      const res = await app.call('GET', `/v1/delivery${query}`, asMapi(token));
      expect(res.status).toBe(200);
      expect(res.body).toHaveLength(1);
    });

    test.each([
      { query: '?count=0', path: '/query/count' },
      { query: '?count=101', path: '/query/count' },
      { query: '?count=abc', path: '/query/count' },
      { query: '?count=1.5', path: '/query/count' },
      { query: '?count=0x10', path: '/query/count' },
      { query: '?count=%205', path: '/query/count' },
      { query: '?count=', path: '/query/count' },
      { query: '?count=-1', path: '/query/count' },
      { query: '?page=0', path: '/query/page' },
      { query: '?page=1000001', path: '/query/page' },
      { query: '?page=abc', path: '/query/page' },
      { query: '?page=1e1', path: '/query/page' },
      { query: '?colour=red', path: '/query/colour' },
    ])('when the query is $query, then 400 validation_failed pointing at $path', async ({ query, path }) => {
      expectInvalidAt(await app.call('GET', `/v1/delivery${query}`, asMapi(token)), path);
    });

    test.each(['abc', '0', '-1', '1.5'])('when the delivery id in the path is %s, then 400 validation_failed pointing at /path/delivery_id', async (id) => {
      expectInvalidAt(await app.call('GET', `/v1/delivery/${id}`, asMapi(token)), '/path/delivery_id');
    });
  });

  // ------------------------------------------------------------------ lifecycle
  describe('create, read, replace, delete', () => {
    let token: string;
    beforeAll(async () => {
      token = (await issueToken(app, newCustomer(), 'mapi')).token;
    });

    test('when a delivery is posted, then 201 with the stored delivery, every field present, and a Location naming it', async () => {
      const body = buildDelivery();
      const res = await app.call('POST', '/v1/delivery', asMapi(token, body));
      expect(res.status).toBe(201);
      const created = res.body as Delivery;
      expect(clientPart(created)).toEqual(clientPart(body));
      expect(Object.keys(created).sort()).toEqual(['condition', 'delivery_id', 'message', 'name', 'priority']);
      expect(Object.keys(created.condition).sort()).toEqual(
        [
          'android_delivery_count',
          'category',
          'condition_id',
          'delivery_count',
          'iphone_delivery_count',
          'is_active',
          'max_delivery_count',
          'max_total_count',
          'max_total_count_per_day',
          'target',
          'trigger',
        ].sort(),
      );
      expect(Object.keys(created.message[0] as object).sort()).toEqual(['body', 'buttons', 'image_url', 'message_id', 'template_id', 'title']);
      expect(res.headers.location).toBe(`${app.baseUrl}/v1/delivery/${created.delivery_id}`);

      const read = await app.call('GET', `/v1/delivery/${created.delivery_id}`, asMapi(token));
      expect(read.status).toBe(200);
      expect(read.body).toEqual(created);
    });

    test('when a delivery is replaced, then 200 with the stored delivery and GET returns it', async () => {
      const original = await postDelivery(app, token);
      const body = buildDelivery({ name: 'Spring sale', priority: 3, condition: buildCondition({ is_active: false, category: 'spring' }) });
      const res = await app.call('PUT', `/v1/delivery/${original.delivery_id}`, asMapi(token, body));
      expect(res.status).toBe(200);
      expect(clientPart(res.body as Delivery)).toEqual(clientPart(body));
      expect((res.body as Delivery).delivery_id).toBe(original.delivery_id);
      expect((await app.call('GET', `/v1/delivery/${original.delivery_id}`, asMapi(token))).body).toEqual(res.body);
    });

    test('when a delivery is deleted, then 204, it is gone from GET and the list, and a second DELETE is 404', async () => {
      const kept = await postDelivery(app, token, buildDelivery({ name: 'kept' }));
      const gone = await postDelivery(app, token, buildDelivery({ name: 'gone' }));
      const before = await listPage(app, token, '?count=100');

      const res = await app.call('DELETE', `/v1/delivery/${gone.delivery_id}`, asMapi(token));
      expect(res.status).toBe(204);
      expect(res.text).toBe('');

      expectProblem(await app.call('GET', `/v1/delivery/${gone.delivery_id}`, asMapi(token)), 404, 'delivery_not_found');
      const after = await listPage(app, token, '?count=100');
      expect(ids(after.items)).toEqual(ids(before.items).filter((id) => id !== gone.delivery_id));
      expect(ids(after.items)).toContain(kept.delivery_id);
      expect(after.total).toBe(before.total - 1);
      expectProblem(await app.call('DELETE', `/v1/delivery/${gone.delivery_id}`, asMapi(token)), 404, 'delivery_not_found');
      expectProblem(await app.call('PUT', `/v1/delivery/${gone.delivery_id}`, asMapi(token, buildDelivery())), 404, 'delivery_not_found');
    });

    test.each(['GET', 'PUT', 'DELETE'] as const)('when %s names a delivery id that does not exist, then 404 delivery_not_found', async (method) => {
      const res = await app.call(method, '/v1/delivery/987654321', asMapi(token, method === 'PUT' ? buildDelivery() : undefined));
      expectProblem(res, 404, 'delivery_not_found');
    });
  });

  // ------------------------------------------------------------------ bounds
  describe('bounds of a delivery', () => {
    type Change = (d: DeliveryBody) => void;
    let token: string;
    let target: Delivery;
    beforeAll(async () => {
      token = (await issueToken(app, newCustomer(), 'mapi')).token;
      target = await postDelivery(app, token, buildDelivery({ name: 'target of PUT' }));
    });

    const changed = (change: Change): DeliveryBody => {
      const body = buildDelivery();
      change(body);
      return body;
    };

    const accepted: Array<{ name: string; change: Change }> = [
      { name: 'name has 100 characters', change: (d) => (d.name = 'n'.repeat(100)) },
      { name: 'name has 1 character', change: (d) => (d.name = 'n') },
      { name: 'title has 40 characters', change: (d) => (firstMessage(d).title = 't'.repeat(40)) },
      { name: 'body has 200 characters', change: (d) => (firstMessage(d).body = 'b'.repeat(200)) },
      { name: 'image_url has 2083 characters', change: (d) => (firstMessage(d).image_url = urlOfLength(2083)) },
      { name: 'image_url is http with its scheme in capitals', change: (d) => (firstMessage(d).image_url = 'HTTP://cdn.example.com/a.png') },
      { name: 'image_url is https on an IPv6 host', change: (d) => (firstMessage(d).image_url = 'https://[2001:db8::1]:8443/a.png') },
      ...['myapp://screen/1', 'HTTPS://example.com/x', 'mailto:help@example.com', 'javascript-docs://page/1', 'https://example.com/?next=javascript:x'].map(
        (url) => ({ name: `a button url is ${url}`, change: (d: DeliveryBody) => (firstMessage(d).buttons = [buildButton({ url })]) }),
      ),
      { name: 'trigger has 10 event names', change: (d) => (d.condition.trigger.event_name = Array.from({ length: 10 }, (_, i) => `event_${i}`)) },
      { name: 'an event name has 100 characters', change: (d) => (d.condition.trigger.event_name = ['e'.repeat(100)]) },
      { name: 'trigger has 100 periods', change: (d) => (d.condition.trigger.period = periods(100)) },
      { name: 'priority is 0', change: (d) => (d.priority = 0) },
      { name: 'segmentation_id is 0', change: (d) => (d.condition.target.segmentation_id = 0) },
      { name: 'max_delivery_count is 1', change: (d) => (d.condition.max_delivery_count = 1) },
      { name: 'max_total_count is 1', change: (d) => (d.condition.max_total_count = 1) },
      { name: 'max_total_count_per_day is 1', change: (d) => (d.condition.max_total_count_per_day = 1) },
      { name: 'category has 100 characters', change: (d) => (d.condition.category = 'c'.repeat(100)) },
      { name: 'a message has 5 buttons', change: (d) => (firstMessage(d).buttons = Array.from({ length: 5 }, (_, i) => buildButton({ id: `b${i}` }))) },
      { name: 'a message has no buttons', change: (d) => (firstMessage(d).buttons = []) },
      { name: 'a button id has 64 characters', change: (d) => (firstMessage(d).buttons = [buildButton({ id: 'i'.repeat(64) })]) },
      { name: 'a button name has 100 characters', change: (d) => (firstMessage(d).buttons = [buildButton({ name: 'n'.repeat(100) })]) },
      { name: 'a button event name has 100 characters', change: (d) => (firstMessage(d).buttons = [buildButton({ event_name: 'e'.repeat(100) })]) },
      { name: 'there are 10 messages', change: (d) => (d.message = Array.from({ length: 10 }, (_, i) => buildMessage({ title: `m${i}` }))) },
      {
        name: 'a period starts before it ends only once offsets are applied',
        change: (d) => (d.condition.trigger.period = [buildPeriod({ start: '2025-01-01T08:00:00+09:00', end: '2024-12-31T23:30:00Z' })]),
      },
    ];

    test.each(accepted)('when $name, then POST is 201 and the delivery is stored as sent', async ({ change }) => {
      const body = changed(change);
      const res = await app.call('POST', '/v1/delivery', asMapi(token, body));
      expect(res.status).toBe(201);
      expect(clientPart(res.body as Delivery)).toEqual(clientPart(body));
      const read = await app.call('GET', `/v1/delivery/${(res.body as Delivery).delivery_id}`, asMapi(token));
      expect(read.body).toEqual(res.body);
    });

    const rejected: Array<{ name: string; change: Change; path: string }> = [
      { name: 'name has 101 characters', change: (d) => (d.name = 'n'.repeat(101)), path: '/body/name' },
      { name: 'name is empty', change: (d) => (d.name = ''), path: '/body/name' },
      { name: 'title has 41 characters', change: (d) => (firstMessage(d).title = 't'.repeat(41)), path: '/body/message/0/title' },
      { name: 'body has 201 characters', change: (d) => (firstMessage(d).body = 'b'.repeat(201)), path: '/body/message/0/body' },
      { name: 'image_url has 2084 characters', change: (d) => (firstMessage(d).image_url = urlOfLength(2084)), path: '/body/message/0/image_url' },
      { name: 'image_url is empty', change: (d) => (firstMessage(d).image_url = ''), path: '/body/message/0/image_url' },
      { name: 'image_url is not a URI', change: (d) => (firstMessage(d).image_url = 'not a url'), path: '/body/message/0/image_url' },
      {
        name: 'trigger has 11 event names',
        change: (d) => (d.condition.trigger.event_name = Array.from({ length: 11 }, (_, i) => `event_${i}`)),
        path: '/body/condition/trigger/event_name',
      },
      {
        name: 'an event name has 101 characters',
        change: (d) => (d.condition.trigger.event_name = ['ok', 'e'.repeat(101)]),
        path: '/body/condition/trigger/event_name/1',
      },
      { name: 'trigger has 101 periods', change: (d) => (d.condition.trigger.period = periods(101)), path: '/body/condition/trigger/period' },
      { name: 'priority is -1', change: (d) => (d.priority = -1), path: '/body/priority' },
      { name: 'segmentation_id is -1', change: (d) => (d.condition.target.segmentation_id = -1), path: '/body/condition/target/segmentation_id' },
      { name: 'max_delivery_count is 0', change: (d) => (d.condition.max_delivery_count = 0), path: '/body/condition/max_delivery_count' },
      { name: 'max_total_count is 0', change: (d) => (d.condition.max_total_count = 0), path: '/body/condition/max_total_count' },
      { name: 'max_total_count_per_day is 0', change: (d) => (d.condition.max_total_count_per_day = 0), path: '/body/condition/max_total_count_per_day' },
      { name: 'category has 101 characters', change: (d) => (d.condition.category = 'c'.repeat(101)), path: '/body/condition/category' },
      {
        name: 'a message has 6 buttons',
        change: (d) => (firstMessage(d).buttons = Array.from({ length: 6 }, (_, i) => buildButton({ id: `b${i}` }))),
        path: '/body/message/0/buttons',
      },
      {
        name: 'a button id has 65 characters',
        change: (d) => (firstMessage(d).buttons = [buildButton({ id: 'i'.repeat(65) })]),
        path: '/body/message/0/buttons/0/id',
      },
      {
        name: 'a button name has 101 characters',
        change: (d) => (firstMessage(d).buttons = [buildButton({ name: 'n'.repeat(101) })]),
        path: '/body/message/0/buttons/0/name',
      },
      {
        name: 'a button event name has 101 characters',
        change: (d) => (firstMessage(d).buttons = [buildButton({ event_name: 'e'.repeat(101) })]),
        path: '/body/message/0/buttons/0/event_name',
      },
      {
        name: 'a button url is not a URI',
        change: (d) => (firstMessage(d).buttons = [buildButton({ url: 'not a url' })]),
        path: '/body/message/0/buttons/0/url',
      },
      ...[
        'javascript:alert(1)',
        'JaVaScRiPt:alert(1)',
        'javascript://%0Aalert(1)',
        'data:image/png;base64,iVBORw0KGgo=',
        'ftp://cdn.example.com/a.png',
        'file:///etc/passwd',
        'myapp://image/1',
        'https:/cdn.example.com/a.png',
        '//cdn.example.com/a.png',
        ' https://cdn.example.com/a.png',
      ].map((url) => ({
        name: `image_url is ${JSON.stringify(url)}`,
        change: (d: DeliveryBody) => (firstMessage(d).image_url = url),
        path: '/body/message/0/image_url',
      })),
      ...[
        'javascript:alert(1)',
        'JaVaScRiPt:alert(1)',
        'JAVASCRIPT://%0Aalert(1)',
        'data:text/html;base64,PHNjcmlwdD4=',
        'DaTa:text/html,x',
        ' javascript:alert(1)',
        '\u0001javascript:alert(1)',
        '\tjavascript:alert(1)',
        'java\tscript:alert(1)',
        'javascript\n:alert(1)',
      ].map((url) => ({
        name: `a button url is ${JSON.stringify(url)}`,
        change: (d: DeliveryBody) => (firstMessage(d).buttons = [buildButton(), buildButton({ id: 'bad', url })]),
        path: '/body/message/0/buttons/1/url',
      })),
      { name: 'there are 11 messages', change: (d) => (d.message = Array.from({ length: 11 }, () => buildMessage())), path: '/body/message' },
      { name: 'there are no messages', change: (d) => (d.message = []), path: '/body/message' },
      {
        name: 'a period start has no UTC offset',
        change: (d) => (d.condition.trigger.period = [buildPeriod({ start: '2025-01-01T00:00:00' })]),
        path: '/body/condition/trigger/period/0/start',
      },
      {
        name: 'a period end has no UTC offset',
        change: (d) => (d.condition.trigger.period = [buildPeriod({ end: '2025-02-01T00:00:00' })]),
        path: '/body/condition/trigger/period/0/end',
      },
      {
        name: 'a period start equals its end',
        change: (d) => (d.condition.trigger.period = [buildPeriod({ start: '2025-01-01T00:00:00Z', end: '2025-01-01T09:00:00+09:00' })]),
        path: '/body/condition/trigger/period/0/start',
      },
      {
        name: 'the third period starts after it ends',
        change: (d) => (d.condition.trigger.period = [...periods(2), buildPeriod({ start: '2025-03-02T00:00:00Z', end: '2025-03-01T00:00:00Z' })]),
        path: '/body/condition/trigger/period/2/start',
      },
      {
        name: 'a period starts after it ends once offsets are applied',
        change: (d) => (d.condition.trigger.period = [buildPeriod({ start: '2025-01-01T00:30:00Z', end: '2025-01-01T09:00:00+09:00' })]),
        path: '/body/condition/trigger/period/0/start',
      },
      {
        name: 'a period end is a leap second',
        change: (d) => (d.condition.trigger.period = [buildPeriod({ start: '2016-12-31T00:00:00Z', end: '2016-12-31T23:59:60Z' })]),
        path: '/body/condition/trigger/period/0/end',
      },
      { name: 'the body has an unknown field', change: (d) => Object.assign(d, { colour: 'red' }), path: '/body/colour' },
    ];

    test.each(rejected)('when $name, then POST is 400 validation_failed pointing at $path and nothing is stored', async ({ change, path }) => {
      const before = await listPage(app, token, '?count=100');
      expectInvalidAt(await app.call('POST', '/v1/delivery', asMapi(token, changed(change))), path);
      const after = await listPage(app, token, '?count=100');
      expect(after.items).toEqual(before.items);
      expect(after.total).toBe(before.total);
    });

    test('when image_url and a button url are javascript: URLs, then each error says what is allowed', async () => {
      const body = buildDelivery({ message: [buildMessage({ image_url: 'javascript:alert(1)', buttons: [buildButton({ url: 'javascript:alert(1)' })] })] });
      const res = await app.call('POST', '/v1/delivery', asMapi(token, body));
      expectProblem(res, 400, 'validation_failed');
      expect((res.body as { errors: unknown[] }).errors).toEqual([
        { path: '/body/message/0/image_url', message: 'must be an http or https URL' },
        { path: '/body/message/0/buttons/0/url', message: 'must not be a javascript: or data: URL' },
      ]);
    });

    test.each(rejected)('when $name, then PUT is 400 validation_failed pointing at $path and the delivery is unchanged', async ({ change, path }) => {
      expectInvalidAt(await app.call('PUT', `/v1/delivery/${target.delivery_id}`, asMapi(token, changed(change))), path);
      const read = await app.call('GET', `/v1/delivery/${target.delivery_id}`, asMapi(token));
      expect(read.status).toBe(200);
      expect(read.body).toEqual(target);
    });
  });

  // ------------------------------------------------------------------ tokens
  describe('tokens', () => {
    let customerA: string;
    let tokenA: string;
    let deliveryA: Delivery;
    let snapshotA: Delivery[];
    let revoked: string;
    let bearerA: string;
    let tokenB: string;
    let deliveryB: Delivery;

    beforeAll(async () => {
      customerA = newCustomer();
      tokenA = (await issueToken(app, customerA, 'mapi')).token;
      // Ids are numbered per customer: A has 1 and 2, B only 1, so B has no delivery 2 (deliveryA).
      await postDelivery(app, tokenA, buildDelivery({ name: 'first of A' }));
      deliveryA = await postDelivery(app, tokenA, buildDelivery({ name: 'of A' }));
      snapshotA = (await listPage(app, tokenA)).items;
      bearerA = (await issueToken(app, customerA, 'bearer')).token;

      const toRevoke = await issueToken(app, customerA, 'mapi');
      expect((await app.call('GET', '/v1/delivery', asMapi(toRevoke.token))).status).toBe(200);
      const res = await app.call('DELETE', `/v1/${customerA}/token/${toRevoke.token_id}`, { token: ADMIN_TOKEN });
      expect(res.status).toBe(204);
      revoked = toRevoke.token;

      tokenB = (await issueToken(app, newCustomer(), 'mapi')).token;
      deliveryB = await postDelivery(app, tokenB, buildDelivery({ name: 'of B' }));
    });

    const endpoints = [
      { name: 'GET /v1/delivery', method: 'GET' as const, url: () => '/v1/delivery', body: undefined },
      { name: 'POST /v1/delivery', method: 'POST' as const, url: () => '/v1/delivery', body: buildDelivery({ name: 'intruder' }) },
      { name: 'GET /v1/delivery/{id}', method: 'GET' as const, url: () => `/v1/delivery/${deliveryA.delivery_id}`, body: undefined },
      { name: 'PUT /v1/delivery/{id}', method: 'PUT' as const, url: () => `/v1/delivery/${deliveryA.delivery_id}`, body: buildDelivery({ name: 'intruder' }) },
      { name: 'DELETE /v1/delivery/{id}', method: 'DELETE' as const, url: () => `/v1/delivery/${deliveryA.delivery_id}`, body: undefined },
    ];

    /** A's deliveries are exactly as before. */
    async function expectAUnchanged(): Promise<void> {
      const list = await listPage(app, tokenA);
      expect(list.items).toEqual(snapshotA);
      expect(list.total).toBe(snapshotA.length);
    }

    const refusals: Array<{ name: string; headers: () => Record<string, string>; status: number; code: string }> = [
      { name: 'no X-SERVICE-MAPI-TOKEN is sent', headers: () => ({}), status: 401, code: 'authentication_required' },
      {
        name: 'only an Authorization header with the admin token is sent',
        headers: () => ({ Authorization: `Bearer ${ADMIN_TOKEN}` }),
        status: 401,
        code: 'authentication_required',
      },
      { name: 'the token is unknown', headers: () => ({ 'X-SERVICE-MAPI-TOKEN': unknownMapiToken() }), status: 401, code: 'invalid_token' },
      { name: 'the token is malformed', headers: () => ({ 'X-SERVICE-MAPI-TOKEN': 'not a token!' }), status: 401, code: 'invalid_token' },
      { name: 'the token has been revoked', headers: () => ({ 'X-SERVICE-MAPI-TOKEN': revoked }), status: 401, code: 'invalid_token' },
      { name: "the customer's bearer token is sent as the MAPI token", headers: () => ({ 'X-SERVICE-MAPI-TOKEN': bearerA }), status: 403, code: 'forbidden' },
      { name: 'the admin token is sent as the MAPI token', headers: () => ({ 'X-SERVICE-MAPI-TOKEN': ADMIN_TOKEN }), status: 403, code: 'forbidden' },
    ];

    describe.each(refusals)('when $name', ({ headers, status, code }) => {
      test.each(endpoints)(`then $name is ${status} ${code} and nothing changes`, async (e) => {
        const res = await app.call(e.method, e.url(), { headers: headers(), ...(e.body ? { body: e.body } : {}) });
        expectProblem(res, status, code);
        if (status === 401) expect(res.headers['www-authenticate']).toBe(code === 'invalid_token' ? 'Bearer error="invalid_token"' : 'Bearer');
        await expectAUnchanged();
      });
    });

    test("when another customer's mapi token lists, then it sees only its own deliveries", async () => {
      const res = await app.call('GET', '/v1/delivery?count=100', asMapi(tokenB));
      expect(res.status).toBe(200);
      expect(res.body).toEqual([deliveryB]);
      expect(res.headers['x-total-count']).toBe('1');
    });

    test.each(['GET', 'PUT', 'DELETE'] as const)(
      "when another customer's mapi token sends %s for A's delivery, then 404 delivery_not_found and A's delivery is unchanged",
      async (method) => {
        const res = await app.call(
          method,
          `/v1/delivery/${deliveryA.delivery_id}`,
          asMapi(tokenB, method === 'PUT' ? buildDelivery({ name: 'hijacked' }) : undefined),
        );
        expectProblem(res, 404, 'delivery_not_found');
        const read = await app.call('GET', `/v1/delivery/${deliveryA.delivery_id}`, asMapi(tokenA));
        expect(read.status).toBe(200);
        expect(read.body).toEqual(deliveryA);
        await expectAUnchanged();
      },
    );

    test("when another customer's mapi token posts, then the delivery is B's and A never sees it", async () => {
      const second = await postDelivery(app, tokenB, buildDelivery({ name: 'second of B' }));
      const third = await postDelivery(app, tokenB, buildDelivery({ name: 'third of B' }));
      expect([deliveryB.delivery_id, second.delivery_id, third.delivery_id]).toEqual([1, 2, 3]);
      expectProblem(await app.call('GET', `/v1/delivery/${third.delivery_id}`, asMapi(tokenA)), 404, 'delivery_not_found');
      // Number 2 names A's own delivery for A, B's for B.
      expect((await app.call('GET', `/v1/delivery/${second.delivery_id}`, asMapi(tokenA))).body).toEqual(deliveryA);
      expect((await app.call('GET', `/v1/delivery/${second.delivery_id}`, asMapi(tokenB))).body).toEqual(second);
      await expectAUnchanged();
      expect(ids((await listPage(app, tokenB)).items)).toEqual([1, 2, 3]);
    });
  });

  // ------------------------------------------------------------------ refused writes
  describe('a refused write changes nothing', () => {
    let customer: string;
    let token: string;
    let original: Delivery;
    beforeAll(async () => {
      customer = newCustomer();
      token = (await issueToken(app, customer, 'mapi')).token;
      original = await postDelivery(app, token, buildDelivery({ name: 'original' }));
      await postDelivery(app, token, buildDelivery({ name: 'another' }));
    });

    async function expectListUnchangedBy(send: () => Promise<Response>, status: number, code: string): Promise<void> {
      const before = await listPage(app, token, '?count=100');
      expectProblem(await send(), status, code);
      const after = await listPage(app, token, '?count=100');
      expect(after.items).toEqual(before.items);
      expect(after.total).toBe(before.total);
      expect(after.res.headers['x-total-count']).toBe(before.res.headers['x-total-count']);
    }

    test('when a POST breaks a bound, then the list and X-Total-Count are unchanged', async () => {
      await expectListUnchangedBy(() => app.call('POST', '/v1/delivery', asMapi(token, buildDelivery({ name: 'x'.repeat(101) }))), 400, 'validation_failed');
    });

    test('when a POST has a period that ends before it starts, then the list and X-Total-Count are unchanged', async () => {
      const body = buildDelivery({
        condition: buildCondition({ trigger: { event_name: [], period: [{ start: '2025-02-01T00:00:00Z', end: '2025-01-01T00:00:00Z' }] } }),
      });
      await expectListUnchangedBy(() => app.call('POST', '/v1/delivery', asMapi(token, body)), 400, 'validation_failed');
    });

    test('when a POST body is not JSON, then 400 invalid_json and the list is unchanged', async () => {
      await expectListUnchangedBy(
        () => app.call('POST', '/v1/delivery', { headers: { 'X-SERVICE-MAPI-TOKEN': token, 'Content-Type': 'application/json' }, body: '{"name": "half' }),
        400,
        'invalid_json',
      );
    });

    test('when a POST has no body, then 400 validation_failed pointing at /body and the list is unchanged', async () => {
      const before = await listPage(app, token, '?count=100');
      expectInvalidAt(await app.call('POST', '/v1/delivery', asMapi(token)), '/body');
      expect((await listPage(app, token, '?count=100')).items).toEqual(before.items);
    });

    test('when a POST misses a required field, then 400 pointing at it and the list is unchanged', async () => {
      const { name: _name, ...withoutName } = buildDelivery();
      const before = await listPage(app, token, '?count=100');
      expectInvalidAt(await app.call('POST', '/v1/delivery', asMapi(token, withoutName)), '/body/name');
      expect((await listPage(app, token, '?count=100')).items).toEqual(before.items);
    });

    test('when a POST is refused for its token, then the list is unchanged', async () => {
      await expectListUnchangedBy(
        () => app.call('POST', '/v1/delivery', { headers: { 'X-SERVICE-MAPI-TOKEN': unknownMapiToken() }, body: buildDelivery() }),
        401,
        'invalid_token',
      );
    });

    const refusedPuts: Array<{ name: string; send: () => Promise<Response>; status: number; code: string }> = [
      {
        name: 'a PUT breaks a bound',
        send: () => app.call('PUT', `/v1/delivery/${original.delivery_id}`, asMapi(token, buildDelivery({ name: 'changed', priority: -1 }))),
        status: 400,
        code: 'validation_failed',
      },
      {
        name: 'a PUT has a period that ends before it starts',
        send: () =>
          app.call(
            'PUT',
            `/v1/delivery/${original.delivery_id}`,
            asMapi(
              token,
              buildDelivery({
                name: 'changed',
                condition: buildCondition({ trigger: { event_name: [], period: [buildPeriod({ start: '2026-01-01T00:00:00Z' })] } }),
              }),
            ),
          ),
        status: 400,
        code: 'validation_failed',
      },
      {
        name: 'a PUT body is not JSON',
        send: () =>
          app.call('PUT', `/v1/delivery/${original.delivery_id}`, {
            headers: { 'X-SERVICE-MAPI-TOKEN': token, 'Content-Type': 'application/json' },
            body: '{"name":',
          }),
        status: 400,
        code: 'invalid_json',
      },
      {
        name: "a PUT comes with another customer's mapi token",
        send: async () => {
          const other = (await issueToken(app, newCustomer(), 'mapi')).token;
          return app.call('PUT', `/v1/delivery/${original.delivery_id}`, asMapi(other, buildDelivery({ name: 'changed' })));
        },
        status: 404,
        code: 'delivery_not_found',
      },
      {
        name: 'a PUT comes without a token',
        send: () => app.call('PUT', `/v1/delivery/${original.delivery_id}`, { body: buildDelivery({ name: 'changed' }) }),
        status: 401,
        code: 'authentication_required',
      },
    ];

    test.each(refusedPuts)('when $name, then GET returns the original delivery', async ({ send, status, code }) => {
      expectProblem(await send(), status, code);
      const read = await app.call('GET', `/v1/delivery/${original.delivery_id}`, asMapi(token));
      expect(read.status).toBe(200);
      expect(read.body).toEqual(original);
    });

    test("when a DELETE comes with another customer's mapi token, then the delivery is still listed", async () => {
      const other = (await issueToken(app, newCustomer(), 'mapi')).token;
      await expectListUnchangedBy(() => app.call('DELETE', `/v1/delivery/${original.delivery_id}`, asMapi(other)), 404, 'delivery_not_found');
      expect((await app.call('GET', `/v1/delivery/${original.delivery_id}`, asMapi(token))).body).toEqual(original);
    });
  });

  // ------------------------------------------------------------------ server-owned fields
  describe('server-owned fields', () => {
    let token: string;
    beforeAll(async () => {
      token = (await issueToken(app, newCustomer(), 'mapi')).token;
    });

    /** A body that tries to set every server-owned field. */
    const withServerFields = (ids: { delivery: number; condition: number; message: number }): DeliveryBody =>
      buildDelivery({
        delivery_id: ids.delivery,
        condition: buildCondition({ condition_id: ids.condition, iphone_delivery_count: 5, android_delivery_count: 6, delivery_count: 11 }),
        message: [buildMessage({ message_id: ids.message })],
      });

    test('when a POST sends ids and counts, then they are ignored: the ids are assigned and the counts are 0', async () => {
      const earlier = await postDelivery(app, token);
      const body = withServerFields({ delivery: 424242, condition: 424242, message: 424242 });
      const res = await app.call('POST', '/v1/delivery', asMapi(token, body));
      expect(res.status).toBe(201);
      const created = res.body as Delivery;

      expect(created.delivery_id).toBeGreaterThan(earlier.delivery_id);
      expect(created.delivery_id).not.toBe(424242);
      expect(created.condition.condition_id).not.toBe(424242);
      expect(created.condition.condition_id).not.toBe(earlier.condition.condition_id);
      expect(created.message[0]?.message_id).not.toBe(424242);
      expect(created.message[0]?.message_id).not.toBe(earlier.message[0]?.message_id);
      expect(created.condition).toMatchObject({ iphone_delivery_count: 0, android_delivery_count: 0, delivery_count: 0 });
      expect(res.headers.location).toBe(`${app.baseUrl}/v1/delivery/${created.delivery_id}`);
      expectProblem(await app.call('GET', '/v1/delivery/424242', asMapi(token)), 404, 'delivery_not_found');
      expect((await app.call('GET', `/v1/delivery/${created.delivery_id}`, asMapi(token))).body).toEqual(created);
    });

    test("when a POST sends another delivery's ids, then that delivery is untouched", async () => {
      const existing = await postDelivery(app, token);
      const body = withServerFields({
        delivery: existing.delivery_id,
        condition: existing.condition.condition_id,
        message: existing.message[0]?.message_id as number,
      });
      body.name = 'copycat';
      const created = await postDelivery(app, token, body);

      expect(created.delivery_id).not.toBe(existing.delivery_id);
      expect(created.condition.condition_id).not.toBe(existing.condition.condition_id);
      expect(created.message[0]?.message_id).not.toBe(existing.message[0]?.message_id);
      expect((await app.call('GET', `/v1/delivery/${existing.delivery_id}`, asMapi(token))).body).toEqual(existing);
    });

    test('when a PUT sends ids and counts, then delivery_id, condition_id and counts stay as they were', async () => {
      const other = await postDelivery(app, token);
      const original = await postDelivery(app, token);
      const body = withServerFields({ delivery: other.delivery_id, condition: other.condition.condition_id, message: 424243 });
      body.name = 'replaced';

      const res = await app.call('PUT', `/v1/delivery/${original.delivery_id}`, asMapi(token, body));
      expect(res.status).toBe(200);
      const replaced = res.body as Delivery;
      expect(replaced.name).toBe('replaced');
      expect(replaced.delivery_id).toBe(original.delivery_id);
      expect(replaced.condition.condition_id).toBe(original.condition.condition_id);
      expect(replaced.condition).toMatchObject({ iphone_delivery_count: 0, android_delivery_count: 0, delivery_count: 0 });
      expect(replaced.message[0]?.message_id).not.toBe(424243);
      expect((await app.call('GET', `/v1/delivery/${original.delivery_id}`, asMapi(token))).body).toEqual(replaced);
      expect((await app.call('GET', `/v1/delivery/${other.delivery_id}`, asMapi(token))).body).toEqual(other);
    });

    test("when a PUT sends messages back, then those with this delivery's message_id keep it and the others get fresh ids", async () => {
      const other = await postDelivery(app, token);
      const original = await postDelivery(app, token, buildDelivery({ message: [buildMessage({ title: 'one' }), buildMessage({ title: 'two' })] }));
      const [one, two] = original.message.map((m) => m.message_id) as [number, number];
      const foreign = other.message[0]?.message_id as number;

      const body = buildDelivery({
        message: [
          buildMessage({ title: 'two, edited', message_id: two }),
          buildMessage({ title: 'brand new' }),
          buildMessage({ title: 'borrowed', message_id: foreign }),
        ],
      });
      const res = await app.call('PUT', `/v1/delivery/${original.delivery_id}`, asMapi(token, body));
      expect(res.status).toBe(200);
      const replaced = res.body as Delivery;
      const messageIds = replaced.message.map((m) => m.message_id);

      expect(replaced.message.map((m) => m.title)).toEqual(['two, edited', 'brand new', 'borrowed']);
      expect(messageIds[0]).toBe(two);
      expect(new Set(messageIds).size).toBe(3);
      for (const fresh of messageIds.slice(1)) expect([one, two, foreign]).not.toContain(fresh);
      expect((await app.call('GET', `/v1/delivery/${original.delivery_id}`, asMapi(token))).body).toEqual(replaced);
      expect((await app.call('GET', `/v1/delivery/${other.delivery_id}`, asMapi(token))).body).toEqual(other);
    });
  });
});
