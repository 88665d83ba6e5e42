// The whole person at a glance, measured on the rendered page in Chromium: after Show a person of up to 25 nodes,
// whatever its shape (the seeded twelve-node person, a tree, a chain, a hot ID's star), is drawn with every node
// inside the drawing's room and every label drawn at a size that reads, in a 1200×640 and a 1280×800 window; it
// stays so while a node's panel takes room and after it closes; a larger one is fitted whole; and the same answer
// draws the same picture.
import type { Browser } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app';
import { uniqueCustomer } from '../helpers/builders-nodesearch';
import { type Box, ExplorerPage, launchBrowser, type PageGlobals } from './harness';
import { type Seeded, seedChain, seedPerson, seedStar, seedTree } from './seed';

const WINDOWS = [
  { width: 1200, height: 640 },
  { width: 1280, height: 800 },
];

/** The smallest size on screen a label may be drawn at, px: 10 up to 12 nodes, 8 up to 25. */
const minLabelPx = (nodes: number) => (nodes <= 12 ? 10 : 8);

interface Shape {
  name: string;
  nodes: number;
  /** Labelled elements: every node, every hub and every line but a hub's. */
  labels: number;
  seed(app: TestApp): Promise<Seeded>;
  start: { type: string; id: string };
  /** The key of the node whose panel is opened. */
  click: string;
}

const SHAPES: Shape[] = [
  {
    name: 'the seeded person',
    nodes: 12,
    labels: 23,
    seed: (app) => seedPerson(app, uniqueCustomer('fit-person')),
    start: { type: 'phone', id: '555-1' },
    click: 'c-1',
  },
  {
    name: 'a chain of 12',
    nodes: 12,
    labels: 23,
    seed: (app) => seedChain(app, uniqueCustomer('fit-chain'), 12),
    start: { type: 'crm_id', id: 'k-0' },
    click: 'k-5',
  },
  {
    name: 'a tree of 12',
    nodes: 12,
    labels: 23,
    seed: (app) => seedTree(app, uniqueCustomer('fit-tree'), 12),
    start: { type: 'crm_id', id: 't-0' },
    click: 't-0',
  },
  {
    name: 'a chain of 25',
    nodes: 25,
    labels: 49,
    seed: (app) => seedChain(app, uniqueCustomer('fit-chain'), 25),
    start: { type: 'crm_id', id: 'k-0' },
    click: 'k-24',
  },
  {
    name: 'a tree of 25',
    nodes: 25,
    labels: 49,
    seed: (app) => seedTree(app, uniqueCustomer('fit-tree'), 25),
    start: { type: 'crm_id', id: 't-0' },
    click: 't-13',
  },
  {
    name: 'a star of 25',
    nodes: 25,
    labels: 26,
    seed: (app) => seedStar(app, uniqueCustomer('fit-star'), 25),
    start: { type: 'crm_id', id: 's-0' },
    click: 's-7',
  },
];

const outside = (box: Box, room: { width: number; height: number }) => box.x1 < 0 || box.y1 < 0 || box.x2 > room.width || box.y2 > room.height;

