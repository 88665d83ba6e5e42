// params: impressions, maxNodes, maxIds
// Impressions in one auto-commit statement, each of another delivery: for each, takes its delivery's write lock,
// reads what the impression is checked against, checks it, and counts it only when every check lets it through.
// `impressions` is a list of maps, in the order of their deliveries (customer, then deliveryId), each with index,
// customer, deliveryId, key, write, type, value, unlinkedTypes, day, platform, receivedAt, mapiToken and keptPolicy;
// one row per impression, with its index. An impression alone is a list of one; impressions that arrive while
// others run go together (ImpressionGathering in src/store/neo4j/gathered-impressions.ts). Each row's `outcome` says
// what happened, and neo4j-impressions.ts answers it: 'counted', or what refused or answered it instead. Whatever
// is not counted writes nothing but the lock's mark.
//
// The lock comes first: the SET writes a value no other call writes, so it is taken before anything of its
// impression is read, and every impression of a delivery takes it. They are applied one at a time, and each reads
// what the one before it committed, which is what keeps the caps exact. The impressions of one statement are of
// distinct deliveries, so none reads what another writes, and their locks are taken in the order of the list: two
// statements never wait for each other's. A delete that committed while this waited for the lock leaves the node
// without properties: no such delivery now.
//
// The outcomes other than 'counted', checked in this order:
// - 'invalid_token': `mapiToken`, the hash of the mapi token that authorised the call (PersonRequest.mapiToken in
//   src/domain/ports/showing.ts), is not an active mapi token of the customer now (no check when it is null);
// - 'delivery_not_found';
// - 'counted_before': an earlier attempt of the same store call (`write`) counted it, and its reply was lost: its
//   answer, `countedCounts`, is answered again;
// - 'replayed': the idempotency key `key` (null when none was given) has an answer: `answerCounts`, or `answer`,
//   the document an earlier version stored;
// - 'caps_unknown': the delivery's vertex lacks its caps (an earlier version wrote it), which the store then copies
//   from its document (delivery.keep-caps.cypher) before it runs this again;
// - 'schema_changed': `keptPolicy` (null when the person's checks read the policy afresh) is not what they would use
//   of the policy now: the types declared secure and those declared `links: false` (`unlinkedTypes` above), as
//   sets, and the time zone (`day`);
// - 'component_too_large': `visited` or `idsRead` past maxNodes or maxIds;
// - the name of the cap that counting it would pass (docs/deliveries.md), the rule of capReached in
//   src/domain/showing.ts, with the delivery's document and counts and the person's, which the store names the
//   refusal with.
//
// What is read after the lock, as person.counts.cypher reads it (which says why the traversal has its shape): the
// person's impressions of the delivery, in all (`total`) and on the calendar `day` (`today`). The customer's
// :Settings are read through the text index settings_customer_text: in a statement that writes, Neo4j reads a vertex
// by a uniqueness constraint's index with a locking seek, and for a customer without settings that locks the absent
// entry exclusively until the commit, so every impression of the customer would wait for the one before. The
// customer is compared as `toString(i.customer)`: the planner seeks a text index only by a value it knows to be a
// string, which a field of a list's map is not, and otherwise reads by the locking seek.
//
// The count: the delivery's counts, the impressions recorded against the ID (type, value) on `day`, and with an
// idempotency key its answer to give its repeats, with that ID, by which an erase finds it. `answerCounts` is that
// answer's delivery count, person total and person today, which `countedBy` and `countedCounts` keep for an
// attempt of the same store call that runs again.
UNWIND $impressions AS i
OPTIONAL MATCH (locking:Delivery {customer: i.customer, deliveryId: i.deliveryId})
SET locking.impressionLock = i.write
WITH i, CASE WHEN locking.document IS NULL THEN null ELSE locking END AS delivery
WITH i, delivery, CASE WHEN delivery.countedBy = i.write THEN delivery.countedCounts END AS ours
OPTIONAL MATCH (earlier:ImpressionKey {customer: i.customer, deliveryId: i.deliveryId, key: i.key})
OPTIONAL MATCH (source:Id {customer: i.customer, type: i.type, value: i.value})
WITH i, delivery, ours, earlier, COLLECT {
  MATCH path = (source)-[:LINKED*0..20000001]-(reached)
  WHERE all(vertex IN nodes(path) WHERE vertex = source OR NOT (vertex:Id AND vertex.type IN i.unlinkedTypes))
  RETURN DISTINCT reached
  LIMIT $maxNodes + $maxIds + 1
} AS vertices
WITH i, delivery, ours, earlier, [vertex IN vertices WHERE vertex:IdNode] AS nodes
WITH i, delivery, ours, earlier, nodes, COLLECT {
  UNWIND nodes AS holder
  MATCH (holder)-[:LINKED]->(id:Id)
  RETURN DISTINCT id
} AS held
WITH i, delivery, ours, earlier, size(nodes) AS visited, held
WITH i, delivery, ours, earlier, visited, size(held) AS idsRead, CASE
         WHEN visited = 0 THEN [{type: i.type, value: i.value}]
         WHEN visited <= $maxNodes AND size(held) <= $maxIds THEN [id IN held | {type: id.type, value: id.value}]
         ELSE []
       END AS ids
