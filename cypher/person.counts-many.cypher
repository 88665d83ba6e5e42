// params: people, maxNodes, maxIds
// person.counts.cypher for many people at once, each of every delivery (GatheredReads in
// src/store/neo4j/gathered-reads.ts): `people` is a list of maps, each with index, customer, type, value,
// unlinkedTypes, day, deliveryIds and mapiToken; one row per person, with its index, as person.counts.cypher answers it (which says why the
// traversal has its shape). The traversal is a COLLECT subquery, as in search.one.cypher, so that it is
// still planned as a pruning breadth-first expand for each person, and a person whose ID no node holds keeps its row.
// Each row also has the person's customer's secureTypes, unlinkedTypes, timezone and catalogueVersion, and the live
// counts of the person's deliveryIds, and tokenActive, as person.counts.cypher says.
UNWIND $people AS person
OPTIONAL MATCH (source:Id {customer: person.customer, type: person.type, value: person.value})
WITH person, COLLECT {
  MATCH path = (source)-[:LINKED*0..20000001]-(reached)
  WHERE all(vertex IN nodes(path) WHERE vertex = source OR NOT (vertex:Id AND vertex.type IN person.unlinkedTypes))
  RETURN DISTINCT reached
  LIMIT $maxNodes + $maxIds + 1
} AS vertices
WITH person, [vertex IN vertices WHERE vertex:IdNode] AS nodes
WITH person, nodes, COLLECT {
  UNWIND nodes AS holder
  MATCH (holder)-[:LINKED]->(id:Id)
  RETURN DISTINCT id
} AS held
WITH person, size(nodes) AS visited, held
WITH person, visited, size(held) AS idsRead, CASE
         WHEN visited = 0 THEN [{type: person.type, value: person.value}]
         WHEN visited <= $maxNodes AND size(held) <= $maxIds THEN [id IN held | {type: id.type, value: id.value}]
         ELSE []
       END AS ids
RETURN person.index AS index, visited, idsRead, COLLECT {
  UNWIND ids AS wanted
  MATCH (impressions:ImpressionCount {customer: person.customer, type: wanted.type, value: wanted.value})
  WITH impressions.deliveryId AS deliveryId, sum(impressions.count) AS total,
       sum(CASE WHEN impressions.day = person.day THEN impressions.count ELSE 0 END) AS today
  RETURN {deliveryId: deliveryId, total: total, today: today}
} AS counts,
       COLLECT {
         MATCH (idType:IdType {customer: person.customer})
         WHERE idType.secure AND EXISTS { (idType)<-[:DECLARES]-(:Schema) }
         RETURN idType.name
       } AS secureTypes,
       COLLECT {
         MATCH (idType:IdType {customer: person.customer})
         WHERE idType.links = false AND EXISTS { (idType)<-[:DECLARES]-(:Schema) }
         RETURN idType.name
       } AS unlinkedTypes,
       COLLECT {
         MATCH (settings:Settings {customer: person.customer})
         RETURN settings.timezone
       } AS timezone,
       COLLECT {
         MATCH (sequence:Sequence {customer: person.customer, name: 'catalogue'})
         RETURN sequence.last
       } AS catalogueVersion,
       COLLECT {
         UNWIND person.deliveryIds AS deliveryId
         MATCH (delivery:Delivery {customer: person.customer, deliveryId: deliveryId})
         RETURN {deliveryId: deliveryId, deliveryCount: coalesce(delivery.deliveryCount, 0), iphoneCount: coalesce(delivery.iphoneCount, 0),
                 androidCount: coalesce(delivery.androidCount, 0)}
       } AS live,
       person.mapiToken IS NULL OR EXISTS {
         MATCH (token:Token {tokenHash: person.mapiToken})
         WHERE token.revokedAt IS NULL AND token.customer = person.customer AND token.kind = 'mapi'
       } AS tokenActive
