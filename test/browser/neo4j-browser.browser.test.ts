// Neo4j Browser as `npm run neo4j:local` serves it, in Debian's Chromium: the local Neo4j with the Browser on a free
// port, the service on it writing a person of three linked nodes through its API, then the Browser loaded from
// /browser/, connected with the password, given the analyst style and an analyst query, and the result drawn.
// The screenshot is kept in test-artifacts/neo4j-browser.png.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { freePort, type LocalNeo4j, missingTools, start } from '../../neo4j-local/neo4j-local';
import { Neo4jStore } from '../../src/store/neo4j/neo4j-store';
import { startApp, type TestApp } from '../helpers/app';
import { uniqueCustomer } from '../helpers/builders-nodesearch';
import { createNode, issueToken, putSchema } from '../helpers/factories';
import { ARTIFACTS, launchBrowser } from './harness';

const ROOT = path.resolve(__dirname, '..', '..');
const PASSWORD = 'browser-test-password';

/** An analyst query of cypher/analyst/ on one line (comments dropped), as the Browser's editor runs it with Enter. */
function analystQuery(name: string): string {
  return fs
    .readFileSync(path.join(ROOT, 'cypher', 'analyst', `${name}.cypher`), 'utf8')
    .split('\n')
    .filter((line) => !line.startsWith('//'))
    .join(' ')
    .trim();
}

describe('Neo4j Browser served by the local Neo4j', () => {
  let neo4j: LocalNeo4j;
  let app: TestApp;
  let browser: Browser;
  let page: Page;
  const customer = uniqueCustomer('analyst');

  beforeAll(async () => {
    const missing = missingTools();
    // The browser suite runs where CI installs java and mvn; elsewhere it says why it cannot run instead of passing.
    if (missing) throw new Error(`the local Neo4j cannot start here: ${missing}`);
    [neo4j, browser] = await Promise.all([start({ password: PASSWORD, httpPort: await freePort() }), launchBrowser()]);
    const store = await Neo4jStore.connect({ uri: neo4j.uri, username: 'neo4j', password: PASSWORD, database: 'neo4j' });
    app = await startApp({ store });
    // One person of three nodes: a and b share a phone, b and c a device; the e-mail is a's alone.
    await putSchema(app, customer, 'crm', { id_types: [{ type: 'crm_id' }, { type: 'email', secure: true }, { type: 'phone' }, { type: 'device' }] });
    const { token } = await issueToken(app, customer);
    const node = (key: string, ...ids: Array<[string, string]>) => ({
      schema: 'crm',
      key: { type: 'crm_id', id: key },
      ids: ids.map(([type, id]) => ({ type, id })),
    });
    await createNode(app, customer, node('a', ['email', 'ann@example.com'], ['phone', '555-1']), token);
    await createNode(app, customer, node('b', ['phone', '555-1'], ['device', 'tablet']), token);
    await createNode(app, customer, node('c', ['device', 'tablet']), token);
    page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
  }, 300_000);

  afterEach(async () => {
    // Kept either way: after a failure it shows where the Browser stood.
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await page?.screenshot({ path: path.join(ARTIFACTS, 'neo4j-browser.png') });
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await neo4j?.stop();
  });

  test('when an analyst opens /browser/, connects with the password and runs an analyst query, then the person is drawn', async () => {
    expect(neo4j.browserUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/browser\/$/);
    const response = await page.goto(neo4j.browserUrl as string);
    expect(response?.status()).toBe(200);

    // The connect form, addressed to this server's Bolt port by the discovery document at /.
    await page.getByTestId('username').fill('neo4j');
    await page.getByTestId('password').fill(PASSWORD);
    await page.getByTestId('connect').click();
    await page.getByText('You are connected as user').first().waitFor({ timeout: 60_000 });

    // The server's post-connect command loads the analyst style and the guide of analyst queries.
    await page.getByText('node.IdNode').first().waitFor();
    await page.getByRole('heading', { name: 'Analyst queries' }).waitFor();
    await run(page, `:params {customer: '${customer}', type: 'email', value: 'ann@example.com'}`);
    await page.getByText('"ann@example.com"').first().waitFor();
    await run(page, analystQuery('component.shared-ids'));

    // Three nodes and the two IDs they share (phone, device); the e-mail is held by one node only.
    const status = page.getByText(/Displaying \d+ nodes, \d+ relationships/).first();
    await status.waitFor({ timeout: 60_000 });
    // Drawn on the canvas, captioned by the style: nodes with their key, IDs with `type: id`.
    const nodes = page.locator('svg g.node');
    await nodes.nth(4).waitFor();
    expect(await nodes.count()).toBe(5);
    expect(await status.textContent()).toBe('Displaying 5 nodes, 4 relationships.');
    // Captions are wrapped into lines (tspans) inside the circle: compare them with the spaces taken out.
    const captions = (await nodes.allTextContents()).map((text) => text.replace(/\s+/g, '')).sort();
    expect(captions).toEqual(['crm_id:a', 'crm_id:b', 'crm_id:c', 'device:tablet', 'phone:555-1']);
    // A generous bound for a busy 2-core machine: every step waits for what it needs, not for a time.
  }, 180_000);
});

/** Types one command into the Browser's editor and runs it (Enter runs a one-line command). */
async function run(page: Page, command: string): Promise<void> {
  const editor = page.locator('#monaco-main-editor');
  await editor.click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Backspace');
  await page.keyboard.insertText(command);
  await page.keyboard.press('Enter');
}
