// Drives the explorer page in Debian's Chromium (never a downloaded browser) through playwright-core: opening
// /explore with every CSP violation and request recorded, filling the form, reading the drawing from the
// library's own model (window.explorer, a cytoscape instance), clicking where a node is drawn.
import fs from 'node:fs';
import path from 'node:path';
import type cytoscape from 'cytoscape';
import { type Browser, type BrowserContext, chromium, type Page, type Request } from 'playwright-core';

/** Debian's package `chromium`; .ci/run installs it with apt when it is missing. */
export const CHROMIUM = '/usr/bin/chromium';

export const ARTIFACTS = path.resolve(__dirname, '..', '..', 'test-artifacts');

/** What test/browser/global-setup.js says too: a missing browser fails the suite, with how to get one. */
export function chromiumMissing(): string | null {
  return fs.existsSync(CHROMIUM)
    ? null
    : `${CHROMIUM} is missing: install Debian's package (apt-get install -y --no-install-recommends chromium). The browser suite never downloads a browser.`;
}

export async function launchBrowser(): Promise<Browser> {
  const missing = chromiumMissing();
  if (missing) throw new Error(missing);
  return chromium.launch({ executablePath: CHROMIUM, headless: true });
}

/** A box on the rendered page, px. */
export type Box = { x1: number; y1: number; x2: number; y2: number };

/** The page's drawing, as the library counts it. */
export interface DrawnCounts {
  nodes: number;
  hubs: number;
  edges: number;
  unlinked: number;
}

/** What the form takes; fields left out keep the page's defaults. */
export interface Query {
  token?: string;
  customer: string;
  type: string;
  id: string;
  schema?: string;
  step?: 'ALL' | 'ONE';
  maxNodes?: number;
}

/**
 * The page's globals as code that page.evaluate runs in the page sees them. That code is sent as its text, so it
 * can use nothing from this file but types; this project's tsconfig has no DOM types, hence globalThis.
 */
export type PageGlobals = {
  explorer: cytoscape.Core;
  document: { body: { getAttribute(name: string): string | null }; getElementById(id: string): { dataset: Record<string, string | undefined> } | null };
};

/** The drawing's area (#graph) as page code sees it: its size, px. */
export type GraphArea = { document: { getElementById(id: 'graph'): { clientWidth: number; clientHeight: number } } };

export class ExplorerPage {
  /** Every CSP violation the page reported, as `directive blocked-uri`. */
  readonly violations: string[] = [];
  /** Every request the page made. */
  readonly requests: Request[] = [];

  private constructor(
    readonly page: Page,
    private readonly context: BrowserContext,
  ) {}

