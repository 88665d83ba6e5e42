// Global setup of `npm run test:neo4j`: picks the Neo4j the suites run against (docs/neo4j.md) and passes it to
// them in NEO4J_TEST_*. In this order: NEO4J_TEST_URI (that database, only if it is empty or the suites' own: see
// test-database.js); a container of NEO4J_TEST_IMAGE when Docker is there; the local server of neo4j-local/ when
// java and mvn are there. None of them: stop at once, in one line saying why. NEO4J_TEST_SERVER=local goes straight
// to the local server. NEO4J_URI and the service's other NEO4J_* are never used: they may name production. It
// prints which one it used and the server's version, and global-teardown.js stops whatever it started.
const { randomBytes } = require('node:crypto');
const { NEO4J_TEST_IMAGE } = require('./image');
const { ForeignDatabaseError, claimTestDatabase } = require('./test-database');
const { build } = require('../build');

/** @param {string} reason @returns {never} */
const cannotRun = (reason) => {
  process.stderr.write(`Neo4j suites cannot run: ${reason}\n`);
  process.exit(1);
};

/**
 * The server's name, version and edition (CALL dbms.components()), after making its database the suites' own;
 * stops the run at once, in one line, when it does not answer or holds someone else's data.
 *
 * @param {string} uri
 */
async function claimServer(uri) {
  const neo4j = require('neo4j-driver');
  const password = process.env.NEO4J_TEST_PASSWORD;
  const database = process.env.NEO4J_TEST_DATABASE || 'neo4j';
  const auth = password ? neo4j.auth.basic(process.env.NEO4J_TEST_USERNAME || 'neo4j', password) : undefined;
  const driver = neo4j.driver(uri, auth, { connectionTimeout: 5000 });
  try {
    await driver.verifyConnectivity({ database });
    await claimTestDatabase(driver, database, `database ${database} at ${uri}`);
    const { records } = await driver.executeQuery(
      'CALL dbms.components() YIELD name, versions, edition RETURN name, versions[0] AS version, edition',
      {},
      { database },
    );
    return records.map((r) => `${r.get('name')} ${r.get('version')} ${r.get('edition')}`).join(', ');
  } catch (e) {
    if (e instanceof ForeignDatabaseError) return cannotRun(e.message);
    return cannotRun(`NEO4J_TEST_URI=${uri} does not answer (${e instanceof Error ? e.message.split('\n')[0] : String(e)}).`);
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
  process.env.NEO4J_TEST_URI = container.getBoltUri();
  process.env.NEO4J_TEST_USERNAME = container.getUsername();
  process.env.NEO4J_TEST_PASSWORD = container.getPassword();
  process.env.NEO4J_TEST_DATABASE = 'neo4j';
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
  process.env.NEO4J_TEST_URI = server.uri;
  process.env.NEO4J_TEST_USERNAME = 'neo4j';
  process.env.NEO4J_TEST_PASSWORD = password;
  process.env.NEO4J_TEST_DATABASE = 'neo4j';
  return `the local server of neo4j-local/ (${server.line})`;
}

/** The service's own connection settings: they may name production, so the suites drop them unread. */
const SERVICE_SETTINGS = ['NEO4J_URI', 'NEO4J_USERNAME', 'NEO4J_PASSWORD', 'NEO4J_DATABASE'];

module.exports = async function globalSetup() {
  const ignored = SERVICE_SETTINGS.filter((name) => process.env[name] !== undefined);
  for (const name of ignored) delete process.env[name];
  if (ignored.length > 0)
    process.stdout.write(`\nNeo4j suites: ignoring ${ignored.join(', ')} (the service's settings); they use NEO4J_TEST_URI or a server of their own.\n`);
  process.env.NEO4J_TEST_DATABASE = process.env.NEO4J_TEST_DATABASE || 'neo4j';
  // NEO4J_TEST_SERVER=local skips the container (CI: the issue is to prove the local server on every landing).
  const forceLocal = process.env.NEO4J_TEST_SERVER === 'local';
  let which;
  if (process.env.NEO4J_TEST_URI && !forceLocal) {
    which = `NEO4J_TEST_URI=${process.env.NEO4J_TEST_URI} (all but its marker node is deleted before each test file)`;
  } else if (!forceLocal && (await hasContainerRuntime())) {
    which = await startContainer();
  } else {
    const missing = require('../../neo4j-local/neo4j-local').missingTools();
    if (missing) {
      cannotRun(
        `NEO4J_TEST_URI is not set, no Docker (container runtime) was found, and the local server cannot run (${missing}). Set NEO4J_TEST_URI (with NEO4J_TEST_USERNAME, NEO4J_TEST_PASSWORD, NEO4J_TEST_DATABASE) to an empty Neo4j 5 whose data may be deleted, start Docker, or install java 17+ and mvn.`,
      );
    }
    which = await startLocalServer();
  }
  let version;
  try {
    version = await claimServer(process.env.NEO4J_TEST_URI || '');
  } catch (e) {
    if (globalThis.__IDLINK_NEO4J_STOP__) await globalThis.__IDLINK_NEO4J_STOP__();
    throw e;
  }
  // Built after the database is checked, when the sources changed (test/build.js): a refused database stops the run
  // before anything else happens. The multi-process and fault suites start the real server; GET /explore serves the page.
  build();
  process.stdout.write(`Neo4j suites: using ${which}; server: ${version}; database ${process.env.NEO4J_TEST_DATABASE}.\n`);
};
