// params:
// Upgrade 1 of the ledger (neo4j-migrations.ts), after the constraints; does nothing once done. Ids used to come
// from counters all customers shared (a :Sequence without `customer`). Each customer that may have been given ids
// (one with deliveries, or with a mapi token to make them) gets counters of its own that start where the shared
// ones stopped, so that no id it has seen, a deleted one included, comes back; then the shared counters go.
// `shared` says how many there were.
MATCH (shared:Sequence)
WHERE shared.customer IS NULL
WITH collect(shared) AS counters
CALL (counters) {
  UNWIND counters AS counter
  CALL () {
    MATCH (delivery:Delivery)
    RETURN DISTINCT delivery.customer AS customer
    UNION
    MATCH (token:Token {kind: 'mapi'})
    RETURN DISTINCT token.customer AS customer
  }
  MERGE (own:Sequence {customer: customer, name: counter.name})
    ON CREATE SET own.last = counter.last
  RETURN count(own) AS adopted
}
FOREACH (counter IN counters | DELETE counter)
RETURN size(counters) AS shared, adopted
