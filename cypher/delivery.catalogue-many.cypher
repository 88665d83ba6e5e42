// params: customers
// delivery.catalogue.cypher for many customers at once (GatheredReads in src/store/neo4j/gathered-reads.ts):
// `customers` is a list of maps, each with index, customer and known (that customer's [deliveryId, revision]
// pairs); each customer's deliveries in delivery_id order, with its index and catalogue version.
UNWIND $customers AS asked
CALL (asked) {
  OPTIONAL MATCH (sequence:Sequence {customer: asked.customer, name: 'catalogue'})
  RETURN coalesce(sequence.last, 0) AS version
}
CALL (asked, version) {
  MATCH (delivery:Delivery {customer: asked.customer})
  RETURN delivery
}
WITH asked, version, delivery, coalesce(delivery.revision, 0) AS revision
ORDER BY asked.index, delivery.deliveryId
RETURN asked.index AS index, version, delivery.deliveryId AS deliveryId, revision,
       coalesce(delivery.deliveryCount, 0) AS deliveryCount, coalesce(delivery.iphoneCount, 0) AS iphoneCount,
       coalesce(delivery.androidCount, 0) AS androidCount,
       CASE WHEN [delivery.deliveryId, revision] IN asked.known THEN null ELSE delivery.document END AS document
