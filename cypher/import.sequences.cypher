// params: customer, given
// The delivery, condition and message ids an export says its customer was given (`given`: {name, last}), deleted
// deliveries' included: each counter is raised to that, never lowered, so that sequence.next.cypher gives none of
// them again. Counters stay raised when the import is abandoned: an id once given is never given twice.
UNWIND $given AS counter
MERGE (sequence:Sequence {customer: $customer, name: counter.name})
  ON CREATE SET sequence.last = 0
SET sequence.last = CASE WHEN counter.last > sequence.last THEN counter.last ELSE sequence.last END
