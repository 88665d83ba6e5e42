// params: customer, write, lanes
// Marks the customer as importing (docs/changes-and-export.md): the (:Import) vertex says so until the import
// finishes or is abandoned (import.unmark.cypher); `touchedAt` is when it began, and its lease (ImportLease) when its
// process last said it is alive (import.alive.cypher), by Neo4j's clock, which every service process on the database
// shares. Its `lanes` (ImportLane, numbered from 0) are what its batches lock, one each, so that as many batches as
// there are lanes write at once (import.touch.cypher). `begun` is false when another import holds the mark: the
// MERGE waits for the key's lock (import_customer_unique), so of two begins one makes the mark and the other finds
// it. `begunBy` names the store call, so an attempt run again after its commit reply was lost finds its own mark,
// and begun. `holding`: whether the customer has what an import writes, history included (undoing an import deletes
// the customer's history), which refuses the import (customer_not_empty) and rolls the mark back; a separation needs
// nodes. Settings, blocklist and tokens do not count. Each look is one seek of an index whose first property is the
// customer (the hints, and the existence predicates that let a composite index be seeked by it).
//
// The customer's change counter is locked first (a write of its own value), as every write that appends history
// locks it last (history.append.cypher): such a write that took it before waits here until it commits, and is then
// seen holding; one that takes it after finds the mark, and is refused. So nothing moves the counter while the
// customer is marked: `last` is the position the import's entries follow (import.history.cypher), and the import
// moves the counter past them when it finishes (import.feed-head.cypher).
MERGE (sequence:Sequence {customer: $customer, name: 'change'})
  ON CREATE SET sequence.last = 0
SET sequence.last = sequence.last
WITH sequence.last AS last
WITH last, EXISTS { MATCH (schema:Schema {customer: $customer}) } OR
     EXISTS {
       MATCH (node:IdNode {customer: $customer})
       USING INDEX node:IdNode(customer, schema)
       WHERE node.schema IS NOT NULL
     } OR
     EXISTS {
       MATCH (delivery:Delivery {customer: $customer})
       USING INDEX delivery:Delivery(customer, deliveryId)
       WHERE delivery.deliveryId IS NOT NULL
     } OR
     EXISTS {
       MATCH (entry:HistoryEntry {customer: $customer})
       USING INDEX entry:HistoryEntry(customer, seq)
       WHERE entry.seq IS NOT NULL
     } AS holding
MERGE (mark:Import {customer: $customer})
  ON CREATE SET mark.begunBy = $write, mark.touchedAt = datetime.realtime()
MERGE (lease:ImportLease {customer: $customer})
  ON CREATE SET lease.aliveAt = datetime.realtime()
FOREACH (n IN range(0, $lanes - 1) | MERGE (:ImportLane {customer: $customer, lane: n}))
RETURN mark.begunBy = $write AS begun, holding, last
