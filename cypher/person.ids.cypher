// params: customer, type, value, unlinkedTypes, maxNodes, maxIds
// The IDs of a person (extensions §4), whose impressions add up: every ID held by the nodes of the component
// of the ID given, never stepped through `links: false` IDs (but for the ID given itself, whose holders are all
// start nodes), `links: false` ones included. The traversal is erase.component.cypher's from an Id vertex (its
// comment and search.traverse-all.cypher's say why this shape). When no node holds the ID, `visited` is 0 (the
// aggregation still answers one row): the caller then counts that ID alone. `visited` and `idsRead` past maxNodes or maxIds mean component_too_large, and then
// no IDs are gathered.
MATCH (source:Id {customer: $customer, type: $type, value: $value})
MATCH path = (source)-[:LINKED*0..20000001]-(reached)
WHERE all(vertex IN nodes(path) WHERE vertex = source OR NOT (vertex:Id AND vertex.type IN $unlinkedTypes))
WITH DISTINCT reached
LIMIT $maxNodes + $maxIds + 1
WITH collect(reached) AS vertices
WITH [vertex IN vertices WHERE vertex:IdNode] AS nodes
WITH nodes, COLLECT {
  UNWIND nodes AS holder
  MATCH (holder)-[:LINKED]->(id:Id)
  RETURN DISTINCT id
} AS held
RETURN size(nodes) AS visited, size(held) AS idsRead,
       CASE WHEN size(nodes) <= $maxNodes AND size(held) <= $maxIds THEN [id IN held | {type: id.type, id: id.value}] ELSE [] END AS ids
