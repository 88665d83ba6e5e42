// params: customer, ids, write
// max_holders: takes the write lock of each Id vertex in `ids` (creating those that do not exist yet), in the order
// given (the caller sorts them, so two writes never wait on each other in a cycle), and then counts each one's
// holders. Every write that adds a holder to an ID of a limited type takes this lock first and keeps it until
// commit, so concurrent writes count one after the other and never pass the limit together. The lock is taken by
// writing `lastWrite`, which reads nothing, for the reason node.lock.cypher gives; a dense Id vertex would get
// only a shared lock from the LINKED relationship a write creates, so that lock alone would not do. The count is
// the vertex's degree, which Neo4j keeps: it costs no read of the holders, however many there are. A vertex created
// here and then not linked (the limit was reached) goes with the transaction, which the store rolls back.
// Each Id vertex made here gets the labels node.create.cypher gives one (`type:`, `SecureId`), for Neo4j Browser.
WITH COLLECT { MATCH (secureType:IdType {customer: $customer, secure: true}) RETURN secureType.name } AS secureTypes
UNWIND $ids AS wanted
MERGE (id:Id {customer: $customer, type: wanted.type, value: wanted.id})
  ON CREATE SET id:$(['type:' + wanted.type] + CASE WHEN wanted.type IN secureTypes THEN ['SecureId'] ELSE [] END)
SET id.lastWrite = $write
WITH wanted, id
RETURN wanted.type AS type, wanted.id AS id, COUNT { (id)<-[:LINKED]-() } AS holders
