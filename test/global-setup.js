// Builds dist/ and the explorer page when their sources changed (test/build.js): the process suites start the real
// server exactly as `npm start` does, and GET /explore serves dist/explorer, in-process too.
const { build } = require('./build');

module.exports = async function globalSetup() {
  build();
  process.stdout.write(
    '\nNeo4j suites not run here: npm run test:neo4j (a local Neo4j from Maven Central, Docker, or NEO4J_TEST_URI=bolt://… NEO4J_TEST_PASSWORD=…)\n',
  );
};
