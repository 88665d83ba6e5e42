// The graphs the browser tests and the screenshot draw, written through the HTTP API as a customer would: schemas
// and tokens with the administrator token, nodes with _create and _bulk. What each graph must look like drawn is
// written beside it.
import { ADMIN_TOKEN, type TestApp } from '../helpers/app';
import { bulkChecked } from '../helpers/bulk';
import { createNode, issueToken, putSchema } from '../helpers/factories';

const id = (type: string, value: string) => ({ type, id: value });

/** The ID types, declared alike in both schemas (a type has one set of options per customer). */
const shared = [{ type: 'email', secure: true }, { type: 'phone' }, { type: 'device' }, { type: 'wifi', links: false }];
export const SCHEMAS = {
  crm: { id_types: [{ type: 'crm_id' }, ...shared] },
  web: { id_types: [{ type: 'web_id' }, { type: 'cookie' }, ...shared] },
};

const crm = (key: string, ...ids: Array<{ type: string; id: string }>) => ({ schema: 'crm', key: id('crm_id', key), ids });
const web = (key: string, ...ids: Array<{ type: string; id: string }>) => ({ schema: 'web', key: id('web_id', key), ids });

/**
 * One person seen through twelve nodes in two schemas. Shared IDs (each a line unless said):
 * email a@x.io c-1 w-1 (secure: only with a token) · phone 555-1 c-1 c-2 · device tablet c-1 c-3 c-4 w-1 (hot: a
 * hub and 4 lines) · wifi office c-2 c-3 (links: false: a dashed line) · phone 555-4 c-4 w-2 · device laptop w-2 w-3 ·
 * cookie ck-3 w-3 w-4 · cookie ck-4 w-4 w-5 · phone 555-5 c-5 w-5 · cookie ck-5 w-5 w-6 · cookie ck-6 w-6 w-7.
 * email solo@x.io is c-5's alone: not drawn. Connected without the wifi and without the e-mail.
 */
export const PERSON = [
  crm('c-1', id('email', 'a@x.io'), id('phone', '555-1'), id('device', 'tablet')),
  crm('c-2', id('phone', '555-1'), id('wifi', 'office')),
  crm('c-3', id('device', 'tablet'), id('wifi', 'office')),
  crm('c-4', id('device', 'tablet'), id('phone', '555-4')),
  crm('c-5', id('phone', '555-5'), id('email', 'solo@x.io')),
  web('w-1', id('email', 'a@x.io'), id('device', 'tablet')),
  web('w-2', id('phone', '555-4'), id('device', 'laptop')),
  web('w-3', id('device', 'laptop'), id('cookie', 'ck-3')),
  web('w-4', id('cookie', 'ck-3'), id('cookie', 'ck-4')),
  web('w-5', id('cookie', 'ck-4'), id('phone', '555-5'), id('cookie', 'ck-5')),
  web('w-6', id('cookie', 'ck-5'), id('cookie', 'ck-6')),
  web('w-7', id('cookie', 'ck-6')),
];

/** PERSON drawn whole with the default "hot at" (3): with a token, and without (the e-mail line is not seen). */
export const PERSON_DRAWN = { nodes: 12, hubs: 1, edges: 14, unlinked: 1 };
export const PERSON_DRAWN_WITHOUT_TOKEN = { ...PERSON_DRAWN, edges: 13 };

export interface Seeded {
  customer: string;
  /** A bearer token of the customer. */
  token: string;
}

/** A customer with both schemas, a bearer token, and PERSON (written with the token: it holds secure e-mails). */
export async function seedPerson(app: TestApp, customer: string): Promise<Seeded> {
  await putSchema(app, customer, 'crm', SCHEMAS.crm);
  await putSchema(app, customer, 'web', SCHEMAS.web);
  const { token } = await issueToken(app, customer);
  for (const node of PERSON) await createNode(app, customer, node, token);
  return { customer, token };
}

/** How many nodes BIG has: more than the page's default max_nodes (500), so that drawing it is cut there. */
export const BIG_SIZE = 520;

/**
 * A component of BIG_SIZE nodes of schema `crm`, b-0 … b-519, as a tree: b-i's parent is b-floor((i-1)/3), and the
 * two share `phone p-i` (a line). The first 5 nodes of every hundred also hold `device hot-<hundred>`, so the
 * drawing has hot IDs too. Written with one _bulk request.
 */
