// params: customer, deliveryId, key, write, type, value, unlinkedTypes, maxNodes, maxIds, day, platform, receivedAt, keptToken
// One impression in one statement: takes the delivery's write lock, reads what the impression is checked against,
// and counts it. The store checks the row it answers inside the same transaction, and rolls the transaction back when
// a check refuses the impression (src/store/neo4j/neo4j-impressions.ts), so a refused impression counts nothing.
//
// The lock comes first: the SET writes a value no other call writes, so it is taken before anything is read, and
// every impression of a delivery takes it. They are applied one at a time, and each reads what the one before it
// committed, which is what keeps the caps exact. A delete that committed while this waited for the lock leaves the
// node without properties: no such delivery now, and then `document` is null and nothing is counted. So is it when
// the idempotency key `key` (null when none was given) already has an answer: a repeat, answered that answer.
//
// What is read after the lock, as person.counts.cypher reads it (which says why the traversal has its shape): the
// person's impressions of the delivery, in all (`total`) and on the calendar `day` (`today`), with `visited` and
// `idsRead` (past maxNodes or maxIds, nothing is counted); the policy the person's checks used (secureTypes,
// unlinkedTypes, timezone); and tokenActive for `keptToken`. The customer's :Settings are read through the text index
// settings_customer_text: in a statement that writes, Neo4j reads a vertex by a uniqueness constraint's index with a
// locking seek, and for a customer without settings that locks the absent entry exclusively until the commit, so
// every impression of the customer would wait for the one before.
//
// The count: the delivery's counts, the impressions recorded against the ID (type, value) on `day`, and with an
// idempotency key its answer to give its repeats, with that ID, by which an erase finds it. `answerCounts` is that
// answer's delivery count, person total and person today, which `countedBy` and `countedCounts` keep for the store
// call that counted (impression.counted-by.cypher; an earlier version kept the answer as a document, `countedAnswer`).
OPTIONAL MATCH (locking:Delivery {customer: $customer, deliveryId: $deliveryId})
SET locking.impressionLock = $write
WITH CASE WHEN locking.document IS NULL THEN null ELSE locking END AS delivery
OPTIONAL MATCH (earlier:ImpressionKey {customer: $customer, deliveryId: $deliveryId, key: $key})
OPTIONAL MATCH (source:Id {customer: $customer, type: $type, value: $value})
WITH delivery, earlier, COLLECT {
  MATCH path = (source)-[:LINKED*0..20000001]-(reached)
  WHERE all(vertex IN nodes(path) WHERE vertex = source OR NOT (vertex:Id AND vertex.type IN $unlinkedTypes))
  RETURN DISTINCT reached
  LIMIT $maxNodes + $maxIds + 1
} AS vertices
WITH delivery, earlier, [vertex IN vertices WHERE vertex:IdNode] AS nodes
WITH delivery, earlier, nodes, COLLECT {
  UNWIND nodes AS holder
  MATCH (holder)-[:LINKED]->(id:Id)
  RETURN DISTINCT id
} AS held
WITH delivery, earlier, size(nodes) AS visited, held
WITH delivery, earlier, visited, size(held) AS idsRead, CASE
         WHEN visited = 0 THEN [{type: $type, value: $value}]
         WHEN visited <= $maxNodes AND size(held) <= $maxIds THEN [id IN held | {type: id.type, value: id.value}]
         ELSE []
       END AS ids
CALL (ids) {
  UNWIND ids AS wanted
  MATCH (impressions:ImpressionCount {customer: $customer, type: wanted.type, value: wanted.value, deliveryId: $deliveryId})
  RETURN sum(impressions.count) AS total, sum(CASE WHEN impressions.day = $day THEN impressions.count ELSE 0 END) AS today
}
WITH delivery, earlier, visited, idsRead, total, today, coalesce(delivery.deliveryCount, 0) AS deliveryCount,
     coalesce(delivery.iphoneCount, 0) AS iphoneCount, coalesce(delivery.androidCount, 0) AS androidCount
WITH delivery, earlier, visited, idsRead, total, today, deliveryCount, iphoneCount, androidCount,
     [deliveryCount + 1, total + 1, today + 1] AS answerCounts
CALL (delivery, earlier, answerCounts) {
  WITH delivery, answerCounts WHERE delivery IS NOT NULL AND earlier IS NULL
  SET delivery.deliveryCount = answerCounts[0],
      delivery.iphoneCount = coalesce(delivery.iphoneCount, 0) + CASE $platform WHEN 'ios' THEN 1 ELSE 0 END,
      delivery.androidCount = coalesce(delivery.androidCount, 0) + CASE $platform WHEN 'android' THEN 1 ELSE 0 END,
      delivery.countedBy = $write,
      delivery.countedCounts = answerCounts
  REMOVE delivery.countedAnswer
  MERGE (impressions:ImpressionCount {customer: $customer, deliveryId: $deliveryId, type: $type, value: $value, day: $day})
    ON CREATE SET impressions.count = 1
    ON MATCH SET impressions.count = impressions.count + 1
  FOREACH (key IN CASE WHEN $key IS NULL THEN [] ELSE [$key] END |
    CREATE (:ImpressionKey {customer: $customer, deliveryId: $deliveryId, key: key, answerCounts: answerCounts,
                            createdAt: datetime($receivedAt), type: $type, value: $value})
  )
}
RETURN delivery.document AS document, deliveryCount, iphoneCount, androidCount, earlier.answer AS answer,
       earlier.answerCounts AS earlierCounts, answerCounts, visited, idsRead, total, today,
       COLLECT {
         MATCH (idType:IdType {customer: $customer})
         WHERE idType.secure AND EXISTS { (idType)<-[:DECLARES]-(:Schema) }
         RETURN idType.name
       } AS secureTypes,
       COLLECT {
         MATCH (idType:IdType {customer: $customer})
         WHERE idType.links = false AND EXISTS { (idType)<-[:DECLARES]-(:Schema) }
         RETURN idType.name
       } AS unlinkedTypes,
       COLLECT {
         MATCH (settings:Settings)
         USING TEXT INDEX settings:Settings(customer)
         WHERE settings.customer = $customer
         RETURN settings.timezone
       } AS timezone,
       $keptToken IS NULL OR EXISTS {
         MATCH (token:Token {tokenHash: $keptToken})
         WHERE token.revokedAt IS NULL AND token.customer = $customer AND token.kind = 'mapi'
       } AS tokenActive
