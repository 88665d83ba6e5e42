// params: customer, schemaId, idTypes
// The first declared type (in declaration order, as SQLite reports it) whose secure flag differs from the one
// another schema of the customer gives it (one type has one secure flag per customer). Declarations by this very
// schema do not count: a replacement may change a flag that no other schema shares.
UNWIND range(0, size($idTypes) - 1) AS position
WITH position, $idTypes[position] AS declared
MATCH (idType:IdType {customer: $customer, name: declared.type})<-[:DECLARES]-(other:Schema)
WHERE other.schemaId <> $schemaId AND idType.secure <> declared.secure
RETURN declared.type AS type, other.schemaId AS otherSchema
ORDER BY position, otherSchema
LIMIT 1
