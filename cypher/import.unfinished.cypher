// params: idleMs
// The customers marked as importing whose import has written nothing for `idleMs` milliseconds or more, by Neo4j's
// clock (import.begin.cypher, import.touch.cypher): imports an interrupted process left. Few marks exist at a time,
// so reading all of them is cheap.
MATCH (mark:Import)
WHERE mark.touchedAt <= datetime.realtime() - duration({milliseconds: $idleMs})
RETURN mark.customer AS customer
