// params: customer, nodes, ids
// `_why`'s exact search (src/domain/why-chain.ts), at its end: the keys of the nodes and the values of the IDs
// on its shortest chains, by element id, for choosing the smallest chain. A vertex deleted since answers nothing.
// Lists a column, each vertex by its place in $nodes or $ids: thousands of maps, or of element ids sent back, cost
// the driver several times more to decode.
CALL () {
  UNWIND range(0, size($nodes) - 1) AS at
  MATCH (n:IdNode)
  WHERE elementId(n) = $nodes[at] AND n.customer = $customer
  RETURN collect(at) AS nodesAt, collect(n.schema) AS schemas, collect(n.keyType) AS keyTypes, collect(n.keyId) AS keyIds
}
CALL () {
  UNWIND range(0, size($ids) - 1) AS at
  MATCH (i:Id)
  WHERE elementId(i) = $ids[at] AND i.customer = $customer
  RETURN collect(at) AS idsAt, collect(i.type) AS types, collect(i.value) AS values
}
RETURN nodesAt, schemas, keyTypes, keyIds, idsAt, types, values
