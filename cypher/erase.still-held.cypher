// params: customer, ids
// Which of `ids` some node still holds (their Id vertex exists: see idtype.held.cypher).
UNWIND $ids AS wanted
MATCH (id:Id {customer: $customer, type: wanted.type, value: wanted.id})
RETURN id.type AS type, id.value AS id
