// The labels Neo4j Browser's style selects on (docs/neo4j-browser.md): every IdNode carries `schema:<its schema>`,
// every Id `type:<its type>`, and an Id of a type secure for its customer also `SecureId`, whichever write made
// them; a schema put that makes a held type secure marks its IDs; and connecting to a database written before the
// labels gives its vertices theirs. These tests read the graph itself (test-only Cypher).
import type { Driver } from 'neo4j-driver';
import type { IdPair, SchemaRecord } from '../../src/domain/model';
import { Neo4jStore } from '../../src/store/neo4j/neo4j-store';
import { asChecked, id, member, MEMBER, newCustomer, SHOP, shop } from '../store-contract/contract';
import { changedBy, forgetMigrations, UPGRADE } from '../helpers/neo4j-ledger';
import { neo4jConnectionFromEnv, neo4jDriver } from '../helpers/store';
import { seeded } from '../helpers/seeded';

const connection = neo4jConnectionFromEnv();
let driver: Driver;
let store: Neo4jStore;
const run = async (cypher: string, params: Record<string, unknown> = {}) =>
  (await driver.executeQuery(cypher, params, { database: connection.database })).records.map((r) => r.toObject());

/** A schema whose id has the characters a label selector must escape, and a type with a holder limit (id.lock-holders). */
const VISIT: SchemaRecord = {
  schemaId: 'visit.eu:2-b',
  idTypes: [
    { type: 'visit_id', secure: false },
    { type: 'beacon', secure: false, maxHolders: 5 },
  ],
};

/** The customer's IdNode and Id vertices whose labels are not the ones they should carry; `secure`: the customer's secure types. */
async function mislabelled(customer: string, secure: string[]): Promise<unknown[]> {
  const rows = await run(
    `MATCH (v) WHERE v.customer = $customer AND (v:IdNode OR v:Id)
     RETURN CASE WHEN v:IdNode THEN 'IdNode' ELSE 'Id' END AS kind, v.schema AS schema, v.type AS type, v.value AS value, labels(v) AS labels`,
    { customer },
  );
  expect(rows.length).toBeGreaterThan(0);
  return rows.filter((row) => {
    const expected =
      row.kind === 'IdNode'
        ? ['IdNode', `schema:${String(row.schema)}`]
        : ['Id', `type:${String(row.type)}`, ...(secure.includes(String(row.type)) ? ['SecureId'] : [])];
    return JSON.stringify([...(row.labels as string[])].sort()) !== JSON.stringify(expected.sort());
  });
}

beforeAll(async () => {
  driver = neo4jDriver(connection);
  store = await Neo4jStore.connect(connection);
});
afterAll(async () => {
  await store.close();
  await driver.close();
});

