// params: idleMs
// The customers marked as importing that no process has said for `idleMs` milliseconds or more is importing, by
// Neo4j's clock: imports an interrupted process left. The process of an import says so every few seconds, on its
// lease (import.alive.cypher); a mark without a lease, made before leases were, counts from its `touchedAt`. Few
// marks exist at a time, so reading all of them is cheap.
MATCH (mark:Import)
OPTIONAL MATCH (lease:ImportLease {customer: mark.customer})
WITH mark, coalesce(lease.aliveAt, mark.touchedAt) AS heardAt
WHERE heardAt <= datetime.realtime() - duration({milliseconds: $idleMs})
RETURN mark.customer AS customer
