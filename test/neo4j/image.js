// The Neo4j image the Neo4j suites start, pinned to one patch of the 5.26 LTS line; docker-compose.yml runs the
// same one (test/cypher/store-files.test.ts checks that they agree).
module.exports = { NEO4J_TEST_IMAGE: 'neo4j:5.26.12-community' };
