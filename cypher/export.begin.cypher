// params: customer, write
// The first statement of an export's transaction (docs/changes-and-export.md): takes the write lock of the customer's
// change counter, which every write of the customer but an impression takes in its last statement
// (history.append.cypher, customer.importing.cypher), and holds it until the export's transaction ends, which rolls
// back and so changes nothing. From here on no such write of the customer commits, so what the export reads is the
// state of every change up to `position`, and none after it: Neo4j reads committed records without a snapshot, and
// this is the one way it has to a consistent view. The customer's writes wait for the export meanwhile
// (NEO4J_EXPORT_TIMEOUT_MS bounds it). `given`: the last delivery, condition and message ids the customer was given,
// by sequence name.
MERGE (sequence:Sequence {customer: $customer, name: 'change'})
  ON CREATE SET sequence.last = 0
SET sequence.exportedBy = $write
RETURN sequence.last AS position,
       COLLECT {
         MATCH (given:Sequence {customer: $customer})
         WHERE given.name IN ['delivery', 'condition', 'message']
         RETURN {name: given.name, last: given.last}
       } AS given
