// Chooses and opens the configured store.
import type { Config } from '../config';
import type { Store } from './store';
import { SqliteStore } from './sqlite/sqlite-store';

export async function openStore(config: Config): Promise<Store> {
  switch (config.store) {
    case 'sqlite':
      return new SqliteStore({ path: config.sqlitePath, synchronous: config.sqliteSynchronous });
    case 'neo4j':
      throw new Error('STORE=neo4j is not available yet in this build; use STORE=sqlite.');
  }
}