describe('the explorer page, the whole person at a glance', () => {
  let app: TestApp;
  let browser: Browser;
  const seeded = new Map<string, Seeded>();
  let page: ExplorerPage;

  beforeAll(async () => {
    [app, browser] = await Promise.all([startApp(), launchBrowser()]);
    for (const shape of SHAPES) seeded.set(shape.name, await shape.seed(app));
  });

  beforeEach(async () => {
    page = await ExplorerPage.open(browser, app.baseUrl);
  });

  afterEach(async () => {
    await page.close();
    page.expectNoCspViolation();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  /** What a user would see wrong: nodes (with their labels) not wholly inside the drawing, labels not drawn or too small. */
  async function problems(shape: Shape): Promise<{ cut: string[]; labelsDrawn: number; tooSmall: string[] }> {
    const drawn = await page.drawnNodes();
    const labels = await page.labels();
    const min = minLabelPx(shape.nodes);
    return {
      cut: drawn.nodes.filter((n) => outside(n.box, drawn.room)).map((n) => n.label),
      labelsDrawn: labels.length,
      tooSmall: labels.filter((l) => l.fontPx < min).map((l) => `${l.text} ${l.fontPx.toFixed(1)} px`),
    };
  }

  const allWell = (shape: Shape) => ({ cut: [], labelsDrawn: shape.labels, tooSmall: [] });

  describe.each(WINDOWS)('in a $width×$height window', (window) => {
    test.each(SHAPES)(
      'when $name is shown, then every node is inside the drawing with every label drawn at a size that reads, with a node panel open and after it closes',
      async (shape) => {
        await page.page.setViewportSize(window);
        const { token, customer } = seeded.get(shape.name) as Seeded;
        await page.show({ token, customer, ...shape.start });
        expect((await page.counts()).nodes).toBe(shape.nodes);
        const zooms = [(await page.drawnNodes()).zoom];
        await page.screenshot(`fit-${shape.name.replace(/ /g, '-')}-${window.width}`);
        process.stdout.write(`\n${shape.name} at ${window.width}×${window.height}: first zoom ${zooms[0]?.toFixed(2)}\n`);
        expect(await problems(shape)).toEqual(allWell(shape));

        await page.clickElement(await page.refOf(shape.click));
        await page.page.locator('#panel h2', { hasText: shape.click }).waitFor();
        await page.untilRoomTaken();
        const narrower = await page.drawnNodes();
        expect(narrower.room.width).toBeLessThan(window.width - 300);
        zooms.push(narrower.zoom);
        await page.screenshot(`fit-${shape.name.replace(/ /g, '-')}-${window.width}-panel`);
        expect(await problems(shape)).toEqual(allWell(shape));

        await page.page.click('#panel .close');
        await page.untilRoomTaken();
        expect((await page.drawnNodes()).room.width).toBe(window.width);
        zooms.push((await page.drawnNodes()).zoom);
        expect(await problems(shape)).toEqual(allWell(shape));
        process.stdout.write(`\n${shape.name} at ${window.width}×${window.height}: zoom ${zooms.map((z) => z.toFixed(2)).join(' → ')}\n`);
      },
    );
  });

  test('when a component of 200 nodes is shown, then it is fitted whole, labels too small to read are not drawn, and they appear as the user zooms in', async () => {
    await page.page.setViewportSize(WINDOWS[0] as { width: number; height: number });
    const tree = await seedTree(app, uniqueCustomer('fit-big'), 200);
    await page.show({ token: tree.token, customer: tree.customer, type: 'crm_id', id: 't-0' });
    const drawn = await page.drawnNodes();
    expect(drawn.nodes).toHaveLength(200);
    expect(drawn.nodes.filter((n) => outside(n.box, drawn.room)).map((n) => n.label)).toEqual([]);
    expect((await page.labels()).filter((l) => l.fontPx < 10)).toEqual([]);
    // Zoomed in on the start node: its label is drawn.
    await page.zoomTo(await page.refOf('t-0'), 1);
    expect((await page.labels()).find((l) => l.text === 'crm_id: t-0')?.fontPx).toBeGreaterThanOrEqual(10);
  });

  test('when the user has zoomed in and opens the panel of a node at the right edge, then the zoom is kept and the node stays in sight', async () => {
    await page.page.setViewportSize(WINDOWS[0] as { width: number; height: number });
    const { token, customer } = seeded.get('a chain of 25') as Seeded;
    await page.show({ token, customer, type: 'crm_id', id: 'k-0' });
    const before = await page.drawnNodes();
    // The node drawn furthest right: where the panel opens.
    const node = before.nodes.reduce((a, b) => (b.box.x2 > a.box.x2 ? b : a));
    const key = node.label.replace('crm_id: ', '');
    const graph = await page.page.locator('#graph').boundingBox();
    await page.page.mouse.move((graph?.x ?? 0) + (node.box.x1 + node.box.x2) / 2, (graph?.y ?? 0) + (node.box.y1 + node.box.y2) / 2);
    // The library zooms a mouse wheel's notch by under 1%: as many notches as it takes.
    for (let notch = 0; notch < 300 && (await page.drawnNodes()).zoom < before.zoom * 1.3; notch++) await page.page.mouse.wheel(0, -100);
    const zoomed = (await page.drawnNodes()).zoom;
    expect(zoomed).toBeGreaterThanOrEqual(before.zoom * 1.3);

    await page.clickElement(await page.refOf(key));
    await page.page.locator('#panel h2', { hasText: key }).waitFor();
    await page.untilRoomTaken();
    const after = await page.drawnNodes();
    expect(after.zoom).toBeCloseTo(zoomed, 5);
    const clicked = after.nodes.find((n) => n.label === node.label) as { box: Box };
    expect({ node: node.label, outside: outside(clicked.box, after.room) }).toEqual({ node: node.label, outside: false });
  });

  test('when the same person is shown twice, in two pages and again in one, then it is drawn the same: the layout is seeded from the answer', async () => {
    const { token, customer } = seeded.get('the seeded person') as Seeded;
    const positions = async (explorer: ExplorerPage) =>
      explorer.page.evaluate(() =>
        (globalThis as unknown as PageGlobals).explorer
          .nodes()
          .map((n) => `${String(n.data('label'))} ${n.position().x.toFixed(2)} ${n.position().y.toFixed(2)}`),
      );
    await page.show({ token, customer, type: 'phone', id: '555-1' });
    const first = await positions(page);
    await page.show({ token, customer, type: 'phone', id: '555-1' });
    expect(await positions(page)).toEqual(first);
    const other = await ExplorerPage.open(browser, app.baseUrl);
    try {
      await other.show({ token, customer, type: 'phone', id: '555-1' });
      expect(await positions(other)).toEqual(first);
    } finally {
      await other.close();
    }
  });
});
