// params:
// Finds a delivery's impressions, which deleting it removes (impression.delete-of-delivery.cypher).
CREATE INDEX impression_delivery IF NOT EXISTS
FOR (impressions:ImpressionCount) ON (impressions.customer, impressions.deliveryId)
