// Makes docs/explorer.png, the README's and docs/explorer.md's picture of the explorer: the seeded person of seed.ts (twelve nodes, two
// schemas, a links:false ID, a hot ID) drawn with a token, and a node's panel open. Run with
// `npm run explorer:screenshot`; jest runs it (for ts-jest and the browser suite's setup), it asserts nothing more
// than the browser suite does. The layout starts at random, so each run draws the same graph a little differently.
import fs from 'node:fs';
import path from 'node:path';
import { startApp } from '../helpers/app';
import { ExplorerPage, launchBrowser } from './harness';
import { PERSON_DRAWN, seedPerson } from './seed';

const OUTPUT = path.resolve(__dirname, '..', '..', 'docs', 'explorer.png');
/** What the README promises of the picture. */
const MAX_BYTES = 200 * 1024;

test('docs/explorer.png: the explorer on a small seeded graph, a node panel open', async () => {
  const [app, browser] = await Promise.all([startApp(), launchBrowser()]);
  try {
    const { customer, token } = await seedPerson(app, 'acme');
    const page = await ExplorerPage.open(browser, app.baseUrl);
    await page.page.setViewportSize({ width: 1200, height: 640 });
    await page.show({ token, customer, type: 'phone', id: '555-1' });
    expect(await page.counts()).toEqual(PERSON_DRAWN);
    await page.clickElement(await page.refOf('c-1'));
    await page.page.locator('#panel .history li').first().waitFor();
    // The panel took room from the drawing: the clicked node back in the middle of what is left, at a zoom where
    // labels read well (fitted whole, they would be too small to draw).
    await page.zoomTo(await page.refOf('c-1'), 1.1);
    await page.page.mouse.move(0, 0);
    fs.mkdirSync(path.dirname(OUTPUT), { recursive: true });
    await page.page.screenshot({ path: OUTPUT });
    page.expectNoCspViolation();
    await page.close();
    const bytes = fs.statSync(OUTPUT).size;
    expect(bytes).toBeLessThan(MAX_BYTES);
    process.stdout.write(`\nwrote ${path.relative(process.cwd(), OUTPUT)} (${Math.round(bytes / 1024)} KiB)\n`);
  } finally {
    await browser.close();
    await app.close();
  }
});
