// params: customer, deliveryId, write
// The answer of the impression the store call `write` counted, when that call's transaction committed
// (impression.count.cypher sets both): its delivery count, person total and person today. No row otherwise. An
// impression whose commit reply was lost asks this before running again, so that it is not counted twice.
MATCH (delivery:Delivery {customer: $customer, deliveryId: $deliveryId})
WHERE delivery.countedBy = $write
RETURN delivery.countedCounts AS answerCounts
