// Global setup of `npm run test:neo4j`: picks the Neo4j the suites run against (extensions.md §1) and passes it to
// them in NEO4J_*. In this order: NEO4J_URI (that database; it is emptied before each test file); a container of
// NEO4J_TEST_IMAGE when Docker is there; the local server of neo4j-local/ when java and mvn are there. None of
// them: stop at once, in one line saying why. NEO4J_TEST_SERVER=local goes straight to the local server. It prints
// which one it used and the server's version, and global-teardown.js stops whatever it started.
const { randomBytes } = require('node:crypto');
const { NEO4J_TEST_IMAGE } = require('./image');

const cannotRun = (reason) => {
  process.stderr.write(`Neo4j suites cannot run: ${reason}\n`);
  process.exit(1);
};

/** The server's name, version and edition (CALL dbms.components()); stops the run at once when it does not answer. */
async function describeServer(uri) {
  const neo4j = require('neo4j-driver');
  const password = process.env.NEO4J_PASSWORD;
  const auth = password ? neo4j.auth.basic(process.env.NEO4J_USERNAME || 'neo4j', password) : undefined;
  const driver = neo4j.driver(uri, auth, { connectionTimeout: 5000 });
  try {
    await driver.verifyConnectivity({ database: process.env.NEO4J_DATABASE || 'neo4j' });
    const { records } = await driver.executeQuery('CALL dbms.components() YIELD name, versions, edition RETURN name, versions[0] AS version, edition', {}, {
      database: process.env.NEO4J_DATABASE || 'neo4j',
    });
    return records.map((r) => `${r.get('name')} ${r.get('version')} ${r.get('edition')}`).join(', ');
  } catch (e) {
    return cannotRun(`NEO4J_URI=${uri} does not answer (${e instanceof Error ? e.message.split('\n')[0] : String(e)}).`);
  } finally {
    await driver.close();
  }
}

async function hasContainerRuntime() {
  try {
    await require('testcontainers').getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

async function startContainer() {
  const { Neo4jContainer } = require('@testcontainers/neo4j');
  const password = randomBytes(12).toString('hex');
  process.stdout.write(`\nNeo4j suites: starting ${NEO4J_TEST_IMAGE}...\n`);
  const container = await new Neo4jContainer(NEO4J_TEST_IMAGE).withPassword(password).start();
  globalThis.__IDLINK_NEO4J_STOP__ = () => container.stop();
  process.env.NEO4J_URI = container.getBoltUri();
  process.env.NEO4J_USERNAME = container.getUsername();
  process.env.NEO4J_PASSWORD = container.getPassword();
  return `a container of ${NEO4J_TEST_IMAGE}`;
}

async function startLocalServer() {
  const local = require('../../neo4j-local/neo4j-local');
  const password = randomBytes(12).toString('hex');
  process.stdout.write('\nNeo4j suites: starting the local Neo4j server (neo4j-local/)...\n');
  let server;
  try {
    server = await local.start({ password });
  } catch (e) {
    return cannotRun(`the local Neo4j server did not start: ${e instanceof Error ? e.message : String(e)}`);
  }
  globalThis.__IDLINK_NEO4J_STOP__ = () => server.stop();
  process.env.NEO4J_URI = server.uri;
  process.env.NEO4J_USERNAME = 'neo4j';
  process.env.NEO4J_PASSWORD = password;
  return `the local server of neo4j-local/ (${server.line})`;
}

/** dist/ as `npm start` builds it: the multi-process and fault suites start the real server. */
function buildDist() {
  const { execFileSync } = require('node:child_process');
  const path = require('node:path');
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: path.resolve(__dirname, '..', '..'), stdio: 'inherit' });
}

module.exports = async function globalSetup() {
  buildDist();
  process.env.NEO4J_DATABASE = process.env.NEO4J_DATABASE || 'neo4j';
  // NEO4J_TEST_SERVER=local skips the container (CI: the issue is to prove the local server on every landing).
  const forceLocal = process.env.NEO4J_TEST_SERVER === 'local';
  let which;
  if (process.env.NEO4J_URI && !forceLocal) {
    which = `NEO4J_URI=${process.env.NEO4J_URI} (its data is deleted before each test file)`;
  } else if (!forceLocal && (await hasContainerRuntime())) {
    which = await startContainer();
  } else {
    const missing = require('../../neo4j-local/neo4j-local').missingTools();
    if (missing) {
      cannotRun(
        `NEO4J_URI is not set, no Docker (container runtime) was found, and the local server cannot run (${missing}). Set NEO4J_URI (with NEO4J_USERNAME, NEO4J_PASSWORD, NEO4J_DATABASE) to a Neo4j 5 whose data may be deleted, start Docker, or install java 17+ and mvn.`,
      );
    }
    which = await startLocalServer();
  }
  let version;
  try {
    version = await describeServer(process.env.NEO4J_URI);
  } catch (e) {
    if (globalThis.__IDLINK_NEO4J_STOP__) await globalThis.__IDLINK_NEO4J_STOP__();
    throw e;
  }
  process.stdout.write(`Neo4j suites: using ${which}; server: ${version}; database ${process.env.NEO4J_DATABASE}.\n`);
};
