// The local servers of `npm run test:neo4j` (neo4j-local/), one per jest worker, all in one JVM: global-setup.js
// starts them, or finds them already started by this file run as a script.
//
// `node test/neo4j/local-servers.js <file> <count>` starts them and writes, once they are ready, what global-setup.js
// needs to use them (their URIs and password) to <file>, readable by its owner only; when it is signalled, it kills
// them and deletes their data. CI (.ci/run) starts them so while `npm ci` compiles the SQLite driver, and passes
// the file to the suites in NEO4J_TEST_SERVERS_FILE: the JVM's start, and its JIT compiling Neo4j's code, are then
// done on a core the install leaves idle. It needs nothing of node_modules. The JVM stops with it, however it ends
// (the JVM's stdin is its pipe).
'use strict';
const fs = require('node:fs');

/**
 * @typedef {{ uri: string, username: string, password: string, passwordGenerated?: boolean, line: string }} StartedServer
 * @typedef {{ servers: StartedServer[], stop: () => Promise<unknown>, kill?: () => Promise<unknown> }} StartedServers
 */

/** The temporary data folders a launcher's ready lines name (`data <folder>, deleted at stop`). */
const DELETED_AT_STOP = /; data (\S+), deleted at stop/;

/**
 * The local servers, one JVM for all of them: each a database server of its own (its port, its temporary folder), so
 * the JVM's start, and its JIT compiling Neo4j's code, are paid once for the run rather than once per server.
 * @param {number} count @returns {Promise<StartedServers>}
 */
async function startLocalServers(count) {
  const local = require('../../neo4j-local/neo4j-local');
  // Given no password, start() generates one (local-security.neo4j.test.ts checks it on these servers). The heap
  // the servers had as JVMs of their own, 1 GB each. A statement's plan is kept for the run: each file empties the
  // database and fills it again, so its statistics always differ from a plan's, and with Neo4j's interval of 10 s
  // every statement was planned again and again (docs/neo4j.md#the-neo4j-suites).
  // They live one run of the suites: C2 inlining less compiles a third less for queries about as fast.
  const server = await local.start({ servers: count, heap: `${count}g`, minReplanIntervalS: 3600, shallowInlining: true });
  const lines = server.line.split('\n');
  const { password } = server;
  return {
    servers: server.uris.map((uri, i) => ({
      uri,
      username: 'neo4j',
      password,
      passwordGenerated: true,
      line: `the local server of neo4j-local/ (${lines[i] ?? ''})`,
    })),
    stop: () => server.stop(),
    // At once, with the data thrown away: a clean stop writes a checkpoint of each database first, some 20 s at the
    // end of a run of the suites, for data nobody reads again.
    kill: async () => {
      server.child.kill('SIGKILL');
      await server.exited;
      for (const line of lines) {
        const folder = DELETED_AT_STOP.exec(line)?.[1];
        if (folder) fs.rmSync(folder, { recursive: true, force: true });
      }
    },
  };
}

/**
 * The servers a run of this file as a script wrote to `file`, once it exists (they are ready then); fails when they
 * did not start (the file says why), are not there within `timeoutMs`, or are not `count`.
 * @param {string} file @param {number} count @param {number} [timeoutMs]
 * @returns {Promise<StartedServer[]>}
 */
async function startedServers(file, count, timeoutMs = 300_000) {
  await new Promise((resolve, reject) => {
    const check = () => {
      if (fs.existsSync(file)) settle();
    };
    const timer = setTimeout(() => settle(new Error(`no servers were written to ${file} within ${timeoutMs / 1000} s`)), timeoutMs);
    /** @param {Error} [error] */
    const settle = (error) => {
      clearTimeout(timer);
      fs.unwatchFile(file, check);
      if (error) reject(error);
      else resolve(undefined);
    };
    // Node looks at the file's status every 200 ms, and calls check when it changed: when it was written.
    fs.watchFile(file, { interval: 200 }, check);
    check();
  });
  /** @type {StartedServer[] | { error: string }} */
  const servers = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (!Array.isArray(servers)) throw new Error(servers.error);
  if (servers.length !== count) throw new Error(`${file} names ${servers.length} servers, and the run has ${count} jest workers`);
  return servers;
}

async function main() {
  const [file, count] = process.argv.slice(2);
  if (!file || !/^[1-9]$/.test(count ?? '')) {
    process.stderr.write('usage: node test/neo4j/local-servers.js <file> <count>\n');
    process.exit(2);
  }
  // Written whole under another name, then renamed: a reader never sees half of it.
  const write = (/** @type {unknown} */ value) => {
    fs.writeFileSync(`${file}.partial`, JSON.stringify(value), { mode: 0o600 });
    fs.renameSync(`${file}.partial`, file);
  };
  let started;
  try {
    started = await startLocalServers(Number(count));
  } catch (e) {
    // Said to the suites waiting for the file, which stop at once with it.
    write({ error: e instanceof Error ? e.message : String(e) });
    throw e;
  }
  const { servers, stop, kill = stop } = started;
  write(servers);
  process.stdout.write(`${servers.map((s) => s.line).join('\n')}\n`);
  const stopAll = () => void kill().then(() => process.exit(0));
  for (const signal of /** @type {const} */ (['SIGTERM', 'SIGINT', 'SIGHUP'])) process.once(signal, stopAll);
}

if (require.main === module) {
  main().catch((e) => {
    process.stderr.write(`the local Neo4j servers did not start: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
}

module.exports = { startLocalServers, startedServers };
