// params:
// One feed key per database (feed.key.cypher MERGEs it): two services that start at once on an empty database
// make one between them.
CREATE CONSTRAINT feedkey_feed_unique IF NOT EXISTS
FOR (key:FeedKey) REQUIRE key.feed IS UNIQUE
