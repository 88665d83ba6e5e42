// params: customer, counts
// What an export says the caps of the customer's deliveries counted: one ImpressionCount per delivery, ID (as it
// was recorded) and day (`counts`: {deliveryId, type, value, day, count}), as impression.count.cypher keeps them.
UNWIND $counts AS counted
CREATE (:ImpressionCount {customer: $customer, deliveryId: counted.deliveryId, type: counted.type, value: counted.value,
                          day: counted.day, count: counted.count})
