// params: customer
// Removes the customer's import mark: the last step of a finished import (with its settings and blocklist, in one
// transaction) and of an abandoned one (after everything it wrote is deleted, so that an abandon a crash interrupts
// leaves the customer marked, and is done again). `unmarked` is 0 when there was none.
OPTIONAL MATCH (mark:Import {customer: $customer})
DELETE mark
RETURN count(mark) AS unmarked