CALL (i, ids) {
  UNWIND ids AS wanted
  MATCH (impressions:ImpressionCount {customer: i.customer, type: wanted.type, value: wanted.value, deliveryId: i.deliveryId})
  RETURN sum(impressions.count) AS total, sum(CASE WHEN impressions.day = i.day THEN impressions.count ELSE 0 END) AS today
}
WITH i, delivery, ours, earlier, visited, idsRead, total, today,
     COLLECT {
       MATCH (idType:IdType {customer: i.customer})
       WHERE idType.secure AND EXISTS { (idType)<-[:DECLARES]-(:Schema) }
       RETURN idType.name
     } AS secureTypes,
     COLLECT {
       MATCH (idType:IdType {customer: i.customer})
       WHERE idType.links = false AND EXISTS { (idType)<-[:DECLARES]-(:Schema) }
       RETURN idType.name
     } AS unlinkedTypes,
     head(COLLECT {
       MATCH (settings:Settings)
       USING TEXT INDEX settings:Settings(customer)
       WHERE settings.customer = toString(i.customer)
       RETURN settings.timezone
     }) AS timezone,
     i.mapiToken IS NULL OR EXISTS {
       MATCH (token:Token {tokenHash: i.mapiToken})
       WHERE token.revokedAt IS NULL AND token.customer = i.customer AND token.kind = 'mapi'
     } AS tokenActive
WITH i, delivery, ours, earlier, visited, idsRead, total, today, tokenActive,
     i.keptPolicy IS NULL OR (
       size(secureTypes) = size(i.keptPolicy.secureTypes) AND all(name IN secureTypes WHERE name IN i.keptPolicy.secureTypes) AND
       size(unlinkedTypes) = size(i.keptPolicy.unlinkedTypes) AND all(name IN unlinkedTypes WHERE name IN i.keptPolicy.unlinkedTypes) AND
       coalesce(timezone = i.keptPolicy.timezone, timezone IS NULL AND i.keptPolicy.timezone IS NULL)
     ) AS policyHolds,
     coalesce(delivery.deliveryCount, 0) AS deliveryCount
WITH i, delivery, ours, earlier, total, today, deliveryCount, [deliveryCount + 1, total + 1, today + 1] AS answerCounts, CASE
         WHEN NOT tokenActive THEN 'invalid_token'
         WHEN delivery IS NULL THEN 'delivery_not_found'
         WHEN ours IS NOT NULL THEN 'counted_before'
         WHEN earlier IS NOT NULL THEN 'replayed'
         WHEN delivery.maxDeliveryCount IS NULL THEN 'caps_unknown'
         WHEN NOT policyHolds THEN 'schema_changed'
         WHEN visited > $maxNodes OR idsRead > $maxIds THEN 'component_too_large'
         WHEN deliveryCount >= delivery.maxDeliveryCount THEN 'max_delivery_count'
         WHEN total >= delivery.maxTotalCount THEN 'max_total_count'
         WHEN today >= delivery.maxTotalCountPerDay THEN 'max_total_count_per_day'
         ELSE 'counted'
       END AS outcome
CALL (i, delivery, outcome, answerCounts) {
  WITH i, delivery, answerCounts WHERE outcome = 'counted'
  SET delivery.deliveryCount = answerCounts[0],
      delivery.iphoneCount = coalesce(delivery.iphoneCount, 0) + CASE i.platform WHEN 'ios' THEN 1 ELSE 0 END,
      delivery.androidCount = coalesce(delivery.androidCount, 0) + CASE i.platform WHEN 'android' THEN 1 ELSE 0 END,
      delivery.countedBy = i.write,
      delivery.countedCounts = answerCounts
  REMOVE delivery.countedAnswer
  MERGE (impressions:ImpressionCount {customer: i.customer, deliveryId: i.deliveryId, type: i.type, value: i.value, day: i.day})
    ON CREATE SET impressions.count = 1
    ON MATCH SET impressions.count = impressions.count + 1
  FOREACH (key IN CASE WHEN i.key IS NULL THEN [] ELSE [i.key] END |
    CREATE (:ImpressionKey {customer: i.customer, deliveryId: i.deliveryId, key: key, answerCounts: answerCounts,
                            createdAt: datetime(i.receivedAt), type: i.type, value: i.value})
  )
}
RETURN i.index AS index, outcome,
       CASE outcome
         WHEN 'counted' THEN answerCounts
         WHEN 'counted_before' THEN ours
         WHEN 'replayed' THEN earlier.answerCounts
       END AS answerCounts,
       CASE outcome WHEN 'replayed' THEN earlier.answer END AS answer,
       CASE WHEN outcome = 'caps_unknown' OR outcome STARTS WITH 'max_' THEN delivery.document END AS document,
       deliveryCount, coalesce(delivery.iphoneCount, 0) AS iphoneCount, coalesce(delivery.androidCount, 0) AS androidCount, total, today
