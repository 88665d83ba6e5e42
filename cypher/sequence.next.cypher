// params: name, count
// Takes the next `count` ids of a sequence (delivery, condition, message) and returns the last of them; ids are
// never given out twice. The SET reads what it writes, so Cypher takes the counter's write lock before reading
// (direct dependency): concurrent transactions take turns, each seeing the previous one's committed value.
MERGE (sequence:Sequence {name: $name})
  ON CREATE SET sequence.last = 0
SET sequence.last = sequence.last + $count
RETURN sequence.last AS last
