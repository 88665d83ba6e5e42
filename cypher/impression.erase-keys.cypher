// params: customer, ids
// An erase (docs/history-and-erasure.md): the idempotency keys of the impressions recorded against each erased value, whose
// stored answers hold the person's counts, through impression_key_id. The store adds {type: '', id: ''} to `ids`:
// keys an earlier version stored name no ID (impression.adopt-keys.cypher), and any may be the erased person's.
UNWIND $ids AS erased
MATCH (key:ImpressionKey {customer: $customer, type: erased.type, value: erased.id})
DELETE key
