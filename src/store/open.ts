// Chooses and opens the configured store.
import type { Config } from '../config';
import type { Store } from './store';
import { Neo4jStore } from './neo4j/neo4j-store';
import { SqliteStore } from './sqlite/sqlite-store';

export async function openStore(config: Config): Promise<Store> {
  switch (config.store) {
    case 'sqlite':
      return new SqliteStore({ path: config.sqlitePath, synchronous: config.sqliteSynchronous });
    case 'neo4j': {
      // The configuration schema requires NEO4J_URI when STORE=neo4j.
      const { uri, username, password, database } = config.neo4j;
      if (uri === undefined) throw new Error('STORE=neo4j needs NEO4J_URI.');
      // Connects, verifies connectivity and applies cypher/schema/; rejects with a message naming what failed.
      return Neo4jStore.connect({ uri, username, password, database });
    }
  }
}
