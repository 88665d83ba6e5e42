// The explorer page (GET /explore) in a real browser against the real app: what it draws for a seeded person, the
// node panel and its history, expanding an ID, a cut component, 500 nodes, and that the token never reaches a URL
// and the page breaks no rule of the service's CSP. Counts come from the drawing library's own model.
import { ADMIN_TOKEN, startApp, type TestApp } from '../helpers/app';
import { uniqueCustomer } from '../helpers/builders-nodesearch';
import { ExplorerPage, launchBrowser, type PageGlobals } from './harness';
import { BIG_SIZE, PERSON_DRAWN, PERSON_DRAWN_WITHOUT_TOKEN, type Seeded, seedBig, seedPerson } from './seed';
import type { Browser } from 'playwright-core';
import { waitFor } from '../helpers/settling';

interface GraphAnswer {
  nodes: Array<{ ids: Array<{ type: string; id: string }> }>;
  truncated: boolean;
}

/** Lines and hubs a drawing of `answer` must have (hot at 3), counted here without the page's code. */
function expectedDrawing(answer: GraphAnswer): { nodes: number; hubs: number; edges: number } {
  const holders = new Map<string, number>();
  for (const node of answer.nodes) for (const id of node.ids) holders.set(JSON.stringify(id), (holders.get(JSON.stringify(id)) ?? 0) + 1);
  let hubs = 0;
  let edges = 0;
  for (const count of holders.values()) {
    if (count >= 3) {
      hubs += 1;
      edges += count;
    } else if (count === 2) edges += 1;
  }
  return { nodes: answer.nodes.length, hubs, edges };
}

