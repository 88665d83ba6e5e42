// params: names
// Which of the constraints and indexes named (`names`: those cypher/schema/ creates, and maybe those it drops) Neo4j
// has now, and which of them are online: all it creates, unless its database came back empty or someone dropped
// one. A constraint's own index carries the constraint's name.
SHOW INDEXES YIELD name, state
WHERE name IN $names
RETURN collect(name) AS present, collect(CASE WHEN state = 'ONLINE' THEN name END) AS online
