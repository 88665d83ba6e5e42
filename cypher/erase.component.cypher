// params: sources, maxNodes, maxIds, unlinkedTypes
// The nodes of a person's component, for an erase: what search.traverse-all.cypher reaches from the same sources
// (the erased ID's vertex, or its holders when its type is `links: false`), never through `links: false` IDs,
// bounded the same way (its comment says why this shape, and why the literal upper bound). `idsRead` counts the
// distinct IDs the nodes hold, `links: false` ones included.
UNWIND $sources AS sourceId
MATCH (source)
WHERE elementId(source) = sourceId
MATCH path = (source)-[:LINKED*0..20000001]-(reached)
WHERE all(vertex IN nodes(path) WHERE vertex = source OR NOT (vertex:Id AND vertex.type IN $unlinkedTypes))
WITH DISTINCT reached
LIMIT $maxNodes + $maxIds + 1
WITH collect(reached) AS vertices
WITH [vertex IN vertices WHERE vertex:IdNode] AS nodes
RETURN size(nodes) AS visited, COUNT {
  UNWIND nodes AS holder
  MATCH (holder)-[:LINKED]->(id:Id)
  RETURN DISTINCT id
} AS idsRead, [node IN nodes | elementId(node)] AS nodes
