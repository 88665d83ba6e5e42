// params:
// Every customer the store holds anything of, in code-point order (Neo4j orders the strings it reads by code
// point): what `npm run migrate` copies (src/migrate.ts), with the services stopped. It reads every vertex of the
// kinds that carry a customer, once; of the counters, those of the delivery, condition and message ids, which a
// customer whose deliveries were all deleted still holds (the ids it was given are never given again).
CALL () {
  MATCH (schema:Schema)
  RETURN schema.customer AS customer
  UNION
  MATCH (node:IdNode)
  RETURN node.customer AS customer
  UNION
  MATCH (entry:HistoryEntry)
  RETURN entry.customer AS customer
  UNION
  MATCH (delivery:Delivery)
  RETURN delivery.customer AS customer
  UNION
  MATCH (settings:Settings)
  RETURN settings.customer AS customer
  UNION
  MATCH (blocklist:Blocklist)
  RETURN blocklist.customer AS customer
  UNION
  MATCH (token:Token)
  RETURN token.customer AS customer
  UNION
  MATCH (sequence:Sequence)
  WHERE sequence.name IN ['delivery', 'condition', 'message']
  RETURN sequence.customer AS customer
}
RETURN customer
ORDER BY customer