describe('the explorer page', () => {
  let app: TestApp;
  let browser: Browser;
  let person: Seeded;
  let big: Seeded;
  let opened: ExplorerPage[] = [];

  const open = async (options: { javaScriptEnabled?: boolean } = {}) => {
    const page = await ExplorerPage.open(browser, app.baseUrl, options);
    opened.push(page);
    return page;
  };

  beforeAll(async () => {
    [app, browser] = await Promise.all([startApp(), launchBrowser()]);
    person = await seedPerson(app, uniqueCustomer('person'));
    big = await seedBig(app, uniqueCustomer('big'));
  });

  afterEach(async () => {
    // Whatever a test did: no CSP violation on any page, and no token in any URL the page had or asked.
    const pages = opened;
    opened = [];
    for (const page of pages) {
      const urls = page.urls();
      await page.close();
      page.expectNoCspViolation();
      for (const token of [person.token, big.token, ADMIN_TOKEN]) expect(urls.filter((url) => url.includes(token))).toEqual([]);
    }
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  test('when a token, a customer and an ID are given, then the component is drawn: a vertex per node, a line per shared ID, a hub for the hot ID, the links:false ID dashed', async () => {
    const page = await open();
    await page.show({ token: person.token, customer: person.customer, type: 'phone', id: '555-1' });
    await page.screenshot('person');

    expect(await page.counts()).toEqual(PERSON_DRAWN);
    const stats = await page.statsLine();
    expect([stats.nodes, stats.hubs, stats.edges]).toEqual([PERSON_DRAWN.nodes, PERSON_DRAWN.hubs, PERSON_DRAWN.edges]);
    expect(stats.text).toBe('12 nodes, 14 lines, 1 hot ID');
    const marks = await page.page.evaluate(() => {
      const cy = (globalThis as unknown as PageGlobals).explorer;
      return {
        hub: cy.nodes('.hub').map((n) => n.data('label') as string),
        unlinked: cy.edges('.unlinked').map((e) => e.data('label') as string),
        starts: cy.nodes('.start').map((n) => n.data('label') as string),
        // A schema's colour is the same on every node of it, and differs between the two.
        colours: [...new Set(cy.nodes('.person').map((n) => `${n.data('schema')} ${n.style('background-color')}`))].sort(),
        // Drawn differently: the hot ID's vertex, and the line of the ID that does not link.
        hubShape: cy.nodes('.hub').map((n) => n.style('shape') as string),
        unlinkedStyle: cy.edges('.unlinked').map((e) => e.style('line-style') as string),
        otherStyles: [
          ...new Set(
            cy
              .edges('.shared')
              .not('.unlinked')
              .map((e) => e.style('line-style') as string),
          ),
        ],
      };
    });
    expect(marks.hub).toEqual(['device: tablet (4)']);
    expect(marks.unlinked).toEqual(['wifi: office']);
    expect(marks.starts.sort()).toEqual(['crm_id: c-1', 'crm_id: c-2']);
    expect(marks.colours).toHaveLength(2);
    expect(marks.hubShape).toEqual(['diamond']);
    expect(marks.unlinkedStyle).toEqual(['dashed']);
    expect(marks.otherStyles).toEqual(['solid']);
    // Every mark drawn is in the legend: the schemas' colours, the start nodes' thick border, a line, the hub, the dashes.
    expect(await page.page.locator('#legend li').allTextContents()).toEqual([
      'crm',
      'web',
      'thick border: holds the ID you asked for',
      'ID the two nodes share',
      'hot ID (held by 3+ drawn nodes)',
      'ID of a type that does not link',
    ]);
    const swatches = await page.page.locator('#legend .swatch').evaluateAll((spans) =>
      spans.map((span) => {
        const style = (globalThis as unknown as { getComputedStyle(e: unknown): { borderTopWidth: string; borderTopStyle: string } }).getComputedStyle(span);
        return `${(span as unknown as { className: string }).className} ${style.borderTopWidth} ${style.borderTopStyle}`;
      }),
    );
    expect(swatches).toEqual([
      'swatch schema 0px none',
      'swatch schema 0px none',
      'swatch start 3px solid',
      'swatch line 2px solid',
      'swatch hub 0px none',
      'swatch unlinked 2px dashed',
    ]);
    expect(await page.page.locator('#notice').isHidden()).toBe(true);

    // The request: relative to the page, the token in the header only, the body as the contract says.
    const graph = page.requests.find((r) => r.url().endsWith('/_graph'));
    expect(graph?.url()).toBe(`${app.baseUrl}/v1/${person.customer}/_graph`);
    expect(graph?.method()).toBe('POST');
    expect(await graph?.headerValue('authorization')).toBe(`Bearer ${person.token}`);
    expect(graph?.postDataJSON()).toEqual({ match: { from: { where: { type: 'phone', id: '555-1' } }, step: 'ALL' }, max_nodes: 500 });
    expect(page.page.url()).toBe(`${app.baseUrl}/explore`);
  });

  test('when the page opens, then one line of help says what to do, and it goes with the first drawing', async () => {
    const page = await open();
    const help = page.page.locator('#help');
    expect(await help.isVisible()).toBe(true);
    expect(await help.evaluate((p) => (p as unknown as { getClientRects(): { length: number } }).getClientRects().length)).toBe(1);
    expect((await help.textContent())?.replace(/\s+/g, ' ').trim()).toBe(
      'Paste a token, type a customer and an ID, and press Show. Then click a node for its IDs and history, or pick two nodes to see why they are one person.',
    );
    expect(await page.page.locator('#graph-stats').textContent()).toBe('Nothing drawn yet.');
    await page.show({ token: person.token, customer: person.customer, type: 'phone', id: '555-1' });
    expect(await help.isHidden()).toBe(true);
  });

  test('when no token is given, then no Authorization is sent and the secure e-mail is not drawn', async () => {
    const page = await open();
    await page.show({ customer: person.customer, type: 'phone', id: '555-1', schema: 'crm' });
    expect(await page.counts()).toEqual(PERSON_DRAWN_WITHOUT_TOKEN);
    const graph = page.requests.find((r) => r.url().endsWith('/_graph'));
    expect(await graph?.headerValue('authorization')).toBeNull();
    expect(graph?.postDataJSON()).toEqual({ match: { from: { where: { type: 'phone', id: '555-1' }, schema: 'crm' }, step: 'ALL' }, max_nodes: 500 });
  });

  test('when "hot at" is raised above the holders, then the hot ID becomes a line between each pair of its holders', async () => {
    const page = await open();
    await page.show({ token: person.token, customer: person.customer, type: 'phone', id: '555-1' });
    await page.page.fill('#hot-at', '5');
    await page.page.locator('#hot-at').dispatchEvent('change');
    await page.page.waitForFunction(() => (globalThis as unknown as PageGlobals).document.getElementById('graph-stats')?.dataset.hubs === '0');
    // device tablet's 4 holders: the hub and its 4 lines become 6 lines.
    expect(await page.counts()).toEqual({ ...PERSON_DRAWN, hubs: 0, edges: PERSON_DRAWN.edges - 4 + 6 });
  });

  test('when a node is clicked, then the panel shows its schema, its key, each ID it holds and its history', async () => {
    const page = await open();
    await page.show({ token: person.token, customer: person.customer, type: 'phone', id: '555-1' });
    const history = page.page.waitForResponse((r) => r.url().includes('/node/_history'));
    await page.clickElement(await page.refOf('c-4'));
    const historyResponse = await history;
    expect(historyResponse.status()).toBe(200);
    expect(await historyResponse.request().headerValue('authorization')).toBe(`Bearer ${person.token}`);
    expect(new URL(historyResponse.url()).search).toBe('?schema=crm&key_type=crm_id&key_id=c-4&count=20&page=1');

    const panel = page.page.locator('#panel');
    await panel.locator('.history li').first().waitFor();
    expect(await panel.locator('h2').textContent()).toBe('Node: crm_id: c-4');
    expect(await panel.locator('dd.schema').textContent()).toBe('crm');
    expect(
      await panel.locator('.ids button').evaluateAll((buttons) => buttons.map((b) => (b as unknown as { dataset: Record<string, string> }).dataset.idValue)),
    ).toEqual(['c-4', 'tablet', '555-4']);
    const badges = await panel.locator('.ids button', { hasText: 'tablet' }).locator('.badge').allTextContents();
    expect(badges).toEqual(['hot: 4 holders']);
    const entries = await panel.locator('.history li').allTextContents();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC create by token:tok_\S+\+ crm_id: c-4\+ device: tablet\+ phone: 555-4$/);
    await page.screenshot('node-panel');
  });

  test('when a node is clicked without a token, then the panel says its history needs one', async () => {
    const page = await open();
    await page.show({ customer: person.customer, type: 'phone', id: '555-1' });
    await page.clickElement(await page.refOf('c-2'));
    const message = page.page.locator('#panel .history .problem');
    await message.waitFor();
    expect(await message.textContent()).toMatch(
      /^Authentication required: .+ This needs a token: paste a bearer token of this customer, or the administrator token\.$/,
    );
    expect(await page.page.locator('#panel h2').textContent()).toBe('Node: crm_id: c-2');
  });

  test('when an ID in the panel is clicked, then the nodes holding it (step ONE) are merged into the drawing', async () => {
    const page = await open();
    // From cookie ck-4, step ONE: its holders w-4 and w-5, and w-3, w-6, c-5, which share an ID with them.
    await page.show({ token: person.token, customer: person.customer, type: 'cookie', id: 'ck-4', step: 'ONE' });
    expect(await page.counts()).toEqual({ nodes: 5, hubs: 0, edges: 4, unlinked: 0 });

    await page.clickElement(await page.refOf('w-3'));
    await page.page.locator('#panel h2', { hasText: 'web_id: w-3' }).waitFor();
    await page.untilAnswered(() => page.page.locator('#panel .ids button[data-id-value="laptop"]').click());
    // device laptop's holders w-2 and w-3, and c-4, which shares phone 555-4 with w-2 (w-4 is drawn already).
    expect(await page.counts()).toEqual({ nodes: 7, hubs: 0, edges: 6, unlinked: 0 });
    expect(await page.page.locator('#notice').textContent()).toBe('Expanded device: laptop: 2 new nodes.');
    const expansion = page.requests.filter((r) => r.url().endsWith('/_graph'))[1];
    expect(expansion?.postDataJSON()).toEqual({ match: { from: { where: { type: 'device', id: 'laptop' } }, step: 'ONE' }, max_nodes: 500 });
    await page.screenshot('expanded');

    // Expanding it again adds nothing and draws the same.
    await page.clickElement(await page.refOf('w-2'));
    await page.page.locator('#panel h2', { hasText: 'web_id: w-2' }).waitFor();
    await page.untilAnswered(() => page.page.locator('#panel .ids button[data-id-value="laptop"]').click());
    expect(await page.counts()).toEqual({ nodes: 7, hubs: 0, edges: 6, unlinked: 0 });
    expect(await page.page.locator('#notice').textContent()).toBe('Expanded device: laptop: 0 new nodes.');
  });

  test('when a hot ID is clicked, then the panel names it and its holders', async () => {
    const page = await open();
    await page.show({ token: person.token, customer: person.customer, type: 'phone', id: '555-1' });
    const hub = await page.page.evaluate(() => (globalThis as unknown as PageGlobals).explorer.nodes('.hub').first().id());
    await page.clickElement(hub);
    const panel = page.page.locator('#panel');
    await panel.locator('h2', { hasText: 'ID: device: tablet' }).waitFor();
    expect(await panel.locator('.holders button').allTextContents()).toEqual([
      'crm · crm_id: c-1',
      'crm · crm_id: c-3',
      'crm · crm_id: c-4',
      'web · web_id: w-1',
    ]);
  });

  test('when no node holds the ID, then the page says so and draws nothing', async () => {
    const page = await open();
    await page.show({ token: person.token, customer: person.customer, type: 'phone', id: 'nobody' });
    expect(await page.page.locator('#notice').textContent()).toBe('No node holds phone: nobody.');
    expect(await page.counts()).toEqual({ nodes: 0, hubs: 0, edges: 0, unlinked: 0 });
    expect(await page.page.locator('#alert').isHidden()).toBe(true);
  });

  test('when the component is larger than max nodes, then the first ones are drawn and a notice says there are more', async () => {
    const page = await open();
    await page.show({ token: big.token, customer: big.customer, type: 'phone', id: 'p-1', maxNodes: 20 });
    expect((await page.counts()).nodes).toBe(20);
    const notice = page.page.locator('#notice');
    expect(await notice.isVisible()).toBe(true);
    expect(await notice.textContent()).toMatch(/^Showing the first 20 nodes; the component has more\./);
    await page.screenshot('truncated');
  });

  test('when the component has 500 nodes, then it is drawn and a node click still opens its panel (time to first draw printed)', async () => {
    const answer = (
      await app.call('POST', `/v1/${big.customer}/_graph`, { token: big.token, body: { match: { from: { where: { type: 'phone', id: 'p-1' } } } } })
    ).body as GraphAnswer;
    expect(answer.nodes).toHaveLength(500);
    expect(answer.truncated).toBe(true);

    const page = await open();
    await page.show({ token: big.token, customer: big.customer, type: 'phone', id: 'p-1' });
    const drawn = await page.counts();
    expect({ nodes: drawn.nodes, hubs: drawn.hubs, edges: drawn.edges }).toEqual(expectedDrawing(answer));
    const times = await page.drawTimes();
    expect(times.firstDraw).toBeGreaterThan(0);
    expect(await page.statsLine()).toMatchObject({ nodes: 500 });
    await page.screenshot('five-hundred');

    // A person zooms in with the wheel and drags the drawing about: the frames painted meanwhile.
    const box = await page.page.locator('#graph').boundingBox();
    const frames = await page.frameTimes(async () => {
      await page.page.mouse.move((box?.x ?? 0) + 300, (box?.y ?? 0) + 300);
      for (let step = 0; step < 8; step++) await page.page.mouse.wheel(0, -120);
      await page.page.mouse.down();
      for (let step = 0; step < 20; step++) await page.page.mouse.move((box?.x ?? 0) + 300 + step * 10, (box?.y ?? 0) + 300 + step * 5);
      await page.page.mouse.up();
    });
    // Then clicks a node (brought into view first): the panel opens for that node.
    await page.zoomTo(await page.refOf('b-42'), 2);
    const clickToPanel = await page.clickToPanelMs(await page.refOf('b-42'));
    expect(await page.page.locator('#panel h2').textContent()).toBe('Node: crm_id: b-42');
    await page.screenshot('five-hundred-panel');

    const sorted = [...frames].sort((a, b) => a - b);
    const at = (q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN);
    process.stdout.write(
      `\nexplorer at 500 nodes (${BIG_SIZE} in the component): first draw ${Math.round(times.firstDraw)} ms ` +
        `(request ${Math.round(times.request)} ms, layout and paint ${Math.round(times.drawing)} ms); ` +
        `while zooming and panning, ${frames.length} frames: median ${at(0.5)} ms, 95th percentile ${at(0.95)} ms, slowest ${at(1)} ms; ` +
        `click to panel ${Math.round(clickToPanel)} ms\n`,
    );
  });

  test('when JavaScript is off and the form is submitted, then the token goes nowhere: not in a URL, not in a body', async () => {
    const page = await open({ javaScriptEnabled: false });
    await page.page.fill('#token', person.token);
    await page.page.fill('#customer', person.customer);
    await page.page.fill('#id-type', 'phone');
    await page.page.fill('#id-value', '555-1');
    await Promise.all([page.page.waitForNavigation(), page.page.click('#show')]);
    const submitted = page.requests.filter((r) => r.isNavigationRequest()).at(-1);
    expect(submitted?.method()).toBe('POST');
    expect(submitted?.postData() ?? '').not.toContain(person.token);
  });

  test('when the page breaks the CSP, then this suite sees it (so that its silence elsewhere means something)', async () => {
    const page = await open();
    await page.page.evaluate(() => {
      const doc = (globalThis as unknown as { document: { createElement(tag: string): { textContent: string }; head: { append(node: unknown): void } } })
        .document;
      const script = doc.createElement('script');
      script.textContent = 'void 0';
      doc.head.append(script);
    });
    // Both reports come back asynchronously (the DOM event through a binding, and the console): wait for both.
    await waitFor(
      () => `two reports of the violation (${JSON.stringify(page.violations)})`,
      () => page.violations.length >= 2,
      { everyMs: 20 },
    );
    expect(page.violations).toHaveLength(2);
    expect(page.violations).toEqual(
      expect.arrayContaining(['script-src-elem inline', expect.stringMatching(/^Executing inline script violates .*Content Security Policy/)]),
    );
    page.violations.length = 0;
  });
});
