// params: candidate
// The database's feed key (docs/changes-and-export.md), which keys the digests of the change feed's cursors so that
// no other store's cursor passes for one of this one. The first call on a database makes it of its random
// `candidate`; every later call, of any process, reads that one. Not part of any export: a database that another
// store's customers are imported or migrated into keeps its own.
MERGE (key:FeedKey {feed: 'changes'})
  ON CREATE SET key.key = $candidate
RETURN key.key AS key
