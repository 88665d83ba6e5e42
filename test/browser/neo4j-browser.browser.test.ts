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
    [neo4j, browser] = await Promise.all([start({ password: PASSWORD, httpPort: await freePort(), quickJit: true }), launchBrowser()]);
    const store = await Neo4jStore.connect({ uri: neo4j.uri, username: 'neo4j', password: PASSWORD, database: 'neo4j' });
    app = await startApp({ store });
    // One person of three nodes of two schemas: a and b (crm) share a phone, b and c (shop.eu, a schema id with a
    // dot, which a style selector must escape) a device, and a and c the secure e-mail.
    await putSchema(app, customer, 'crm', { id_types: [{ type: 'crm_id' }, { type: 'email', secure: true }, { type: 'phone' }, { type: 'device' }] });
    await putSchema(app, customer, 'shop.eu', { id_types: [{ type: 'shop_id' }, { type: 'email', secure: true }, { type: 'device' }] });
    const { token } = await issueToken(app, customer);
    const node = (schema: string, key: string, ...ids: Array<[string, string]>) => ({
      schema,
      key: { type: schema === 'crm' ? 'crm_id' : 'shop_id', id: key },
      ids: ids.map(([type, id]) => ({ type, id })),
    });
    await createNode(app, customer, node('crm', 'a', ['email', 'an@x.eu'], ['phone', '555-1']), token);
    await createNode(app, customer, node('crm', 'b', ['phone', '555-1'], ['device', 'tablet']), token);
    await createNode(app, customer, node('shop.eu', 'c', ['device', 'tablet'], ['email', 'an@x.eu']), token);
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

  test('when the style is asked for, then it has a rule for each schema and each ID type the database holds, and the SecureId marker', async () => {
    const address = new URL('/analyst/style.grass', neo4j.browserUrl);
    const style = (await (await fetch(address)).json()) as Record<string, Record<string, string>>;
    for (const selector of ['node.schema:crm', 'node.schema:shop\\.eu', 'node.type:email', 'node.type:phone', 'node.type:device', 'node.type:crm_id']) {
      expect(style[selector]?.color).toMatch(/^#[0-9A-F]{6}$/);
    }
    expect(style['node.schema:crm']?.color).not.toBe(style['node.schema:shop\\.eu']?.color);
    // With a colour and a caption of its own: a label without them gets the Browser's defaults merged into its
    // rule when the Browser draws its chip, which would replace the red border.
    expect(style['node.SecureId']).toMatchObject({ 'border-color': '#D6232F', 'border-width': '6px', color: '#F4B6B6', caption: '{type}: {value}' });
    // The captions and sizes of the file stay.
    expect(style['node.IdNode']).toMatchObject({ caption: '{keyType}: {keyId}', diameter: '80px' });
    expect(style['node.Id']).toMatchObject({ caption: '{type}: {value}', diameter: '65px' });
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
    await run(page, `:params {customer: '${customer}', type: 'email', value: 'an@x.eu'}`);
    await page.getByText('"an@x.eu"').first().waitFor();
    await run(page, analystQuery('component.shared-ids'));

    // Three nodes and the three IDs they share (phone, device, e-mail).
    const status = page.getByText(/Displaying \d+ nodes, \d+ relationships/).first();
    await status.waitFor({ timeout: 60_000 });
    // Drawn on the canvas, captioned by the style: nodes with their key, IDs with `type: id`.
    const nodes = page.locator('svg g.node');
    await nodes.nth(5).waitFor();
    expect(await nodes.count()).toBe(6);
    expect(await status.textContent()).toBe('Displaying 6 nodes, 6 relationships.');
    // Each vertex's caption (wrapped into lines inside the circle: compared with the spaces taken out) and its
    // circle as drawn: fill, border colour and width.
    type Drawn = { caption: string; fill: string | null; stroke: string | null; width: string | null };
    const drawn = await nodes.evaluateAll((groups) =>
      groups.map((group) => {
        const circle = group.querySelector('circle.b-outline');
        return {
          caption: (group.textContent ?? '').replace(/\s+/g, ''),
          fill: circle?.getAttribute('fill') ?? null,
          stroke: circle?.getAttribute('stroke') ?? null,
          width: circle?.getAttribute('stroke-width') ?? null,
        };
      }),
    );
    const byCaption = new Map<string, Drawn>(drawn.map((d) => [d.caption, d]));
    expect([...byCaption.keys()].sort()).toEqual(['crm_id:a', 'crm_id:b', 'device:tablet', 'email:an@x.eu', 'phone:555-1', 'shop_id:c']);
    const at = (caption: string) => byCaption.get(caption) as Drawn;
    // Node vertices by schema: a and b alike, c of the other schema apart.
    expect(at('crm_id:a').fill).toBe(at('crm_id:b').fill);
    expect(at('shop_id:c').fill).not.toBe(at('crm_id:a').fill);
    // ID vertices by type, and none the colour of a node.
    expect(new Set(['device:tablet', 'phone:555-1', 'email:an@x.eu'].map((c) => at(c).fill)).size).toBe(3);
    expect([at('crm_id:a').fill, at('shop_id:c').fill]).not.toContain(at('device:tablet').fill);
    // The secure e-mail, and only it, has the marker: a thick red border.
    expect(at('email:an@x.eu')).toMatchObject({ stroke: '#D6232F', width: '6px' });
    for (const caption of ['crm_id:a', 'crm_id:b', 'shop_id:c', 'device:tablet', 'phone:555-1']) expect(at(caption).stroke).not.toBe('#D6232F');
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
