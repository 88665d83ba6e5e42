// The explorer's labels, measured on the rendered page in Chromium: on docs/explorer.md's walkthrough people and the
// seeded twelve-node person no two labels overlap and none is cut by the edge of the drawing; from 2 to 200 nodes
// the labels drawn at the first draw are of a readable size on screen, and up to 25 nodes every label is drawn.
import type { Browser } from 'playwright-core';
import { startApp, type TestApp } from '../helpers/app';
import { uniqueCustomer } from '../helpers/builders-nodesearch';
import { ExplorerPage, launchBrowser } from './harness';
import { seedPerson, seedTree, seedWalkthrough } from './seed';

/** Font sizes on screen, in CSS px, that read well: not smaller than small print, not larger than a heading. */
const READABLE = { min: 10, max: 18 };

const WINDOWS = [
  { width: 1200, height: 640 },
  { width: 1280, height: 800 },
];

type Box = { x1: number; y1: number; x2: number; y2: number };
const overlap = (a: Box, b: Box) => Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1) > 0.5 && Math.min(a.y2, b.y2) - Math.max(a.y1, b.y1) > 0.5;

describe('the explorer page, its labels', () => {
  let app: TestApp;
  let browser: Browser;
  let page: ExplorerPage;

  beforeAll(async () => {
    [app, browser] = await Promise.all([startApp(), launchBrowser()]);
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

  /** Every pair of labels drawn on top of each other, and every label not wholly inside the drawing's area. */
  async function problems(): Promise<{ overlapping: string[]; cut: string[]; texts: string[] }> {
    const labels = await page.labels();
    const area = await page.page.locator('#graph').boundingBox();
    if (!area) throw new Error('#graph is not displayed');
    const overlapping: string[] = [];
    for (let a = 0; a < labels.length; a++)
      for (let b = a + 1; b < labels.length; b++) {
        const [one, two] = [labels[a], labels[b]];
        if (one && two && overlap(one.box, two.box)) overlapping.push(`${one.text} × ${two.text}`);
      }
    const cut = labels.filter((l) => l.box.x1 < 0 || l.box.y1 < 0 || l.box.x2 > area.width || l.box.y2 > area.height).map((l) => l.text);
    return { overlapping, cut, texts: labels.map((l) => l.text).sort() };
  }

  test.each(WINDOWS)(
    "when the README walkthrough's people are drawn from Ann in a $width×$height window, then every label is drawn whole, and no two overlap",
    async (window) => {
      const seeded = await seedWalkthrough(app, uniqueCustomer('walk'));
      await page.page.setViewportSize(window);
      await page.show({ token: seeded.token, customer: seeded.customer, type: 'member_id', id: 'ann' });
      expect(await problems()).toEqual({
        overlapping: [],
        cut: [],
        texts: ['device: ann-phone', 'device: tablet-1 (3)', 'member_id: ann', 'member_id: bob', 'member_id: cy', 'shop_id: s-77'],
      });
      await page.screenshot(`labels-walkthrough-${window.width}`);
    },
  );

  test.each(WINDOWS)(
    'when the twelve-node person is drawn in a $width×$height window, then it opens whole, every label drawn at a readable size, none cut, no two overlapping; Fit leaves it so',
    async (window) => {
      const seeded = await seedPerson(app, uniqueCustomer('person'));
      await page.page.setViewportSize(window);
      await page.show({ token: seeded.token, customer: seeded.customer, type: 'phone', id: '555-1' });
      for (const when of ['shown', 'fitted']) {
        if (when === 'fitted') await page.page.click('#fit');
        const found = await problems();
        expect({ when, overlapping: found.overlapping, cut: found.cut }).toEqual({ when, overlapping: [], cut: [] });
        // Every node's label and every line's is drawn: 12 nodes, the hub, 10 labelled lines (the 4 lines to the hub have none).
        expect(found.texts).toHaveLength(23);
        for (const label of await page.labels()) {
          expect(label.fontPx).toBeGreaterThanOrEqual(READABLE.min);
          expect(label.fontPx).toBeLessThanOrEqual(READABLE.max);
        }
      }
      await page.screenshot(`labels-person-${window.width}`);
    },
  );

  test.each([2, 5, 12, 25, 200])('when a component of %i nodes is drawn, then the labels drawn are of a readable size on screen', async (size) => {
    const seeded = await seedTree(app, uniqueCustomer(`tree${size}`), size);
    await page.show({ token: seeded.token, customer: seeded.customer, type: 'crm_id', id: 't-0' });
    const labels = await page.labels();
    const sizes = labels.map((l) => l.fontPx);
    process.stdout.write(`\n${size} nodes: ${labels.length} labels drawn, ${Math.min(...sizes).toFixed(1)}–${Math.max(...sizes).toFixed(1)} px on screen\n`);
    // Up to 25 nodes a component is read whole, every label drawn (from 8 px above 12 nodes); a larger one is fitted
    // whole and its labels appear as the user zooms in (fit.browser.test.ts).
    if (size <= 25) expect(labels).toHaveLength(size + (size - 1));
    for (const px of sizes) {
      expect(px).toBeGreaterThanOrEqual(size <= 12 ? READABLE.min : 8);
      expect(px).toBeLessThanOrEqual(READABLE.max);
    }
    // Fit shows it whole, and never blows a small drawing up past that size either.
    await page.page.click('#fit');
    for (const label of await page.labels()) expect(label.fontPx).toBeLessThanOrEqual(READABLE.max);
    await page.screenshot(`labels-${size}`);
  });
});