  static async open(browser: Browser, baseUrl: string, options: { javaScriptEnabled?: boolean } = {}): Promise<ExplorerPage> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, javaScriptEnabled: options.javaScriptEnabled ?? true });
    const page = await context.newPage();
    const explorer = new ExplorerPage(page, context);
    page.on('request', (request) => explorer.requests.push(request));
    // Both ways a violation shows: the DOM event (through a binding, which the CSP cannot block) and the console.
    await page.exposeFunction('reportCspViolation', (text: string) => explorer.violations.push(text));
    await page.addInitScript({
      content: "document.addEventListener('securitypolicyviolation', (e) => reportCspViolation(e.violatedDirective + ' ' + e.blockedURI));",
    });
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) explorer.violations.push(message.text());
    });
    const response = await page.goto(`${baseUrl}/explore`);
    if (response?.status() !== 200) throw new Error(`GET /explore answered ${response?.status()}`);
    return explorer;
  }

  async close(): Promise<void> {
    await this.context.close();
  }

  /** Fills the form and presses Show (a real click), then waits until the page has drawn or said why not. */
  async show(query: Query): Promise<void> {
    const page = this.page;
    await page.fill('#token', query.token ?? '');
    await page.fill('#customer', query.customer);
    await page.fill('#id-type', query.type);
    await page.fill('#id-value', query.id);
    await page.fill('#schema', query.schema ?? '');
    await page.selectOption('#step', query.step ?? 'ALL');
    await page.fill('#max-nodes', String(query.maxNodes ?? 500));
    await this.untilAnswered(() => page.click('#show'));
  }

  /**
   * Runs `act`, which makes the page ask _graph, and waits until the page is done with the answer: the page is
   * busy (aria-busy="true") from the request until it has drawn or shown the problem.
   */
  async untilAnswered(act: () => Promise<void>): Promise<void> {
    const answered = this.page.waitForResponse((response) => response.url().endsWith('/_graph'));
    await act();
    await answered;
    // A function, not a string: playwright evaluates a string predicate with eval, which the CSP refuses.
    await this.page.waitForFunction(() => (globalThis as unknown as PageGlobals).document.body.getAttribute('aria-busy') === 'false');
  }

  /** What the library draws: nodes of the service, hot-ID hubs, all lines, and the lines of links:false IDs. */
  counts(): Promise<DrawnCounts> {
    return this.page.evaluate(() => {
      const cy = (globalThis as unknown as PageGlobals).explorer;
      return { nodes: cy.nodes('.person').length, hubs: cy.nodes('.hub').length, edges: cy.edges().length, unlinked: cy.edges('.unlinked').length };
    });
  }

  /** The status line's counts, which the page computes from the same model. */
  async statsLine(): Promise<DrawnCounts & { text: string }> {
    const stats = this.page.locator('#graph-stats');
    const number = async (name: string) => Number(await stats.getAttribute(`data-${name}`));
    return { nodes: await number('nodes'), hubs: await number('hubs'), edges: await number('edges'), unlinked: -1, text: (await stats.textContent()) ?? '' };
  }

  /** The ref (element id) of the node whose key is `keyId`. */
  refOf(keyId: string): Promise<string> {
    return this.page.evaluate((label) => {
      const found = (globalThis as unknown as PageGlobals).explorer.nodes('.person').filter((n) => String(n.data('label')).endsWith(`: ${label}`));
      if (found.length !== 1) throw new Error(`${found.length} nodes labelled ${label}`);
      return found.first().id();
    }, keyId);
  }

  /**
   * Every label the library draws now, measured on the rendered page: its text, its box (px, relative to #graph, from
   * the library's own rendered bounding box of the label alone) and its font size on screen (the style's size times
   * the zoom). Left out: labels the library skips as too small (its renderer's own test) and transparent ones.
   */
  labels(): Promise<Array<{ text: string; box: Box; fontPx: number }>> {
    return this.page.evaluate(() => {
      const cy = (globalThis as unknown as PageGlobals).explorer;
      const renderer = (cy as unknown as { renderer(): { eleTextBiggerThanMin(e: unknown): boolean } }).renderer();
      const zoom = cy.zoom();
      return cy
        .elements()
        .filter((e) => String(e.data('label') ?? '') !== '' && renderer.eleTextBiggerThanMin(e) && Number(e.style('text-opacity')) > 0)
        .map((e) => {
          const box = e.renderedBoundingBox({ includeNodes: false, includeEdges: false, includeLabels: true, includeOverlays: false });
          return {
            text: String(e.data('label')),
            box: { x1: box.x1, y1: box.y1, x2: box.x2, y2: box.y2 },
            fontPx: parseFloat(String(e.style('font-size'))) * zoom,
          };
        });
    });
  }

  /**
   * Where the library draws each node now: its box on the rendered page (px, relative to #graph, its label
   * included), with the room #graph gives the drawing (px) and the zoom.
   */
  drawnNodes(): Promise<{ room: { width: number; height: number }; zoom: number; nodes: Array<{ label: string; box: Box }> }> {
    return this.page.evaluate(() => {
      const globals = globalThis as unknown as PageGlobals & GraphArea;
      const cy = globals.explorer;
      const graph = globals.document.getElementById('graph');
      return {
        room: { width: graph.clientWidth, height: graph.clientHeight },
        zoom: cy.zoom(),
        nodes: cy.nodes().map((n) => {
          const box = n.renderedBoundingBox({ includeNodes: true, includeLabels: true, includeOverlays: false });
          return { label: String(n.data('label')), box: { x1: box.x1, y1: box.y1, x2: box.x2, y2: box.y2 } };
        }),
      };
    });
  }

  /**
   * Waits until the drawing library works in #graph's current room (it learns of a change from a ResizeObserver,
   * which runs before the next paint), and that frame is painted.
   */
  async untilRoomTaken(): Promise<void> {
    await this.page.waitForFunction(() => {
      const globals = globalThis as unknown as PageGlobals & GraphArea;
      const graph = globals.document.getElementById('graph');
      return globals.explorer.width() === graph.clientWidth && globals.explorer.height() === graph.clientHeight;
    });
    await this.page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
  }

  /** Clicks with the real mouse where the library drew the element `ref`. */
  async clickElement(ref: string): Promise<void> {
    // A notice or panel that just appeared moves the drawing; the library learns its new place on the next frame.
    await this.page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
    const box = await this.page.locator('#graph').boundingBox();
    if (!box) throw new Error('#graph is not displayed');
    const at = await this.page.evaluate((id) => (globalThis as unknown as PageGlobals).explorer.getElementById(id).renderedPosition(), ref);
    await this.page.mouse.click(box.x + at.x, box.y + at.y);
  }

  /** Zooms the drawing around `ref` so that it is clear of its neighbours (as a person would with the wheel). */
  async zoomTo(ref: string, level: number): Promise<void> {
    await this.page.evaluate(
      ([id, zoom]) => {
        const cy = (globalThis as unknown as PageGlobals).explorer;
        cy.zoom(zoom);
        cy.center(cy.getElementById(id));
      },
      [ref, level] as const,
    );
  }

  /** The last Show's times as the page measured them (performance.measure), in ms: all, the request, the drawing. */
  drawTimes(): Promise<{ firstDraw: number; request: number; drawing: number }> {
    return this.page.evaluate(() => {
      const last = (name: string) => performance.getEntriesByName(`explorer:${name}`).at(-1)?.duration ?? Number.NaN;
      return { firstDraw: last('first-draw'), request: last('request'), drawing: last('drawing') };
    });
  }

  /**
   * Runs `act` while the page records the time between its painted frames, and answers them (ms): how smooth a
   * pan or a zoom is. Page code as text, evaluated as a script (not with eval, which the CSP refuses).
   */
  async frameTimes(act: () => Promise<void>): Promise<number[]> {
    await this.page.evaluate(`(() => {
      const record = { intervals: [], on: true };
      let last = performance.now();
      const tick = (now) => { record.intervals.push(now - last); last = now; if (record.on) requestAnimationFrame(tick); };
      requestAnimationFrame(tick);
      window.frameRecord = record;
    })()`);
    await act();
    return await this.page.evaluate<number[]>('(() => { window.frameRecord.on = false; return window.frameRecord.intervals; })()');
  }

  /** Clicks `ref` (a real click) and answers how long the page took from the press to the panel showing it, in ms. */
  async clickToPanelMs(ref: string): Promise<number> {
    await this.page.evaluate(`(() => {
      const times = {};
      window.clickTimes = times;
      document.addEventListener('pointerdown', () => { times.down = performance.now(); }, { capture: true, once: true });
      const panel = document.getElementById('panel');
      const watch = new MutationObserver(() => { if (!panel.hidden) { times.shown = performance.now(); watch.disconnect(); } });
      watch.observe(panel, { childList: true, attributes: true });
    })()`);
    await this.clickElement(ref);
    await this.page.locator('#panel h2').waitFor();
    return await this.page.evaluate<number>('window.clickTimes.shown - window.clickTimes.down');
  }

  async screenshot(name: string): Promise<void> {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await this.page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
  }

  /** Fails with the violations, if any: the page must run under the service's CSP as it is. */
  expectNoCspViolation(): void {
    if (this.violations.length > 0) throw new Error(`CSP violations:\n${this.violations.join('\n')}`);
  }

  /** Every URL the page asked, and the page's own. */
  urls(): string[] {
    return [this.page.url(), ...this.requests.map((r) => r.url())];
  }
}
