// params: customer, lane
// The store call that wrote the last batch on one of the customer's import lanes (import.touch.cypher). No row when
// the customer is not marked. What a batch whose commit reply was lost looks at to know whether it committed.
MATCH (lane:ImportLane {customer: $customer, lane: $lane})
RETURN lane.lastWrite AS lastWrite
