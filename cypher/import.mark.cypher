// params: customer
// The customer's import mark: the store call that wrote the last batch (import.touch.cypher). No row when the
// customer is not marked. What a batch or a finish whose commit reply was lost looks at to know whether it committed.
MATCH (mark:Import {customer: $customer})
RETURN mark.lastWrite AS lastWrite
