// The store a test app gets when the test passes none: a fresh in-memory SQLite store, or, under
// `npm run test:neo4j` (test/neo4j/setup-file.ts sets IDLINK_TEST_STORE=neo4j), a connected Neo4j store.
import type { Store } from '../../src/store/store';
import { type Neo4jConnection, Neo4jStore } from '../../src/store/neo4j/neo4j-store';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store';

/** The Neo4j the Neo4j suites use: from NEO4J_* (test/neo4j/global-setup.js sets them for the container it starts). */
export function neo4jConnectionFromEnv(): Neo4jConnection {
  const uri = process.env.NEO4J_URI;
  if (!uri) throw new Error('NEO4J_URI is not set: run the Neo4j suites with `npm run test:neo4j`.');
  return {
    uri,
    username: process.env.NEO4J_USERNAME || 'neo4j',
    password: process.env.NEO4J_PASSWORD || undefined,
    database: process.env.NEO4J_DATABASE || 'neo4j',
  };
}

export const usesNeo4j = (): boolean => process.env.IDLINK_TEST_STORE === 'neo4j';

export async function defaultTestStore(): Promise<Store> {
  return usesNeo4j() ? Neo4jStore.connect(neo4jConnectionFromEnv()) : new SqliteStore({ path: ':memory:' });
}
