// The database's feed key on Neo4j (cypher/feed.key.cypher): two stores that ask at once get one key between them,
// and a store takes up a key that changed in the database (one that came back empty, a dump loaded without it)
// once it reads it again, beside the calls, after feedKeyReadEveryMs.
import type { Driver } from 'neo4j-driver';
import { Neo4jStore } from '../../src/store/neo4j/neo4j-store';
import { waitFor } from '../helpers/settling';
import { neo4jConnectionFromEnv, neo4jDriver } from '../helpers/store';

const connection = neo4jConnectionFromEnv();
let driver: Driver;
beforeAll(() => {
  driver = neo4jDriver(connection);
});
afterAll(() => driver.close());

const deleteKey = () => driver.executeQuery('MATCH (key:FeedKey) DELETE key', {}, { database: connection.database });

test('when two stores ask for the feed key of a database that has none at once, then both get the one key it then holds', async () => {
  await deleteKey();
  const [one, two] = await Promise.all([Neo4jStore.connect(connection), Neo4jStore.connect(connection)]);
  try {
    const [a, b] = await Promise.all([one.feedKey(), two.feedKey()]);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(b).toBe(a);
    const { records } = await driver.executeQuery('MATCH (key:FeedKey) RETURN key.key AS key', {}, { database: connection.database });
    expect(records.map((r) => r.get('key') as string)).toEqual([a]);
  } finally {
    await Promise.all([one.close(), two.close()]);
  }
});

test('when the key in the database changes, then a store keeps the one it read until feedKeyReadEveryMs has passed, and then takes up the new one', async () => {
  const store = await Neo4jStore.connect(connection);
  try {
    const before = await store.feedKey();
    await deleteKey();
    await driver.executeQuery("CREATE (:FeedKey {feed: 'changes', key: $key})", { key: 'b'.repeat(64) }, { database: connection.database });
    expect(await store.feedKey()).toBe(before);
    // Read again beside the calls: the call that starts the read still gets the key read before.
    store.feedKeyReadEveryMs = 0;
    expect(await store.feedKey()).toBe(before);
    await waitFor('the store to take up the key the database holds now', async () => (await store.feedKey()) === 'b'.repeat(64));
  } finally {
    await store.close();
  }
});
