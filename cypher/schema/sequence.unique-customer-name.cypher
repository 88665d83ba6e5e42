// params:
// One counter per customer and sequence name (delivery, condition, message); MERGE on it is safe under concurrency.
CREATE CONSTRAINT sequence_customer_name_unique IF NOT EXISTS
FOR (sequence:Sequence) REQUIRE (sequence.customer, sequence.name) IS UNIQUE
