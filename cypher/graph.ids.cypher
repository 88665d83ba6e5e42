// params: nodes
// The IDs each answered node of the explorer's graph holds (docs/explorer.md), its key included, by the element
// ids graph.one.cypher or graph.all.cypher answered when the answer was too large for them to bring the IDs: one
// element-id seek per node (NodeByElementIdSeek), then its LINKED relationships. cutGraph (src/domain/graph.ts)
// chose the nodes so that they hold at most TRAVERSAL_MAX_IDS IDs between them. A node deleted since the traversal
// (Neo4j reads what is committed when each statement runs) answers no row; the store leaves it out.
UNWIND $nodes AS ref
MATCH (node:IdNode)
WHERE elementId(node) = ref
MATCH (node)-[:LINKED]->(id:Id)
RETURN ref, collect({type: id.type, id: id.value}) AS ids
