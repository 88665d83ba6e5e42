// Picking two nodes in the explorer, against the real app: the page asks `_why`, marks the chain in the drawing
// and lists it, then separates the two after a confirmation (`_separate`) and draws the person again without the
// other. The people of docs/explorer.md's walkthrough: Ann's shop account s-77 is one person with Bob through Ann (her phone,
// then the family tablet).
import type { Browser, Request } from 'playwright-core';
import { ADMIN_TOKEN, startApp, type TestApp } from '../helpers/app';
import { uniqueCustomer } from '../helpers/builders-nodesearch';
import { ExplorerPage, launchBrowser, type PageGlobals } from './harness';
import { type Seeded, seedWalkthrough } from './seed';

describe('the explorer page, picking two nodes', () => {
  let app: TestApp;
  let browser: Browser;
  let seeded: Seeded;
  let page: ExplorerPage;

  beforeAll(async () => {
    [app, browser] = await Promise.all([startApp(), launchBrowser()]);
  });

  beforeEach(async () => {
    // The people of each test its own: one test separates two of them.
    seeded = await seedWalkthrough(app, uniqueCustomer('why'));
    page = await ExplorerPage.open(browser, app.baseUrl);
  });

  afterEach(async () => {
    const urls = page.urls();
    await page.close();
    page.expectNoCspViolation();
    for (const token of [seeded.token, ADMIN_TOKEN]) expect(urls.filter((url) => url.includes(token))).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  /** Clicks node `a`, "Why is this one person with…", then node `b`; answers the `_why` request once the page is done with it. */
  async function pickTwo(a: string, b: string): Promise<Request> {
    await page.clickElement(await page.refOf(a));
    await page.page.click('#panel .why-from');
    expect(await page.page.locator('#notice').textContent()).toMatch(/^Now click the other node/);
    // The panel took room from the drawing: bring all of it into what is left, as a person would with Fit.
    await page.page.click('#fit');
    const asked = page.page.waitForRequest((request) => request.url().endsWith('/_why'));
    await page.clickElement(await page.refOf(b));
    const request = await asked;
    await page.page.locator('#panel[data-kind="why"] .why-verdict').waitFor();
    await page.page.waitForFunction(() => (globalThis as unknown as PageGlobals).document.body.getAttribute('aria-busy') === 'false');
    return request;
  }

  /** What is marked in the drawing: the picked nodes, and the chain's nodes and lines, by label. */
  function marked(): Promise<{ picked: string[]; chainNodes: string[]; chainLines: string[] }> {
    return page.page.evaluate(() => {
      const cy = (globalThis as unknown as PageGlobals).explorer;
      const label = (e: { data(name: string): unknown }) => String(e.data('label'));
      const ends = (e: { source(): { data(name: string): unknown }; target(): { data(name: string): unknown } }) =>
        [label(e.source()), label(e.target())].sort().join(' – ');
      return {
        picked: cy.nodes('.picked').map(label).sort(),
        chainNodes: cy.nodes('.chain').map(label).sort(),
        chainLines: cy.edges('.chain').map(ends).sort(),
      };
    });
  }

  test('when two nodes are picked, then the chain _why answers is marked in the drawing and listed in the panel', async () => {
    await page.show({ token: seeded.token, customer: seeded.customer, type: 'member_id', id: 'ann' });
    const request = await pickTwo('s-77', 'bob');
    expect(request.postDataJSON()).toEqual({
      from: { schema: 'shop', key: { type: 'shop_id', id: 's-77' } },
      to: { schema: 'member', key: { type: 'member_id', id: 'bob' } },
    });
    expect(await request.headerValue('authorization')).toBe(`Bearer ${seeded.token}`);

    expect(await page.page.locator('#panel .why-verdict').textContent()).toBe('One person: 2 shared IDs apart, the chain marked in the drawing.');
    expect(await page.page.locator('#panel ul.chain li').allTextContents()).toEqual([
      'shop · shop_id: s-77',
      'shares device: ann-phone',
      'member · member_id: ann',
      'shares device: tablet-1',
      'member · member_id: bob',
    ]);
    expect(await marked()).toEqual({
      picked: ['member_id: bob', 'shop_id: s-77'],
      chainNodes: ['device: tablet-1 (3)', 'member_id: ann', 'member_id: bob', 'shop_id: s-77'],
      chainLines: ['device: tablet-1 (3) – member_id: ann', 'device: tablet-1 (3) – member_id: bob', 'member_id: ann – shop_id: s-77'],
    });
    expect(await page.page.locator('#legend li').allTextContents()).toEqual(
      expect.arrayContaining(['picked to ask why', 'the chain: why the picked two are one person']),
    );
    await page.screenshot('why-chain');
  });

  test('when two nodes are separated after the confirmation, then the shared tablet leaves Bob and the person is drawn without him', async () => {
    await page.show({ token: seeded.token, customer: seeded.customer, type: 'member_id', id: 'ann' });
    await pickTwo('ann', 'bob');
    expect(await page.page.locator('#panel .separate').textContent()).toContain('They share device: tablet-1.');

    // Separate… asks first; Cancel asks nothing.
    await page.page.click('#panel .separate-ask');
    expect(await page.page.locator('#panel .confirm p').textContent()).toBe(
      'Remove the shared ID from member_id: bob, and refuse every later write that would make these two share an ID?',
    );
    await page.page.click('#panel .separate-cancel');
    expect(page.requests.filter((r) => r.url().endsWith('/_separate'))).toEqual([]);

    await page.page.click('#panel .separate-ask');
    await page.page.screenshot({ path: 'test-artifacts/why-confirm.png' });
    const separated = page.page.waitForResponse((response) => response.url().endsWith('/_separate'));
    await page.untilAnswered(() => page.page.click('#panel .separate-confirm'));
    const response = await separated;
    expect(response.status()).toBe(200);
    expect(response.request().postDataJSON()).toEqual({
      nodes: [
        { schema: 'member', key: { type: 'member_id', id: 'ann' } },
        { schema: 'member', key: { type: 'member_id', id: 'bob' } },
      ],
      remove_shared_from: 'B',
    });
    expect(await response.request().headerValue('authorization')).toBe(`Bearer ${seeded.token}`);
    await page.page.locator('#notice', { hasText: 'Separated' }).waitFor();
    expect(await page.page.locator('#notice').textContent()).toBe(
      'Separated member_id: ann and member_id: bob: 1 shared ID removed from member_id: bob. A write that would make them share an ID is refused from now on.',
    );
    // Drawn again from Ann: Bob holds no tablet any more.
    const labels = await page.page.evaluate(() =>
      (globalThis as unknown as PageGlobals).explorer
        .nodes('.person')
        .map((n) => String(n.data('label')))
        .sort(),
    );
    expect(labels).toEqual(['member_id: ann', 'member_id: cy', 'shop_id: s-77']);
    await page.screenshot('why-separated');

    // And the service keeps them apart: the tablet written to Bob again is refused.
    const again = await app.call('POST', `/v1/${seeded.customer}/node/_insert`, {
      body: { schema: 'member', key: { type: 'member_id', id: 'bob' }, ids: [{ type: 'device', id: 'tablet-1' }] },
    });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'separated_nodes' });
  });

  test('when no token was given, then the chain is shown but separating says it needs one', async () => {
    await page.show({ customer: seeded.customer, type: 'member_id', id: 'ann' });
    await pickTwo('ann', 'bob');
    expect(await page.page.locator('#panel ul.chain li').count()).toBe(3);
    expect(await page.page.locator('#panel .separate .problem').textContent()).toBe(
      'Separating needs a bearer token of the customer: paste one and press Show.',
    );
    expect(await page.page.locator('#panel .separate-ask').count()).toBe(0);
  });

  test('when the first node is picked and Esc is pressed, then nothing is asked and the pick is gone', async () => {
    await page.show({ token: seeded.token, customer: seeded.customer, type: 'member_id', id: 'ann' });
    await page.clickElement(await page.refOf('ann'));
    await page.page.click('#panel .why-from');
    expect((await marked()).picked).toEqual(['member_id: ann']);
    await page.page.keyboard.press('Escape');
    expect(await marked()).toEqual({ picked: [], chainNodes: [], chainLines: [] });
    expect(await page.page.locator('#notice').isHidden()).toBe(true);
    await page.page.click('#fit');
    await page.clickElement(await page.refOf('bob'));
    await page.page.locator('#panel h2', { hasText: 'Node: member_id: bob' }).waitFor();
    expect(page.requests.filter((r) => r.url().endsWith('/_why'))).toEqual([]);
  });
});
