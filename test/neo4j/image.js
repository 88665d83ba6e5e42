// The Neo4j image the Neo4j suites start (with Docker), pinned to one patch of the 5.26 LTS line: the version of
// neo4j-local/pom.xml. docker-compose.yml runs the same one (test/cypher/store-files.test.ts checks all three agree).
module.exports = { NEO4J_TEST_IMAGE: 'neo4j:5.26.30-community' };
