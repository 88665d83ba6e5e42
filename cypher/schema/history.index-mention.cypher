// params:
// Finds the history entries that name a value, which an erase rewrites (history.mentioning.cypher). Neo4j indexes
// no list elements, so each entry names its values a second time as MENTIONS relationships to itself, one per
// value (the JSON of [type, value], at most about 6.2 KB: within the 8 KB a range index takes).
CREATE INDEX history_mention IF NOT EXISTS
FOR ()-[mention:MENTIONS]-() ON (mention.customer, mention.value)
