// Global setup of `npm run test:neo4j`: picks the Neo4j the suites run against (docs/neo4j.md) and passes it to
// them in NEO4J_TEST_*. In this order: NEO4J_TEST_URI (that database, only if it is empty or the suites' own: see
// test-database.js); containers of NEO4J_TEST_IMAGE when Docker is there; local servers of neo4j-local/ when
// java and mvn are there. None of them: stop at once, in one line saying why. NEO4J_TEST_SERVER=local goes straight
// to the local servers. NEO4J_URI and the service's other NEO4J_* are never used: they may name production. It
// prints which one it used and the server's version, and global-teardown.js stops whatever it started.
//
// A server it starts itself serves one jest worker: it starts as many as jest has workers (jest.neo4j.config.js),
// each with its own database, and setup-file.ts points each worker at its own (NEO4J_TEST_SERVERS, by JEST_WORKER_ID).
// The files of one worker run one after the other, so each still starts from a database nothing else writes to. The
// local servers are all in one JVM (local-servers.js), which so starts once and compiles Neo4j's code once; with
// NEO4J_TEST_SERVERS_FILE, the file local-servers.js run as a script wrote, it uses the servers that script started.
const { randomBytes } = require('node:crypto');
const { NEO4J_TEST_IMAGE } = require('./image');
const { ForeignDatabaseError, claimTestDatabase } = require('./test-database');
const { build } = require('../build');
const { startLocalServers: startLocal, startedServers } = require('./local-servers');

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
 * @param {{ username?: string, password?: string }} [given] the user; NEO4J_TEST_USERNAME and NEO4J_TEST_PASSWORD by default
 */
