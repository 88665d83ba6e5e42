// params: customer, known
// Every delivery of the customer, in delivery_id order, with its live counts, for eligibility. `known` lists
// the [deliveryId, revision] pairs whose documents the caller has parsed already: those come without their
// document. A replacement takes delivery.lock, which raises the revision, so a known pair is still the document
// stored; delivery ids are never given out twice to one customer.
MATCH (delivery:Delivery {customer: $customer})
WITH delivery, coalesce(delivery.revision, 0) AS revision
ORDER BY delivery.deliveryId
RETURN delivery.deliveryId AS deliveryId, revision,
       coalesce(delivery.deliveryCount, 0) AS deliveryCount, coalesce(delivery.iphoneCount, 0) AS iphoneCount,
       coalesce(delivery.androidCount, 0) AS androidCount,
       CASE WHEN [delivery.deliveryId, revision] IN $known THEN null ELSE delivery.document END AS document
