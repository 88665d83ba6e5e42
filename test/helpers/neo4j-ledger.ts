// The ledger of a Neo4j database as an earlier version left it, for the upgrade suites: that version kept none, so
// connecting applies every upgrade (src/store/neo4j/neo4j-migrations.ts). Test-only Cypher, not a statement of the store.
import type { Driver } from 'neo4j-driver';

/** Deletes the ledger, its lock entry included: the next start applies every upgrade again. */
export async function forgetMigrations(driver: Driver, database: string): Promise<void> {
  await driver.executeQuery('MATCH (migration:Migration) DETACH DELETE migration', {}, { database });
}

/** How many records the upgrade of `version` changed in the start that connected `store` (0 when it applied none). */
export const changedBy = (store: { migrated: Array<{ version: number; changed: number }> }, version: number): number =>
  store.migrated.find((migration) => migration.version === version)?.changed ?? 0;

/** The versions of the store's upgrades (MIGRATIONS) the upgrade suites check. */
export const UPGRADE = { counters: 1, mentions: 2, impressionKeys: 3, nodeLabels: 4, idLabels: 5, feedPositions: 6 } as const;
