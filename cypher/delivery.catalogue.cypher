// params: customer, known
// Every delivery of the customer, in delivery_id order, with its live counts, for eligibility. `known` lists
// the [deliveryId, revision] pairs whose documents the caller has parsed already: those come without their
// document. A replacement takes delivery.lock, which raises the revision, so a known pair is still the document
// stored; delivery ids are never given out twice to one customer.
//
// Each row also has the customer's catalogue `version`, read before the deliveries: the count of the customer's
// `catalogue` sequence, which every create, replacement and delete of a delivery takes (src/store/neo4j/
// neo4j-deliveries.ts), 0 before the first. A service process keeps what this answers and weighs later requests
// against it while person.counts.cypher answers the same version.
CALL () {
  OPTIONAL MATCH (sequence:Sequence {customer: $customer, name: 'catalogue'})
  RETURN coalesce(sequence.last, 0) AS version
}
CALL (version) {
  MATCH (delivery:Delivery {customer: $customer})
  RETURN delivery
}
WITH version, delivery, coalesce(delivery.revision, 0) AS revision
ORDER BY delivery.deliveryId
RETURN version, delivery.deliveryId AS deliveryId, revision,
       coalesce(delivery.deliveryCount, 0) AS deliveryCount, coalesce(delivery.iphoneCount, 0) AS iphoneCount,
       coalesce(delivery.androidCount, 0) AS androidCount,
       CASE WHEN [delivery.deliveryId, revision] IN $known THEN null ELSE delivery.document END AS document
