// params: customer, nodes, ids
// `_why`'s exact search (src/domain/why-chain.ts), at its end: the keys of the nodes and the values of the IDs
// on its shortest chains, by element id, for choosing the smallest chain. A vertex deleted since answers nothing.
CALL () {
  UNWIND $nodes AS node
  MATCH (n:IdNode)
  WHERE elementId(n) = node AND n.customer = $customer
  RETURN collect({ref: node, schema: n.schema, type: n.keyType, id: n.keyId}) AS nodes
}
CALL () {
  UNWIND $ids AS id
  MATCH (i:Id)
  WHERE elementId(i) = id AND i.customer = $customer
  RETURN collect({ref: id, type: i.type, id: i.value}) AS ids
}
RETURN nodes, ids
