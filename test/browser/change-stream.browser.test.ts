// The change feed's event stream (docs/changes-and-export.md) read by the browser's own EventSource, in Debian's
// Chromium: the events as they commit, and, once the service ends the stream (CHANGES_STREAM_SECONDS), the browser's
// reconnection with Last-Event-ID, which goes on where it was, no change twice and none missed. EventSource sends
// no Authorization header of its own: the page's requests carry the token as a proxy in front of the service would
// add it (Playwright's extra headers).
import type { Browser } from 'playwright-core';
import { ADMIN_TOKEN, startApp, type TestApp } from '../helpers/app';
import { uniqueCustomer } from '../helpers/builders-nodesearch';
import { putSchema } from '../helpers/factories';
import { launchBrowser } from './harness';

/** What the page's code sees: EventSource, and where it keeps what it received. */
type StreamPage = {
  EventSource: new (url: string) => {
    addEventListener(type: string, listener: (event: { data: string; lastEventId: string }) => void): void;
    close(): void;
  };
  received: Array<{ id: string; key: string }>;
  opened: number;
  feed?: { close(): void };
};

describe('the change stream in a browser', () => {
  let app: TestApp;
  let browser: Browser;
  beforeAll(async () => {
    app = await startApp({ env: { CHANGES_STREAM_SECONDS: '2' } });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  test('EventSource receives every change once, across the reconnections the stream asks for', async () => {
    const customer = uniqueCustomer('stream');
    await putSchema(app, customer, 'member', { id_types: [{ type: 'member_id' }] });
    const create = async (key: string) => {
      const res = await app.call('POST', `/v1/${customer}/node/_create`, {
        token: ADMIN_TOKEN,
        body: { schema: 'member', key: { type: 'member_id', id: key }, ids: [] },
      });
      expect(res.status).toBe(201);
    };
    await create('k0');
    const context = await browser.newContext({ extraHTTPHeaders: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
    try {
      const page = await context.newPage();
      await page.goto(`${app.baseUrl}/healthz`);
      await page.evaluate((url) => {
        const g = globalThis as unknown as StreamPage;
        g.received = [];
        g.opened = 0;
        const feed = new g.EventSource(url);
        feed.addEventListener('open', () => {
          g.opened += 1;
        });
        feed.addEventListener('change', (event) => {
          g.received.push({ id: event.lastEventId, key: (JSON.parse(event.data) as { key: { id: string } }).key.id });
        });
        g.feed = feed;
      }, `/v1/${customer}/_changes`);
      const received = () => page.evaluate(() => (globalThis as unknown as StreamPage).received);
      await page.waitForFunction(() => (globalThis as unknown as StreamPage).received.length === 1);
      await create('k1');
      await page.waitForFunction(() => (globalThis as unknown as StreamPage).received.length === 2);
      // The stream lasts 2 s: the browser reconnects by itself, with the last id it received.
      await page.waitForFunction(() => (globalThis as unknown as StreamPage).opened >= 2, undefined, { timeout: 30_000 });
      await create('k2');
      await create('k3');
      // Through one more reconnection, then one last change: a change received twice would come before it.
      await page.waitForFunction(() => (globalThis as unknown as StreamPage).opened >= 3, undefined, { timeout: 30_000 });
      await create('k4');
      await page.waitForFunction(() => (globalThis as unknown as StreamPage).received.some((e) => e.key === 'k4'));
      const events = await received();
      expect(events.map((e) => e.key)).toEqual(['k0', 'k1', 'k2', 'k3', 'k4']);
      expect(new Set(events.map((e) => e.id)).size).toBe(5);
      await page.evaluate(() => (globalThis as unknown as StreamPage).feed?.close());
    } finally {
      await context.close();
    }
  });
});
