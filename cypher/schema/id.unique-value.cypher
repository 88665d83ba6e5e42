// params:
// One Id vertex per (type, value) of a customer: two nodes holding the same ID share this vertex, which is what
// links them. The constraint also makes MERGE on an Id safe under concurrency.
CREATE CONSTRAINT id_value_unique IF NOT EXISTS
FOR (id:Id) REQUIRE (id.customer, id.type, id.value) IS UNIQUE
