// params: version, name, changed
// Start-up, in the transaction that holds the ledger's lock (migration.lock.cypher): records an upgrade as applied,
// with how many records it changed, once its own transactions committed.
CREATE (:Migration {version: $version, name: $name, changed: $changed, appliedAt: datetime()})
