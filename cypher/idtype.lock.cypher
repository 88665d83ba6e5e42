// params: customer, idTypes
// Creates the IdType vertices a schema is about to declare and locks them (in the order given: by name, so two
// schemas never wait on each other in a cycle). The secure-flag check that follows then reads what other
// schemas committed, not a state a concurrent put is about to change.
UNWIND $idTypes AS declared
MERGE (idType:IdType {customer: $customer, name: declared.type})
  ON CREATE SET idType.secure = declared.secure, idType.revision = 0
SET idType.revision = idType.revision + 1
