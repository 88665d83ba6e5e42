// What the explorer page says when it cannot draw: the service's real 401, 404 and 422 answers, and (through a
// stand-in for the service) 400, 429, 5xx and no answer at all; each readable in the page's alert, none showing
// the token. A server of its own, whose TRAVERSAL_MAX_NODES (5) the seeded person (12 nodes) is past.
import type { Browser } from 'playwright-core';
import { ADMIN_TOKEN, startApp, type TestApp } from '../helpers/app';
import { unknownToken } from '../helpers/builders-auth';
import { uniqueCustomer } from '../helpers/builders-nodesearch';
import { ExplorerPage, launchBrowser } from './harness';
import { type Seeded, seedPerson } from './seed';

describe('the explorer page, when it cannot draw', () => {
  let app: TestApp;
  let browser: Browser;
  let person: Seeded;
  let guarded: string;
  let page: ExplorerPage;
  const wrongToken = unknownToken();

  beforeAll(async () => {
    [app, browser] = await Promise.all([startApp({ env: { TRAVERSAL_MAX_NODES: '5' } }), launchBrowser()]);
    person = await seedPerson(app, uniqueCustomer('person'));
    // A customer whose settings want a token on every search.
    guarded = uniqueCustomer('guarded');
    const res = await app.call('PUT', `/v1/${guarded}/settings`, { token: ADMIN_TOKEN, body: { require_token: true } });
    if (res.status !== 200) throw new Error(`settings failed: ${res.status} ${res.text}`);
  });

  beforeEach(async () => {
    page = await ExplorerPage.open(browser, app.baseUrl);
  });

  afterEach(async () => {
    const urls = page.urls();
    // Never shown, never in a URL.
    const alert = (await page.page.locator('#alert').textContent()) ?? '';
    await page.close();
    page.expectNoCspViolation();
    for (const token of [person.token, wrongToken, ADMIN_TOKEN]) {
      expect(alert).not.toContain(token);
      expect(urls.filter((url) => url.includes(token))).toEqual([]);
    }
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  /** The alert's lines, once it shows: title, detail, the hint and the request id. */
  async function alertLines(): Promise<string[]> {
    const alert = page.page.locator('#alert[role="alert"]');
    await alert.waitFor({ state: 'visible' });
    return alert.locator(':scope > div').allTextContents();
  }

  test('when the customer wants a token on every search and none is given, then 401 is said, with what to paste', async () => {
    await page.show({ customer: guarded, type: 'phone', id: '555-1' });
    expect(await alertLines()).toEqual([
      'Authentication required',
      expect.stringMatching(/token/),
      'This needs a token: paste a bearer token of this customer, or the administrator token.',
      expect.stringMatching(/^Request id: \S+$/),
    ]);
    await page.screenshot('error-401');
  });

  test('when the start is a secure ID and no token is given, then 401 is said', async () => {
    await page.show({ customer: person.customer, type: 'email', id: 'a@x.io' });
    const lines = await alertLines();
    expect(lines[0]).toBe('Authentication required');
    expect(lines[2]).toBe('This needs a token: paste a bearer token of this customer, or the administrator token.');
  });

  test('when the token is not one the service issued, then 401 says it was not accepted, without showing it', async () => {
    await page.show({ token: wrongToken, customer: person.customer, type: 'phone', id: '555-1' });
    const lines = await alertLines();
    expect(lines[2]).toBe('The token was not accepted: paste a bearer token of this customer, or the administrator token.');
    expect(await page.page.locator('#token').inputValue()).toBe(wrongToken);
  });

  test('when the schema is unknown, then 404 is said, naming what to check', async () => {
    await page.show({ token: person.token, customer: person.customer, type: 'phone', id: '555-1', schema: 'nope' });
    const lines = await alertLines();
    expect(lines[1]).toMatch(/nope/);
    expect(lines[2]).toBe('Check the customer id and the schema.');
    await page.screenshot('error-404');
  });

  test('when the component is past the service bound, then 422 is said, with step ONE to try; step ONE then draws and the alert goes', async () => {
    await page.show({ token: person.token, customer: person.customer, type: 'phone', id: '555-1' });
    const lines = await alertLines();
    expect(lines[0]).toMatch(/too large/i);
    expect(lines[2]).toBe('Start with step ONE to see the nearest nodes only.');
    await page.screenshot('error-422');

    await page.show({ token: person.token, customer: person.customer, type: 'phone', id: '555-1', step: 'ONE' });
    expect(await page.page.locator('#alert').isHidden()).toBe(true);
    expect((await page.counts()).nodes).toBeGreaterThan(0);
  });

  test('when a drawing is shown and the next Show fails, then the drawing, its legend and its panel go: nothing old stays under the alert', async () => {
    await page.show({ token: person.token, customer: person.customer, type: 'phone', id: '555-1', step: 'ONE' });
    expect((await page.counts()).nodes).toBeGreaterThan(0);
    await page.clickElement(await page.refOf('c-1'));
    await page.page.locator('#panel h2').waitFor();

    await page.show({ token: person.token, customer: person.customer, type: 'phone', id: '555-1', schema: 'nope' });
    await alertLines();
    expect(await page.counts()).toEqual({ nodes: 0, hubs: 0, edges: 0, unlinked: 0 });
    expect(await page.page.locator('#graph-stats').textContent()).toBe('Nothing drawn.');
    expect(await page.page.locator('#legend li').count()).toBe(0);
    expect(await page.page.locator('#panel').isHidden()).toBe(true);
    await page.screenshot('error-cleared');
  });

  test('when the service answers 400, 429 or 503, or nothing at all, then each is said readably', async () => {
    const problem = (status: number, code: string, title: string, extra: object = {}) => ({
      type: `urn:idlink:problem:${code}`,
      title,
      status,
      detail: `${title}, in detail.`,
      code,
      request_id: 'req-stand-in',
      ...extra,
    });
    const answers: Array<{ status: number; headers: Record<string, string>; body: object }> = [
      {
        status: 400,
        headers: {},
        body: problem(400, 'validation_failed', 'Validation failed', { errors: [{ path: '/body/max_nodes', message: 'must be <= 2000' }] }),
      },
      { status: 429, headers: { 'Retry-After': '7' }, body: problem(429, 'rate_limited', 'Too many requests') },
      { status: 503, headers: { 'Retry-After': '5' }, body: problem(503, 'server_busy', 'Server busy') },
    ];
    const expected = [
      ['Validation failed', 'Validation failed, in detail.', '/body/max_nodes: must be <= 2000', 'Request id: req-stand-in'],
      ['Too many requests', 'Too many requests, in detail.', 'Try again in 7 s.', 'Request id: req-stand-in'],
      ['Server busy', 'Server busy, in detail.', 'Try again; if it persists, give the request id to whoever runs the service.', 'Request id: req-stand-in'],
    ];
    for (const [index, answer] of answers.entries()) {
      await page.page.route('**/_graph', (route) =>
        route.fulfill({ status: answer.status, headers: answer.headers, contentType: 'application/problem+json', body: JSON.stringify(answer.body) }),
      );
      await page.show({ token: person.token, customer: person.customer, type: 'phone', id: '555-1' });
      const alert = page.page.locator('#alert');
      expect(await alert.locator('.title, .detail, .error, .hint, .request-id').allTextContents()).toEqual(expected[index]);
      await page.page.unroute('**/_graph');
    }

    await page.page.route('**/_graph', (route) => route.abort('connectionrefused'));
    await page.page.fill('#token', person.token);
    await page.page.click('#show');
    await page.page.locator('#alert .title', { hasText: 'The service could not be reached' }).waitFor();
    expect(await page.page.locator('#alert .hint').textContent()).toBe('Reload the page when the service is back.');
    expect(await page.page.locator('#show').isEnabled()).toBe(true);
    await page.screenshot('error-network');
  });
});
