// params: customer, ids, erasing
// Which of `ids` a node outside `erasing` (the element ids of the erase's nodes, not deleted yet) holds: the values
// the erase must leave, such as a `links: false` ID another person shares. Asked before the erase deletes anything:
// an index seek in a transaction that has already deleted thousands of Id vertices costs several times as much.
UNWIND $ids AS wanted
MATCH (id:Id {customer: $customer, type: wanted.type, value: wanted.id})
WHERE EXISTS {
  MATCH (id)<-[:LINKED]-(holder:IdNode)
  WHERE NOT elementId(holder) IN $erasing
}
RETURN id.type AS type, id.value AS id
