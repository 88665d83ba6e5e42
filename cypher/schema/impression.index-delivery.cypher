// params:
// Finds a deleted delivery's impressions, which its sweep deletes (impression.sweep-of-deleted.cypher).
CREATE INDEX impression_delivery IF NOT EXISTS
FOR (impressions:ImpressionCount) ON (impressions.customer, impressions.deliveryId)
