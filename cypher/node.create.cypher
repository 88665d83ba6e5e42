// params: customer, schema, keyType, keyId, ids
// Creates a node of an existing schema holding `ids` (the key among them; no duplicates), creating the Id
// vertices that do not exist yet. No row comes back when the schema does not exist. A taken key fails on the
// idnode_key_unique constraint (node_exists), and the whole transaction, Id vertices included, is undone.
MATCH (:Schema {customer: $customer, schemaId: $schema})
CREATE (node:IdNode {customer: $customer, schema: $schema, keyType: $keyType, keyId: $keyId, revision: 1})
WITH node
UNWIND $ids AS held
MERGE (id:Id {customer: $customer, type: held.type, value: held.id})
CREATE (node)-[:LINKED]->(id)
WITH node, count(id) AS linked
RETURN elementId(node) AS node, linked
