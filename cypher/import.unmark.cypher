// params: customer
// Removes the customer's import mark and lease: the last step of an abandoned import (after everything it wrote is
// deleted, so that an abandon a crash interrupts leaves the customer marked, and is done again).
OPTIONAL MATCH (mark:Import {customer: $customer})
OPTIONAL MATCH (lease:ImportLease {customer: $customer})
DELETE mark, lease
