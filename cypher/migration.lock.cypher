// params:
// Start-up, first statement of the transaction that applies the upgrades: takes the ledger's lock, its entry of
// version 0 (made once, by MERGE under migration_version_unique), and answers the versions applied. A second service
// starting meanwhile waits here until the first commits, and then finds them applied; one that stopped mid-way
// released the lock with its connection.
MERGE (ledger:Migration {version: 0})
  ON CREATE SET ledger.name = 'ledger'
SET ledger.lockedAt = datetime()
WITH ledger
OPTIONAL MATCH (applied:Migration)
WHERE applied.version > 0
RETURN collect(applied.version) AS applied