describe('labels for Neo4j Browser', () => {
  test('when nodes are created, bulk-created, inserted into, updated, upserted and rekeyed, then every node carries its schema label and every ID its type label, secure ones SecureId', async () => {
    const c = newCustomer();
    await store.putSchema(c, MEMBER);
    await store.putSchema(c, SHOP);
    await store.putSchema(c, VISIT);
    const m = (key: string, ids: IdPair[]) => asChecked(member(c, key), MEMBER, ids);
    const ann = [id('member_id', 'ann'), id('device', 'tablet'), id('email', 'ann@example.com')];
    await store.createNode(seeded(m('ann', ann)), ann);
    await store.insertIds(seeded(m('ann', [id('cookie', 'ann-cookie')])), [id('cookie', 'ann-cookie')]);
    await store.replaceId(
      seeded(m('ann', [id('cookie', 'ann-cookie'), id('email', 'ann@work.example')])),
      id('cookie', 'ann-cookie'),
      id('email', 'ann@work.example'),
      false,
    );
    await store.replaceId(seeded(m('ann', [id('cookie', 'none'), id('cookie', 'ann-2')])), id('cookie', 'none'), id('cookie', 'ann-2'), true);
    const bulk = await store.applyNodeWrites([
      { kind: 'create', node: seeded(m('bob', [id('email', 'bob@example.com')])), ids: [id('email', 'bob@example.com')] },
      { kind: 'create', node: seeded(asChecked(shop(c, 's-1'), SHOP, [id('device', 'tablet')])), ids: [id('device', 'tablet')] },
      { kind: 'insert', node: seeded(m('bob', [id('cookie', 'bob-cookie')])), ids: [id('cookie', 'bob-cookie')] },
      { kind: 'insert', node: seeded(m('ann', [id('email', 'ann@home.example')])), ids: [id('email', 'ann@home.example')] },
    ]);
    expect(bulk).toEqual([undefined, undefined, undefined, undefined]);
    // An ID of a type with a holder limit: id.lock-holders makes its vertex before node.create links it.
    const visit = { customerId: c, schemaId: VISIT.schemaId, key: id('visit_id', 'v-1') };
    await store.createNode(seeded(asChecked(visit, VISIT, [id('beacon', 'b-1')])), [id('visit_id', 'v-1'), id('beacon', 'b-1')]);
    await store.rekey(seeded(asChecked(m('bob', []), MEMBER)), 'bob-2');

    expect(await mislabelled(c, ['email'])).toEqual([]);
    const labels = await run('MATCH (v {customer: $c}) WHERE v:IdNode OR v:Id RETURN DISTINCT [l IN labels(v) WHERE l CONTAINS ":"] AS l ORDER BY l', { c });
    expect(labels.map((row) => row.l)).toEqual([
      ['schema:member'],
      ['schema:shop'],
      ['schema:visit.eu:2-b'],
      ['type:beacon'],
      ['type:cookie'],
      ['type:device'],
      ['type:email'],
      ['type:member_id'],
      ['type:shop_id'],
      ['type:visit_id'],
    ]);
  });

  test('when a schema put makes a type that IDs exist of secure, then those IDs carry SecureId, and those of other customers do not', async () => {
    const c = newCustomer();
    const other = newCustomer();
    const open: SchemaRecord = {
      schemaId: 'crm',
      idTypes: [
        { type: 'crm_id', secure: false },
        { type: 'phone', secure: false },
      ],
    };
    for (const customer of [c, other]) {
      await store.putSchema(customer, open);
      const node = asChecked({ customerId: customer, schemaId: 'crm', key: id('crm_id', 'k-1') }, open, [id('phone', '+100')]);
      await store.createNode(seeded(node), [id('crm_id', 'k-1'), id('phone', '+100')]);
    }
    expect(await mislabelled(c, [])).toEqual([]);

    await store.putSchema(c, {
      schemaId: 'crm',
      idTypes: [
        { type: 'crm_id', secure: false },
        { type: 'phone', secure: true },
      ],
    });

    expect(await mislabelled(c, ['phone'])).toEqual([]);
    expect(await mislabelled(other, [])).toEqual([]);
  });
});

describe('a Neo4j database written before the labels', () => {
  test('when the store connects, then its nodes and IDs get their labels, once', async () => {
    const c = newCustomer();
    await run(
      `CREATE (:IdType {customer: $c, name: 'email', secure: true}), (:IdType {customer: $c, name: 'device', secure: false})
       CREATE (ann:IdNode {customer: $c, schema: 'member', keyType: 'member_id', keyId: 'ann'})
       CREATE (ann)-[:LINKED]->(:Id {customer: $c, type: 'member_id', value: 'ann'})
       CREATE (ann)-[:LINKED]->(:Id {customer: $c, type: 'email', value: 'ann@example.com'})
       CREATE (ann)-[:LINKED]->(:Id {customer: $c, type: 'device', value: 'tablet'})`,
      { c },
    );
    expect(await mislabelled(c, ['email'])).toHaveLength(4);
    // That version kept no ledger of upgrades.
    await forgetMigrations(driver, connection.database);

    const upgraded = await Neo4jStore.connect(connection);
    await upgraded.close();
    expect(changedBy(upgraded, UPGRADE.nodeLabels)).toBe(1);
    expect(changedBy(upgraded, UPGRADE.idLabels)).toBe(3);
    expect(await mislabelled(c, ['email'])).toEqual([]);

    // The next start labels nothing: the upgrades are in the ledger, and the writes label what they make.
    const again = await Neo4jStore.connect(connection);
    await again.close();
    expect(again.migrated).toEqual([]);
  });
});
