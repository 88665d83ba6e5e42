// params: customer, bans
// An import batch's bans (`bans`: {index, a, b}, each side {schema, keyType, keyId}), each between two nodes the
// import wrote, in this batch's earlier statements or in an earlier batch: recorded as separation.put.cypher records
// one, once whatever the direction. `refused` is the lowest index of a ban that names a node not there (or the same
// node twice), null when there is none: the store then rolls the batch's transaction back. The hints keep one seek
// of the key's unique index per side (see node.create-many.cypher).
UNWIND $bans AS ban
OPTIONAL MATCH (a:IdNode {customer: $customer, schema: ban.a.schema, keyType: ban.a.keyType, keyId: ban.a.keyId})
USING INDEX a:IdNode(customer, schema, keyType, keyId)
OPTIONAL MATCH (b:IdNode {customer: $customer, schema: ban.b.schema, keyType: ban.b.keyType, keyId: ban.b.keyId})
USING INDEX b:IdNode(customer, schema, keyType, keyId)
CALL (a, b) {
  WITH a, b
  WHERE a IS NOT NULL AND b IS NOT NULL AND a <> b
  MERGE (a)-[separated:SEPARATED]-(b)
    ON CREATE SET separated.customer = $customer
}
WITH ban, a IS NULL OR b IS NULL OR a = b AS missing
RETURN min(CASE WHEN missing THEN ban.index END) AS refused