export function seedBig(app: TestApp, customer: string): Promise<Seeded> {
  const nodes = Array.from({ length: BIG_SIZE }, (_, i) => {
    const ids = [];
    if (i > 0) ids.push(id('phone', `p-${i}`));
    for (const child of [3 * i + 1, 3 * i + 2, 3 * i + 3]) if (child < BIG_SIZE) ids.push(id('phone', `p-${child}`));
    if (i % 100 < 5) ids.push(id('device', `hot-${Math.floor(i / 100)}`));
    return crm(`b-${i}`, ...ids);
  });
  return seedCrm(app, customer, nodes, 'big graph');
}

/**
 * The people of the walkthrough of docs/explorer.md: Ann's member node and her shop account share her phone; a
 * family tablet is on Ann's, Bob's and Cy's member nodes; Dee shares only a wifi ip (which links nothing) with Ann.
 * From Ann the drawing has Ann, s-77, Bob and Cy, a line `device: ann-phone` and a hub for the tablet.
 */
export async function seedWalkthrough(app: TestApp, customer: string): Promise<Seeded> {
  await putSchema(app, customer, 'member', { id_types: [{ type: 'member_id' }, { type: 'device' }, { type: 'ip', links: false }] });
  await putSchema(app, customer, 'shop', { id_types: [{ type: 'shop_id' }, { type: 'device' }] });
  const { token } = await issueToken(app, customer);
  const member = (key: string, ...ids: Array<{ type: string; id: string }>) => ({ schema: 'member', key: id('member_id', key), ids });
  for (const node of [
    member('ann', id('device', 'ann-phone'), id('device', 'tablet-1'), id('ip', '10.0.0.7')),
    { schema: 'shop', key: id('shop_id', 's-77'), ids: [id('device', 'ann-phone')] },
    member('bob', id('device', 'tablet-1')),
    member('cy', id('device', 'tablet-1')),
    member('dee', id('ip', '10.0.0.7')),
  ])
    await createNode(app, customer, node, token);
  return { customer, token };
}

/** Writes `nodes` of schema `crm` for a new customer with one _bulk request (the administrator's token). */
async function seedCrm(app: TestApp, customer: string, nodes: Array<ReturnType<typeof crm>>, what: string): Promise<Seeded> {
  await putSchema(app, customer, 'crm', SCHEMAS.crm);
  const { token } = await issueToken(app, customer);
  const lines = nodes.map((body) => JSON.stringify({ op: 'create', body }));
  const { res, results } = await bulkChecked(app.baseUrl, customer, `${lines.join('\n')}\n`, { token: ADMIN_TOKEN });
  const refused = results.filter((r) => r.status !== 201);
  if (res.status !== 200 || refused.length > 0) throw new Error(`${what} setup failed: ${res.status} ${JSON.stringify(refused.slice(0, 3))}`);
  return { customer, token };
}

/**
 * A component of `size` nodes of schema `crm`, t-0 … t-(size-1), as a tree: t-i's parent is t-floor((i-1)/3), and the
 * two share `phone q-i`. Start from `phone q-1` (or t-0's key).
 */
export function seedTree(app: TestApp, customer: string, size: number): Promise<Seeded> {
  const nodes = Array.from({ length: size }, (_, i) => {
    const ids = [];
    if (i > 0) ids.push(id('phone', `q-${i}`));
    for (const child of [3 * i + 1, 3 * i + 2, 3 * i + 3]) if (child < size) ids.push(id('phone', `q-${child}`));
    return crm(`t-${i}`, ...ids);
  });
  return seedCrm(app, customer, nodes, 'tree');
}

/**
 * A person of `size` nodes of schema `crm` in a chain, k-0 … k-(size-1): k-i shares `phone r-i` with the next and
 * nothing else, so the drawing is one long line (a layout draws it straight or winding, in any direction). Start
 * from `crm_id k-0`.
 */
export function seedChain(app: TestApp, customer: string, size: number): Promise<Seeded> {
  const nodes = Array.from({ length: size }, (_, i) =>
    crm(`k-${i}`, ...(i > 0 ? [id('phone', `r-${i - 1}`)] : []), ...(i < size - 1 ? [id('phone', `r-${i}`)] : [])),
  );
  return seedCrm(app, customer, nodes, 'chain');
}

/** A person of `size` nodes of schema `crm`, s-0 … s-(size-1), joined only by `device family`, which all hold: a hub. */
export function seedStar(app: TestApp, customer: string, size: number): Promise<Seeded> {
  return seedCrm(
    app,
    customer,
    Array.from({ length: size }, (_, i) => crm(`s-${i}`, id('device', 'family'))),
    'star',
  );
}
