// params: customer
// The first step of abandoning an import: marks it abandoned, which takes the mark's lock, and so waits for a batch
// or finish under way (their first statement, import.touch.cypher, holds that lock until they commit). Every batch
// and finish after it finds the mark abandoned and is refused: nothing is written behind the deleting that follows
// (import.abandon-*.cypher).
MATCH (mark:Import {customer: $customer})
SET mark.abandoned = true
