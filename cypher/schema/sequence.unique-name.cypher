// params:
// One counter per sequence name (delivery, condition, message); MERGE on it is safe under concurrency.
CREATE CONSTRAINT sequence_name_unique IF NOT EXISTS
FOR (sequence:Sequence) REQUIRE sequence.name IS UNIQUE
