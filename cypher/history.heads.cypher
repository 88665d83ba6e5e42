// params: customers
// The change counters of the customers some call waits on (docs/changes-and-export.md): how a waiting call learns of
// a commit made by another service process. One statement for every waiting call of the process.
UNWIND $customers AS customer
OPTIONAL MATCH (counter:Sequence {customer: customer, name: 'change'})
RETURN customer, coalesce(counter.last, 0) AS head
