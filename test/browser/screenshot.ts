// Makes docs/explorer.png, the README's and docs/explorer.md's picture of the explorer: the seeded person of seed.ts
// (twelve nodes, two schemas, a links:false ID, a hot ID) drawn whole with a token, in a 1200×640 window, with a
// node's panel open. Run with `npm run explorer:screenshot`; jest runs it (for ts-jest and the browser suite's setup),
// and it asserts what a reader of the picture is promised. The layout is seeded from the answer, so two runs write
// the same file: the one thing that changes between runs, the history's instant and token id, is pinned below.
import fs from 'node:fs';
import path from 'node:path';
import { startApp } from '../helpers/app';
import { ExplorerPage, launchBrowser } from './harness';
import { PERSON_DRAWN, seedPerson } from './seed';

const OUTPUT = path.resolve(__dirname, '..', '..', 'docs', 'explorer.png');
/** What the README promises of the picture. */
const MAX_BYTES = 200 * 1024;
const WINDOW = { width: 1200, height: 640 };

test('docs/explorer.png: the explorer on a small seeded graph, drawn whole, a node panel open', async () => {
  const [app, browser] = await Promise.all([startApp(), launchBrowser()]);
  try {
    const { customer, token } = await seedPerson(app, 'acme');
    const page = await ExplorerPage.open(browser, app.baseUrl);
    await page.page.setViewportSize(WINDOW);
    // The node's history as the service answers it, but for when it was written and by which token (both new on
    // every run): pinned, so that the picture is the same file every time.
    await page.page.route('**/node/_history?*', async (route) => {
      const response = await route.fetch();
      const entries = (await response.json()) as Array<Record<string, unknown>>;
      await route.fulfill({ response, json: entries.map((entry) => ({ ...entry, at: '2025-03-14T09:26:53Z', actor: 'token:tok_3sKq81Zw0XbP' })) });
    });
    await page.show({ token, customer, type: 'phone', id: '555-1' });
    expect(await page.counts()).toEqual(PERSON_DRAWN);
    await page.clickElement(await page.refOf('c-1'));
    await page.page.locator('#panel .history li').first().waitFor();
    await page.untilRoomTaken();
    // The whole person, in the room the panel leaves, every label drawn.
    const drawn = await page.drawnNodes();
    const outside = drawn.nodes.filter((n) => n.box.x1 < 0 || n.box.y1 < 0 || n.box.x2 > drawn.room.width || n.box.y2 > drawn.room.height);
    expect(outside.map((n) => n.label)).toEqual([]);
    expect((await page.labels()).filter((l) => l.fontPx >= 10)).toHaveLength(23);
    await page.page.mouse.move(0, 0);
    fs.mkdirSync(path.dirname(OUTPUT), { recursive: true });
    await page.page.screenshot({ path: OUTPUT, animations: 'disabled', caret: 'hide' });
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
