// params: customer, name, count
// Takes the customer's next `count` ids of a sequence (delivery, condition, message; catalogue, whose count is the
// version of the customer's deliveries: delivery.catalogue.cypher) and returns the last of them;
// each customer has its own counters, so its ids say nothing of other customers, and none is given out twice.
// The SET reads what it writes, so Cypher takes the counter's write lock before reading (direct dependency):
// concurrent transactions take turns, each seeing the previous one's committed value. A first MERGE of the same
// counter by two transactions is safe under the (customer, name) uniqueness constraint.
MERGE (sequence:Sequence {customer: $customer, name: $name})
  ON CREATE SET sequence.last = 0
SET sequence.last = sequence.last + $count
RETURN sequence.last AS last
