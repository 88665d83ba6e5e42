// params: names
// Which of the constraints and indexes cypher/schema/ creates (`names`) Neo4j has now: all of them, unless its
// database came back empty or someone dropped one. A constraint's own index carries the constraint's name.
SHOW INDEXES YIELD name
WHERE name IN $names
RETURN collect(name) AS present