async function claimServer(uri, given = { username: process.env.NEO4J_TEST_USERNAME, password: process.env.NEO4J_TEST_PASSWORD }) {
  const neo4j = require('neo4j-driver');
  const { password } = given;
  const database = process.env.NEO4J_TEST_DATABASE || 'neo4j';
  const auth = password ? neo4j.auth.basic(given.username || 'neo4j', password) : undefined;
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

/**
 * @typedef {import('./local-servers').StartedServer} StartedServer
 * @typedef {import('./local-servers').StartedServers} StartedServers
 */

/** @returns {Promise<StartedServer & { stop(): Promise<unknown> }>} */
async function startContainer() {
  const { Neo4jContainer } = require('@testcontainers/neo4j');
  const password = randomBytes(12).toString('hex');
  const container = await new Neo4jContainer(NEO4J_TEST_IMAGE).withPassword(password).start();
  return {
    uri: container.getBoltUri(),
    username: container.getUsername(),
    password: container.getPassword(),
    line: `a container of ${NEO4J_TEST_IMAGE}`,
    stop: () => container.stop(),
  };
}

/** @param {number} count @returns {Promise<StartedServers>} */
async function startLocalServers(count) {
  // Started already (NEO4J_TEST_SERVERS_FILE, as CI does: local-servers.js): whoever started them stops them.
  const file = process.env.NEO4J_TEST_SERVERS_FILE;
  try {
    if (file) return { servers: await startedServers(file, count), stop: async () => undefined };
    return await startLocal(count);
  } catch (e) {
    return cannotRun(`the local Neo4j server did not start: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * `count` containers side by side; when one fails to start, the others are stopped.
 * @param {number} count @returns {Promise<StartedServers>}
 */
async function startContainers(count) {
  const started = await Promise.allSettled(Array.from({ length: count }, () => startContainer()));
  const servers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const stop = () => Promise.all(servers.map((server) => server.stop()));
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    await stop();
    throw failed.reason;
  }
  return { servers, stop };
}

/**
 * Starts `count` servers, one per jest worker; the first is NEO4J_TEST_URI (a run in band uses only it), and all of
 * them are listed in NEO4J_TEST_SERVERS for setup-file.ts.
 * @param {(count: number) => Promise<StartedServers>} startAll @param {number} count @param {string} what what it does, said first
 */
async function startServers(startAll, count, what) {
  process.stdout.write(`\nNeo4j suites: ${what}...\n`);
  const { servers, stop } = await startAll(count);
  globalThis.__IDLINK_NEO4J_STOP__ = stop;
  const [first] = servers;
  if (!first) throw new Error('no server started');
  process.env.NEO4J_TEST_URI = first.uri;
  process.env.NEO4J_TEST_USERNAME = first.username;
  process.env.NEO4J_TEST_PASSWORD = first.password;
  process.env.NEO4J_TEST_DATABASE = 'neo4j';
  process.env.NEO4J_TEST_SERVERS = JSON.stringify(
    servers.map(({ uri, username, password, passwordGenerated }) => ({ uri, username, password, ...(passwordGenerated ? { passwordGenerated } : {}) })),
  );
  return servers.map((server) => server.line).join('; ');
}

/** The service's own connection settings: they may name production, so the suites drop them unread. */
const SERVICE_SETTINGS = ['NEO4J_URI', 'NEO4J_USERNAME', 'NEO4J_PASSWORD', 'NEO4J_DATABASE'];

/**
 * @param {{ maxWorkers?: number }} [globalConfig] jest's; undefined when run by hand (one server)
 */
module.exports = async function globalSetup(globalConfig) {
  const ignored = SERVICE_SETTINGS.filter((name) => process.env[name] !== undefined);
  for (const name of ignored) delete process.env[name];
  if (ignored.length > 0)
    process.stdout.write(`\nNeo4j suites: ignoring ${ignored.join(', ')} (the service's settings); they use NEO4J_TEST_URI or a server of their own.\n`);
  process.env.NEO4J_TEST_DATABASE = process.env.NEO4J_TEST_DATABASE || 'neo4j';
  delete process.env.NEO4J_TEST_SERVERS;
  const workers = Math.max(1, globalConfig?.maxWorkers ?? 1);
  // NEO4J_TEST_SERVER=local skips the container (CI proves the local server on every landing).
  const forceLocal = process.env.NEO4J_TEST_SERVER === 'local';
  let which;
  if (process.env.NEO4J_TEST_URI && !forceLocal) {
    // One database, which the files share: they must run one at a time (jest.neo4j.config.js asks for one worker).
    if (workers > 1) cannotRun(`NEO4J_TEST_URI names one database, which the test files share: run them in one worker (--runInBand), not ${workers}.`);
    which = `NEO4J_TEST_URI=${process.env.NEO4J_TEST_URI} (all but its marker node is deleted before each test file)`;
  } else if (!forceLocal && (await hasContainerRuntime())) {
    which = await startServers(
      startContainers,
      workers,
      workers === 1 ? `starting a container of ${NEO4J_TEST_IMAGE}` : `starting ${workers} containers of ${NEO4J_TEST_IMAGE}, one per jest worker`,
    );
  } else {
    const missing = require('../../neo4j-local/neo4j-local').missingTools();
    if (missing) {
      cannotRun(
        `NEO4J_TEST_URI is not set, no Docker (container runtime) was found, and the local server cannot run (${missing}). Set NEO4J_TEST_URI (with NEO4J_TEST_USERNAME, NEO4J_TEST_PASSWORD, NEO4J_TEST_DATABASE) to an empty Neo4j 5 whose data may be deleted, start Docker, or install java 17+ and mvn.`,
      );
    }
    // Built once here: the servers starting side by side would each run Maven otherwise.
    try {
      require('../../neo4j-local/neo4j-local').ensureBuilt();
    } catch (e) {
      cannotRun(`the local Neo4j server did not start: ${e instanceof Error ? e.message : String(e)}`);
    }
    const servers = workers === 1 ? 'the local Neo4j server (neo4j-local/)' : `${workers} local Neo4j servers (neo4j-local/) in one JVM, one per jest worker`;
    which = await startServers(
      startLocalServers,
      workers,
      process.env.NEO4J_TEST_SERVERS_FILE
        ? `waiting for ${servers}, started by local-servers.js (${process.env.NEO4J_TEST_SERVERS_FILE})`
        : `starting ${servers}`,
    );
  }
  /** @type {Array<{ uri: string, username: string, password: string }>} */
  const servers = process.env.NEO4J_TEST_SERVERS ? JSON.parse(process.env.NEO4J_TEST_SERVERS) : [];
  let version;
  try {
    if (servers.length === 0) version = await claimServer(process.env.NEO4J_TEST_URI || '');
    else version = (await Promise.all(servers.map((server) => claimServer(server.uri, server))))[0];
  } catch (e) {
    if (globalThis.__IDLINK_NEO4J_STOP__) await globalThis.__IDLINK_NEO4J_STOP__();
    throw e;
  }
  // Built after the database is checked, when the sources changed (test/build.js): a refused database stops the run
  // before anything else happens. The multi-process and fault suites start the real server; GET /explore serves the page.
  build();
  process.stdout.write(`Neo4j suites: using ${which}; server: ${version}; database ${process.env.NEO4J_TEST_DATABASE}.\n`);
};
