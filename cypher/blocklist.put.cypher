// params: customer, rules, digest
// Replaces the customer's blocked-value rules, kept as the JSON text the store reads back whole (one Blocklist
// vertex per customer: blocklist_customer_unique). Nothing queries the rules' content, so a string will do.
// `digest`, the SHA-256 of that text, names these rules: a service process that keeps a customer's policy between
// writes checks it in each write's schema.guard (src/store/neo4j/kept-policies.ts).
MERGE (blocklist:Blocklist {customer: $customer})
SET blocklist.rules = $rules, blocklist.digest = $digest
