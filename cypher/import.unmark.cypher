// params: customer
// Removes the customer's import mark, lease and lanes: the last step of an import, finished or abandoned (after
// everything an abandoned one wrote is deleted, so that an abandon a crash interrupts leaves the customer marked, and
// is done again).
OPTIONAL MATCH (mark:Import {customer: $customer})
OPTIONAL MATCH (lease:ImportLease {customer: $customer})
DELETE mark, lease
WITH count(*) AS unmarked
OPTIONAL MATCH (lane:ImportLane {customer: $customer})
DELETE lane
