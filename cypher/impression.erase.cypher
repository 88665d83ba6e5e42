// params: customer, ids
// An erase (docs/history-and-erasure.md): the impressions recorded against each erased value.
UNWIND $ids AS erased
MATCH (impressions:ImpressionCount {customer: $customer, type: erased.type, value: erased.id})
DELETE impressions
