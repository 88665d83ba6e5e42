// params: from, other
// Makes the locked node `from` stop holding every ID it shares with the locked node `other` (those
// separation.shared read in the same transaction), for a ban that removes them from `from`. One statement however
// many they are: it walks `from`'s IDs once, and tells a shared one by the ID's link to `other` (Expand(Into), from
// whichever end holds fewer links), where node.unlink-many would find each ID again among `from`'s links, a scan of
// all of them per ID. Every Id vertex stays: `other` still holds it.
MATCH (from:IdNode)
WHERE elementId(from) = $from
MATCH (other:IdNode)
WHERE elementId(other) = $other
MATCH (from)-[held:LINKED]->(id:Id)<-[:LINKED]-(other)
DELETE held
RETURN count(held) AS unlinked
