// params: rows
// node.link-ids.cypher for many locked nodes: each of `rows` ({line, node, ids, maxIds}) links its `ids`, which
// its node does not hold, unless the node would then hold more than `maxIds` (null: no limit). Answers each line
// with whether it fitted (false: nothing linked, node_id_limit_reached); linking nothing always fits, as in
// node.link-ids's caller.
// Each Id vertex made here gets the labels node.create.cypher gives one (`type:`, `SecureId`), for Neo4j Browser.
UNWIND $rows AS row
MATCH (node:IdNode)
WHERE elementId(node) = row.node
WITH row, node, COLLECT { MATCH (secureType:IdType {customer: node.customer, secure: true}) RETURN secureType.name } AS secureTypes, size(row.ids) = 0 OR row.maxIds IS NULL OR COUNT { (node)-[:LINKED]->() } + size(row.ids) <= row.maxIds AS fits
FOREACH (held IN CASE WHEN fits THEN row.ids ELSE [] END |
  MERGE (id:Id {customer: node.customer, type: held.type, value: held.id})
    ON CREATE SET id:$(['type:' + held.type] + CASE WHEN held.type IN secureTypes THEN ['SecureId'] ELSE [] END)
  MERGE (node)-[:LINKED]->(id)
)
RETURN row.line AS line, fits
