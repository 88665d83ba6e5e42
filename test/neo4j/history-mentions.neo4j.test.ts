// How an erase finds the history entries that name a value on Neo4j: each entry names each of its values once as a
// MENTIONS relationship to itself (history_mention indexes them), beside its JSON. These tests read the
// graph itself (test-only Cypher, not statements of the store): every write path gives an entry exactly its values,
// an erase and retention take them away, and connecting to a database of an earlier version, whose entries have no
// MENTIONS, gives each entry its own. What an erase answers and leaves in history is the shared contract's
// (test/store-contract/history-contract.ts), on both stores.
import type { Driver } from 'neo4j-driver';
import neo4j from 'neo4j-driver';
import type { HistoryEntry, IdPair } from '../../src/domain/model';
import type { TestStore as Store } from '../helpers/store';
import { ADOPT_MENTIONS_BATCH, stored } from '../../src/store/neo4j/neo4j-history';
import { Neo4jStore } from '../../src/store/neo4j/neo4j-store';
import { entryValues, erasedId, valueKey } from '../../src/store/history';
import { asChecked, id, member, MEMBER, newCustomer } from '../store-contract/contract';
import { eraseRequest } from '../store-contract/history-contract';
import { changedBy, UPGRADE } from '../helpers/neo4j-ledger';
import { neo4jConnectionFromEnv, neo4jDriver } from '../helpers/store';
import { emptyTestDatabase } from './test-database';
import { seeded } from '../helpers/seeded';

const connection = neo4jConnectionFromEnv();
let driver: Driver;
const run = async (cypher: string, params: Record<string, unknown> = {}) =>
  (await driver.executeQuery(cypher, params, { database: connection.database })).records.map((r) => r.toObject());
const count = async (cypher: string, params: Record<string, unknown> = {}): Promise<number> => {
  const [row] = await run(cypher, params);
  return neo4j.integer.toNumber(row?.n as number);
};

/**
 * The customer's entries whose MENTIONS are not exactly the values their JSON names, each once, or that still keep
 * the list of values earlier versions wrote beside it (`mentions`).
 */
async function entriesOutOfStep(customer: string): Promise<number> {
  const rows = await run(
    `MATCH (entry:HistoryEntry {customer: $customer})
     OPTIONAL MATCH (entry)-[mention:MENTIONS]->(entry)
     RETURN entry.entry AS json, entry.mentions IS NOT NULL AS listed, collect(mention.value) AS values`,
    { customer },
  );
  return rows.filter((row) => {
    const named = entryValues(JSON.parse(row.json as string) as HistoryEntry).map(valueKey);
    const values = row.values as string[];
    return row.listed || values.length !== named.length || named.some((value) => !values.includes(value));
  }).length;
}

/** MENTIONS of the customer whose value contains `text`. */
const mentionsContaining = (customer: string, text: string) =>
  count('MATCH ()-[mention:MENTIONS]->() WHERE mention.customer = $customer AND mention.value CONTAINS $text RETURN count(mention) AS n', {
    customer,
    text,
  });

beforeAll(() => {
  driver = neo4jDriver(connection);
});
afterAll(() => driver.close());

