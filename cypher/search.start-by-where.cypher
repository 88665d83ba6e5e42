// params: customer, type, value, schema, cap
// The start nodes of a search by where: every node holding the ID, only those of `schema` when it is not null,
// at most `cap` of them (the caller passes TRAVERSAL_MAX_NODES + 1: one more means the search is too large).
// Also the Id vertex itself, from which ALL (and ONE without a schema) traverse once instead of once per holder.
// No row: no start node.
MATCH (source:Id {customer: $customer, type: $type, value: $value})<-[:LINKED]-(start:IdNode)
WHERE $schema IS NULL OR start.schema = $schema
WITH source, start
LIMIT $cap
RETURN elementId(source) AS source, collect(elementId(start)) AS starts
