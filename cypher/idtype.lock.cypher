// params: customer, idTypes, write
// Creates the IdType vertices a schema is about to declare and locks them (in the order given: by name, so two
// schemas never wait on each other in a cycle). The secure-flag check that follows then reads what other
// schemas committed, not a state a concurrent put is about to change. The lock is taken by writing `lastWrite`
// (the store call's id), which reads nothing, for the reason node.lock.cypher gives.
UNWIND $idTypes AS declared
MERGE (idType:IdType {customer: $customer, name: declared.type})
  ON CREATE SET idType.secure = declared.secure
SET idType.lastWrite = $write