describe('MENTIONS of history entries on Neo4j', () => {
  let store: Store;
  beforeAll(async () => {
    store = await Neo4jStore.connect(connection);
  });
  afterAll(() => store.close());

  test('when nodes are written one by one and in a bulk batch, erased and pruned, then each entry names exactly its values, and none is left of an erased or pruned one', async () => {
    const c = newCustomer();
    await store.putSchema(c, MEMBER);
    const m = (key: string, ids: IdPair[]) => asChecked(member(c, key), MEMBER, ids);
    const ann = [id('member_id', 'ann'), id('device', 'shared-tablet'), id('email', 'ann@example.com')];
    await store.createNode(seeded(m('ann', ann)), ann);
    await store.insertIds(seeded(m('ann', [id('cookie', 'ann-cookie')])), [id('cookie', 'ann-cookie')]);
    const bob = [id('member_id', 'bob'), id('device', 'shared-tablet'), id('cookie', 'bob-cookie')];
    await store.createNode(seeded(m('bob', bob)), bob);
    await store.removeId(seeded(m('bob', [id('cookie', 'bob-cookie')])), id('cookie', 'bob-cookie'));
    const cy = [id('member_id', 'cy'), id('email', 'cy@example.com')];
    const bulk = await store.applyNodeWrites([
      { kind: 'create', node: seeded(m('cy', cy)), ids: cy },
      { kind: 'insert', node: seeded(m('cy', [id('cookie', 'cy-cookie')])), ids: [id('cookie', 'cy-cookie')] },
    ]);
    expect(bulk).toEqual([undefined, undefined]);
    expect(await count('MATCH (entry:HistoryEntry {customer: $c}) RETURN count(entry) AS n', { c })).toBe(6);
    expect(await entriesOutOfStep(c)).toBe(0);
    expect(await mentionsContaining(c, 'shared-tablet')).toBe(2);
    expect(await count('MATCH (a)-[mention:MENTIONS]->(b) WHERE a <> b RETURN count(mention) AS n')).toBe(0);

    // One ID, then Ann's whole person (Bob with her: they share the tablet). Cy is someone else.
    await expect(store.erase(eraseRequest(c, id('email', 'ann@example.com'), 'id'))).resolves.toEqual({ nodesDeleted: 0, idsRemoved: 1 });
    expect(await mentionsContaining(c, 'ann@example.com')).toBe(0);
    expect(await entriesOutOfStep(c)).toBe(0);
    await expect(store.erase(eraseRequest(c, id('member_id', 'ann'), 'person'))).resolves.toEqual({ nodesDeleted: 2, idsRemoved: 0 });
    for (const value of ['"ann"', 'shared-tablet', 'ann-cookie', '"bob"', 'bob-cookie']) expect(await mentionsContaining(c, value)).toBe(0);
    expect(await entriesOutOfStep(c)).toBe(0);
    // Cy's two entries each name his key, and one value more.
    expect(await mentionsContaining(c, 'cy')).toBe(4);

    // Retention deletes every entry written so far (the database is this file's), and their MENTIONS with them.
    await store.pruneHistory(new Date(Date.now() + 60_000).toISOString(), 1_000);
    expect(await count('MATCH (entry:HistoryEntry) RETURN count(entry) AS n')).toBe(0);
    expect(await count('MATCH ()-[mention:MENTIONS]->() RETURN count(mention) AS n')).toBe(0);
  });
});

