// params:
// Finds the impressions recorded against an ID, of every delivery (person.counts.cypher, impression.erase.cypher).
CREATE INDEX impression_id IF NOT EXISTS
FOR (impressions:ImpressionCount) ON (impressions.customer, impressions.type, impressions.value)
