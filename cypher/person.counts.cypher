// params: customer, type, value, unlinkedTypes, maxNodes, maxIds, day, deliveryIds, mapiToken
// A person's impressions, in one statement: the IDs of the person (docs/deliveries.md), whose impressions add up, then
// for each delivery the sum of the counts recorded against those IDs, in all
// and on the calendar `day` (one index seek per ID: impression_id).
//
// The person's IDs: every ID held by the nodes of the component of the ID given, never stepped through `links:
// false` IDs (but for the ID given itself, whose holders are all start nodes), `links: false` ones included. The
// traversal is erase.component.cypher's from an Id vertex (its comment and search.traverse-all.cypher's say why
// this shape). When no node holds the ID, `visited` is 0 (the aggregation still answers one row), and the ID given
// is counted alone. `visited` and `idsRead` past maxNodes or maxIds mean component_too_large, and then nothing is
// counted.
//
// It also reads what the person's checks used of the customer's policy, as customer.policy.cypher reads them: the
// types declared secure, those declared `links: false` (`unlinkedTypes` above), and the time zone (`day`). A service
// process that made the checks with a policy it kept uses the counts only while these are still what it kept
// (src/store/neo4j/kept-policies.ts).
//
// And for eligibility weighed against a catalogue the process kept (delivery.catalogue.cypher): the catalogue's
// version now, and the live counts of the deliveries `deliveryIds` (those left to weigh; [] otherwise).
//
// And `tokenActive`: whether `mapiToken`, the hash of the mapi token that authorised the call
// (PersonRequest.mapiToken in src/domain/ports/showing.ts), is still an active mapi token of the customer; true when it is null.
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
WITH size(nodes) AS visited, held
WITH visited, size(held) AS idsRead, CASE
         WHEN visited = 0 THEN [{type: $type, value: $value}]
         WHEN visited <= $maxNodes AND size(held) <= $maxIds THEN [id IN held | {type: id.type, value: id.value}]
         ELSE []
       END AS ids
RETURN visited, idsRead, COLLECT {
  UNWIND ids AS wanted
  MATCH (impressions:ImpressionCount {customer: $customer, type: wanted.type, value: wanted.value})
  WITH impressions.deliveryId AS deliveryId, sum(impressions.count) AS total,
       sum(CASE WHEN impressions.day = $day THEN impressions.count ELSE 0 END) AS today
  RETURN {deliveryId: deliveryId, total: total, today: today}
} AS counts,
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
         MATCH (settings:Settings {customer: $customer})
         RETURN settings.timezone
       } AS timezone,
       COLLECT {
         MATCH (sequence:Sequence {customer: $customer, name: 'catalogue'})
         RETURN sequence.last
       } AS catalogueVersion,
       COLLECT {
         UNWIND $deliveryIds AS deliveryId
         MATCH (delivery:Delivery {customer: $customer, deliveryId: deliveryId})
         RETURN {deliveryId: deliveryId, deliveryCount: coalesce(delivery.deliveryCount, 0), iphoneCount: coalesce(delivery.iphoneCount, 0),
                 androidCount: coalesce(delivery.androidCount, 0)}
       } AS live,
       $mapiToken IS NULL OR EXISTS {
         MATCH (token:Token {tokenHash: $mapiToken})
         WHERE token.revokedAt IS NULL AND token.customer = $customer AND token.kind = 'mapi'
       } AS tokenActive
