// params: customer
// Whether another process has begun importing the customer (import.begin.cypher), read as history.append.cypher
// reads it: with the customer's change counter locked (a write of its own value), which import.begin locks before
// it checks that the customer is empty. The last statement of the customer's writes that append no history
// (schemas, settings, blocklist, deliveries): such a write either commits before the import begins,
// which then finds the customer not empty (its settings and blocklist are not counted: the import replaces them when
// it finishes), or it finds the import's mark, and the caller rolls it back (import_in_progress).
MERGE (sequence:Sequence {customer: $customer, name: 'change'})
  ON CREATE SET sequence.last = 0
SET sequence.last = sequence.last
RETURN EXISTS { MATCH (:Import {customer: $customer}) } AS importing
