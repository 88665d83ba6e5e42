// Global setup of `npm run test:neo4j`: finds the Neo4j the suites run against and passes it to them in NEO4J_*.
// NEO4J_URI set: that database (it is emptied before each test file). Otherwise a container of NEO4J_TEST_IMAGE,
// when Docker (or another container runtime testcontainers finds) is there. Neither: stop at once, saying why.
const { randomBytes } = require('node:crypto');
const { NEO4J_TEST_IMAGE } = require('./image');

/** Stops the run at once, in one line, when NEO4J_URI does not answer: otherwise every test fails on its own, slowly. */
async function checkReachable(uri) {
  const neo4j = require('neo4j-driver');
  const password = process.env.NEO4J_PASSWORD;
  const auth = password ? neo4j.auth.basic(process.env.NEO4J_USERNAME || 'neo4j', password) : undefined;
  const driver = neo4j.driver(uri, auth, { connectionTimeout: 5000 });
  try {
    await driver.verifyConnectivity({ database: process.env.NEO4J_DATABASE || 'neo4j' });
  } catch (e) {
    process.stderr.write(`Neo4j suites cannot run: NEO4J_URI=${uri} does not answer (${e instanceof Error ? e.message.split('\n')[0] : String(e)}).\n`);
    process.exit(1);
  } finally {
    await driver.close();
  }
}

module.exports = async function globalSetup() {
  if (process.env.NEO4J_URI) {
    await checkReachable(process.env.NEO4J_URI);
    process.stdout.write(`\nNeo4j suites: using NEO4J_URI=${process.env.NEO4J_URI} (database ${process.env.NEO4J_DATABASE || 'neo4j'}); its data is deleted before each test file.\n`);
    return;
  }
  const { getContainerRuntimeClient } = require('testcontainers');
  try {
    await getContainerRuntimeClient();
  } catch {
    process.stderr.write(
      'Neo4j suites cannot run: no Docker (container runtime) found and NEO4J_URI is not set; start Docker, or set NEO4J_URI (with NEO4J_USERNAME, NEO4J_PASSWORD, NEO4J_DATABASE) to a Neo4j 5 whose data may be deleted.\n',
    );
    process.exit(1);
  }
  const { Neo4jContainer } = require('@testcontainers/neo4j');
  const password = randomBytes(12).toString('hex');
  process.stdout.write(`\nNeo4j suites: starting ${NEO4J_TEST_IMAGE}...\n`);
  const container = await new Neo4jContainer(NEO4J_TEST_IMAGE).withPassword(password).start();
  globalThis.__IDLINK_NEO4J_CONTAINER__ = container;
  process.env.NEO4J_URI = container.getBoltUri();
  process.env.NEO4J_USERNAME = container.getUsername();
  process.env.NEO4J_PASSWORD = container.getPassword();
  process.env.NEO4J_DATABASE = 'neo4j';
};
