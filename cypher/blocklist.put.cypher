// params: customer, rules
// Replaces the customer's blocked-value rules, kept as the JSON text the store reads back whole (one Blocklist
// vertex per customer: blocklist_customer_unique). Nothing queries the rules' content, so a string will do.
MERGE (blocklist:Blocklist {customer: $customer})
SET blocklist.rules = $rules
