// params:
// Drops the constraint of the counters all customers once shared (one per name): counters are per customer now
// (sequence.unique-customer-name), and several customers' counters share a name.
DROP CONSTRAINT sequence_name_unique IF EXISTS
