// params:
// The ledger of upgrades (migration.lock.cypher, migration.record.cypher): one entry per version, made by MERGE, so
// two services starting at once make it once.
CREATE CONSTRAINT migration_version_unique IF NOT EXISTS
FOR (migration:Migration) REQUIRE migration.version IS UNIQUE
