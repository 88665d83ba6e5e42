// params: customer
// What the caps of the customer's deliveries counted, per ID (as recorded) and delivery, days in order: the rows of
// a deleted delivery, which its sweep deletes later, are left out. Code-point order of type and value, as
// export.nodes.cypher says; the driver pulls the rows as the export writes them.
MATCH (delivery:Delivery {customer: $customer})
WITH collect(delivery.deliveryId) AS live
MATCH (impressions:ImpressionCount {customer: $customer})
WHERE impressions.deliveryId IN live
WITH impressions
ORDER BY impressions.type, impressions.value, impressions.deliveryId, impressions.day
RETURN impressions.type AS type, impressions.value AS value, impressions.deliveryId AS deliveryId, impressions.day AS day,
       impressions.count AS count