describe('a Neo4j database whose history entries have no MENTIONS (an earlier version)', () => {
  const c = newCustomer();
  /** Entries per group of one instant: the first two groups are more than a start-up batch together. */
  const groups = [Math.round(ADOPT_MENTIONS_BATCH * 1.5), Math.round(ADOPT_MENTIONS_BATCH * 0.6), 40];
  const total = groups.reduce((a, b) => a + b, 0);
  const DEVICES = 2_000;
  /** Node m-i's create, with a device about ten other entries name too. */
  const created = (i: number): HistoryEntry => ({
    at: '',
    requestId: `req-${i}`,
    actor: 'anonymous',
    op: 'create',
    schema: 'member',
    key: { type: 'member_id', id: `m-${i}` },
    added: [
      { type: 'member_id', id: `m-${i}` },
      { type: 'device', id: `d-${i % DEVICES}` },
    ],
    removed: [],
  });

  beforeAll(async () => {
    await emptyTestDatabase(driver, connection.database, `database ${connection.database} at ${connection.uri}`);
    await run('DROP INDEX history_mention IF EXISTS');
    await run('CREATE INDEX history_customer IF NOT EXISTS FOR (entry:HistoryEntry) ON (entry.customer)');
    let i = 0;
    for (const [group, size] of groups.entries()) {
      const rows = Array.from({ length: size }, () => stored(created(i++), 0));
      await run(
        `UNWIND $rows AS row
         CREATE (:HistoryEntry {customer: $c, schema: row.schema, keyType: row.keyType, keyId: row.keyId, newKeyId: row.newKeyId,
                                time: datetime({epochMillis: $at}), position: row.position, entry: row.entry, mentions: row.mentions})`,
        { rows, c, at: neo4j.int(Date.UTC(2026, 0, 1 + group)) },
      );
    }
    // An erase entry whose key was erased too names types alone: no value, no MENTIONS.
    const erased = erasedId('member_id');
    const erase = stored({ ...created(0), op: 'erase', key: erased, added: [], removed: [erased] }, 0);
    await run(
      `CREATE (:HistoryEntry {customer: $c, schema: 'member', keyType: 'member_id', keyId: null, time: datetime(), position: 0,
                              entry: $entry, mentions: $mentions})`,
      { c, entry: erase.entry, mentions: erase.mentions },
    );
  });

  test('when two stores connect at once, then every entry gets one MENTIONS per value it names, past a batch of entries of one instant, and connecting again adds none', async () => {
    // Two services start at once: one applies the upgrade, the other waits for it.
    const [first, second] = await Promise.all([Neo4jStore.connect(connection), Neo4jStore.connect(connection)]);
    await Promise.all([first.close(), second.close()]);
    // Every entry, the erase entry with no value too, which only loses its list.
    expect(changedBy(first, UPGRADE.mentions) + changedBy(second, UPGRADE.mentions)).toBe(total + 1);
    expect(await entriesOutOfStep(c)).toBe(0);
    expect(await count('MATCH ()-[mention:MENTIONS]->() RETURN count(mention) AS n')).toBe(2 * total);
    const indexes = (await run('SHOW INDEXES YIELD name RETURN name')).map((r) => r.name);
    expect(indexes).toContain('history_mention');
    expect(indexes).not.toContain('history_customer');

    const again = await Neo4jStore.connect(connection);
    await again.close();
    expect(again.migrated).toEqual([]);
    expect(await count('MATCH ()-[mention:MENTIONS]->() RETURN count(mention) AS n')).toBe(2 * total);
  });

  test('when a value of those entries is erased, then every entry naming it shows it erased and keeps its MENTIONS of the rest', async () => {
    const store = await Neo4jStore.connect(connection);
    try {
      // No node holds it: the erase deletes nothing and takes the value out of history; each key whose entries named
      // it gets an erase entry that took nothing (the change feed's redacts).
      await expect(store.erase(eraseRequest(c, id('device', 'd-7'), 'id'))).resolves.toEqual({ nodesDeleted: 0, idsRemoved: 0 });
      const history = await store.nodeHistory(c, 'member', id('member_id', `m-${DEVICES + 7}`), 0, 10);
      expect(history.items.map((e) => [e.op, e.removed])).toEqual([
        ['erase', []],
        ['create', []],
      ]);
      expect(history.items.map((e) => e.added)).toEqual([
        [],
        [
          { type: 'member_id', id: `m-${DEVICES + 7}` },
          { type: 'device', id: null, erased: true },
        ],
      ]);
    } finally {
      await store.close();
    }
    expect(await mentionsContaining(c, valueKey(id('device', 'd-7')))).toBe(0);
    expect(await count('MATCH (entry:HistoryEntry {customer: $c}) WHERE entry.entry CONTAINS \'"d-7"\' RETURN count(entry) AS n', { c })).toBe(0);
    expect(await entriesOutOfStep(c)).toBe(0);
    // Each entry that named the value lost that MENTIONS; each erase entry appended names its key.
    const named = Math.ceil((total - 7) / DEVICES);
    expect(await count('MATCH ()-[mention:MENTIONS]->() RETURN count(mention) AS n')).toBe(2 * total - named + named);
  });
});
