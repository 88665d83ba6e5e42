// Chooses and opens the configured store.
import type { Config } from '../config';
import type { Logger } from '../logger';
import type { StorePorts } from '../domain/ports/store-ports';
import { ConnectingStore } from './neo4j/neo4j-startup';
import { SqliteStore } from './sqlite/sqlite-store';

export interface OpenedStore {
  /** Every port of the domain, and the bench's floor (src/http/routes/bench-floor.ts), which the service mounts only when asked. */
  store: StorePorts & { floor(): Promise<void> };
  /** Resolves once the store serves requests (at once for SQLite; for Neo4j once connected). */
  started: Promise<void>;
}

export function openStore(config: Config, logger: Logger): OpenedStore {
  switch (config.store) {
    case 'sqlite':
      return {
        store: new SqliteStore({
          path: config.sqlitePath,
          synchronous: config.sqliteSynchronous,
          readWorkers: config.sqliteReadWorkers,
          inlineNodes: config.sqliteInlineNodes,
          inlineIds: config.sqliteInlineIds,
          inlineBytes: config.sqliteInlineBytes,
        }),
        started: Promise.resolve(),
      };
    case 'neo4j': {
      // The configuration schema requires NEO4J_URI when STORE=neo4j.
      const { uri, ...connection } = config.neo4j;
      if (uri === undefined) throw new Error('STORE=neo4j needs NEO4J_URI.');
      // Serves at once: store_unavailable until connected with cypher/schema/ applied, retried in the background.
      const connecting = new ConnectingStore({ ...connection, uri }, logger);
      return { store: connecting.store, started: connecting.started };
    }
  }
}
