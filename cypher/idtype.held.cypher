// params: customer, type
// Whether any node of the customer holds an ID of the type: an Id vertex exists only while a node holds it
// (node.unlink-id.cypher and node.delete.cypher delete it with its last holder). Uses id_customer_type.
RETURN EXISTS { MATCH (:Id {customer: $customer, type: $type}) } AS held
