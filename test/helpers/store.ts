// The store a test app gets when the test passes none: a fresh in-memory SQLite store, or, under
// `npm run test:neo4j` (test/neo4j/setup-file.ts sets IDLINK_TEST_STORE=neo4j), a connected Neo4j store.
import neo4j, { type Driver } from 'neo4j-driver';
import type { IdPair, NodeAddress } from '../../src/domain/model';
import type { StorePorts } from '../../src/domain/ports/store-ports';
import type { TraversalReads } from '../../src/store/checked-reads';
import { type Neo4jConnection, Neo4jStore } from '../../src/store/neo4j/neo4j-store';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store';
import { waitFor } from './settling';

/**
 * The Neo4j the Neo4j suites use: from NEO4J_TEST_* (test/neo4j/global-setup.js sets them for the server it starts),
 * never from the service's NEO4J_*, which may name production.
 */
export function neo4jConnectionFromEnv(): Neo4jConnection {
  const uri = process.env.NEO4J_TEST_URI;
  if (!uri) throw new Error('NEO4J_TEST_URI is not set: run the Neo4j suites with `npm run test:neo4j`.');
  return {
    uri,
    username: process.env.NEO4J_TEST_USERNAME || 'neo4j',
    password: process.env.NEO4J_TEST_PASSWORD || undefined,
    database: process.env.NEO4J_TEST_DATABASE || 'neo4j',
  };
}

/**
 * What a test reaches of a store: every port, and what the adapters have besides: the reads with the types they hide
 * given (TraversalReads), a node's IDs (getNodeIds), which no service needs, and the floor, which only the bench's
 * route calls.
 */
export type TestStore = StorePorts &
  TraversalReads & {
    getNodeIds(node: NodeAddress): Promise<IdPair[] | undefined>;
    floor(): Promise<void>;
  };

export const usesNeo4j = (): boolean => process.env.IDLINK_TEST_STORE === 'neo4j';

export async function defaultTestStore(): Promise<TestStore> {
  return usesNeo4j() ? Neo4jStore.connect(neo4jConnectionFromEnv()) : new SqliteStore({ path: ':memory:' });
}

/** A driver of the test's own, beside the store's, for queries the store has no statement for. */
export const neo4jDriver = (connection: Neo4jConnection): Driver =>
  neo4j.driver(connection.uri, connection.password === undefined ? undefined : neo4j.auth.basic(connection.username, connection.password));

/**
 * Resolves once Neo4j shows a transaction waiting for a lock (a statement that has to wait); fails after 20 s.
 * Test-only housekeeping, not a statement of the store, so it is not a file of cypher/.
 */
export async function untilOneIsBlocked(driver: Driver, database: string): Promise<void> {
  await waitFor(
    'a transaction blocked on a lock',
    async () => {
      const { records } = await driver.executeQuery(
        "SHOW TRANSACTIONS YIELD status WHERE status STARTS WITH 'Blocked' RETURN count(*) AS blocked",
        {},
        { database },
      );
      return Number(records[0]?.get('blocked')) > 0;
    },
    { timeoutMs: 20_000, everyMs: 50 },
  );
}
