// params: customer
// Abandoning an import: deletes the customer's impression counts, in transactions of 10,000, found by a seek of
// the (customer, deliveryId) index. The import wrote no idempotency keys; those of deliveries deleted before it
// are left to the sweep of deleted deliveries and to retention, as any are.
MATCH (impressions:ImpressionCount {customer: $customer})
USING INDEX impressions:ImpressionCount(customer, deliveryId)
WHERE impressions.deliveryId IS NOT NULL
CALL (impressions) {
  DELETE impressions
} IN TRANSACTIONS OF 10000 ROWS
