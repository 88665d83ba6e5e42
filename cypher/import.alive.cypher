// params: customer
// Says that the process running the customer's import is alive (src/store/neo4j/neo4j-import.ts, every few seconds
// from begin to finish or abandon): the lease's `aliveAt`, by Neo4j's clock, which every service process on the
// database shares (import.unfinished.cypher). The lease is a vertex no batch writes, so a beat never waits for one.
MATCH (lease:ImportLease {customer: $customer})
SET lease.aliveAt = datetime.realtime()
