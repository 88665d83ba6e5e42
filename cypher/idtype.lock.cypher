// params: customer, idTypes, write
// Creates the IdType vertices a schema is about to declare and locks them (in the order given: by name, so two
// schemas never wait on each other in a cycle). The option checks that follow then read what other schemas
// committed, not a state a concurrent put is about to change. The lock is taken by writing `lastWrite` (the store
// call's id), which reads nothing, for the reason node.lock.cypher gives. Returns each type's secure flag as
// stored (a new vertex takes the declared one): turning it off is checked against held IDs (secure_type_in_use).
UNWIND $idTypes AS declared
MERGE (idType:IdType {customer: $customer, name: declared.type})
  ON CREATE SET idType.secure = declared.secure
SET idType.lastWrite = $write
RETURN declared.type AS type, idType.secure AS wasSecure
