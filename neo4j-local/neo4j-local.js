#!/usr/bin/env node
// Builds (on first use) and runs the local Neo4j server of this folder with plain `java`, never `mvn exec:java`,
// so that signals reach the JVM. `npm run neo4j:local` runs it in the foreground; test/neo4j/global-setup.js,
// the Neo4j fault tests and the bench start it through start(). `npm run neo4j:local -- admin …` and admin() run
// neo4j-admin (dump, load) on the data folder of a stopped server. See README.md beside this file.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');

const HERE = __dirname;
const POM = path.join(HERE, 'pom.xml');
const SOURCES = path.join(HERE, 'src', 'main');
const CLASSES = path.join(HERE, 'target', 'classes');
const BUILT_CLASS = path.join(CLASSES, 'dev', 'idlink', 'neo4jlocal', 'LocalNeo4j.class');
const CLASSPATH_FILE = path.join(HERE, 'target', 'classpath.txt');
const MAIN_CLASS = 'dev.idlink.neo4jlocal.LocalNeo4j';
// What the Browser gets at /analyst/ (style.grass, and guide.html made from the .cypher files).
const ANALYST_DIR = path.join(HERE, '..', 'cypher', 'analyst');

/**
 * The JVM options Neo4j 5.26's own launcher passes (conf/neo4j.conf, server.jvm.additional), with a bounded heap.
 * The page cache is bounded by the launcher itself (NEO4J_LOCAL_PAGECACHE_MB, default 1024: the 1M-ID bench store, about 890 MB, fits).
 * `quickJit` stops the JIT at its first compiler (C1, -XX:TieredStopAtLevel=1), for a server that lives minutes, as
 * the test suites' do: there the second compiler (C2) took as much CPU as the queries themselves, and its faster
 * code never paid that back. A server that serves for long, and the bench, keep both.
 * `shallowInlining` keeps both compilers but has C2 inline less deeply (-XX:MaxInlineLevel=6 where JDK 17 allows 15,
 * smaller methods inlined), for a server that lives one run of the suites, some ten minutes of varied statements:
 * there C2 spent about as much CPU compiling as the queries took, and inlining less cut its compiling by about 40% while
 * the queries took about as long (bench/results/ci/README.md).
 */
/** @param {string} heap @param {{ quickJit?: boolean, shallowInlining?: boolean }} [options] */
function jvmOptions(heap, { quickJit = false, shallowInlining = false } = {}) {
  return [
    `-Xms${heap}`,
    `-Xmx${heap}`,
    ...(quickJit ? ['-XX:TieredStopAtLevel=1'] : []),
    ...(shallowInlining ? ['-XX:MaxInlineLevel=6', '-XX:InlineSmallCode=500', '-XX:FreqInlineSize=150'] : []),
    '-XX:+UseG1GC',
    '-XX:-OmitStackTraceInFastThrow',
    '-XX:+UnlockExperimentalVMOptions',
    '-XX:+TrustFinalNonStaticFields',
    '-XX:+DisableExplicitGC',
    '-XX:+ExitOnOutOfMemoryError',
    '-Djdk.nio.maxCachedBufferSize=1024',
    '-Dio.netty.tryReflectionSetAccessible=true',
    '-Djdk.tls.ephemeralDHKeySize=2048',
    '-Djdk.tls.rejectClientInitiatedRenegotiation=true',
    '-XX:FlightRecorderOptions=stackdepth=256',
    '-XX:+UnlockDiagnosticVMOptions',
    '-XX:+DebugNonSafepoints',
    '--add-opens=java.base/java.nio=ALL-UNNAMED',
    '--add-opens=java.base/java.io=ALL-UNNAMED',
    '--add-opens=java.base/sun.nio.ch=ALL-UNNAMED',
    '--enable-native-access=ALL-UNNAMED',
    '-Dlog4j2.disable.jmx=true',
  ];
}

/** Why the local server cannot run here (no java, or no mvn while a build is needed), or undefined when it can. */
function missingTools() {
  const tools = needsBuild() ? ['java', 'mvn'] : ['java'];
  const missing = tools.filter((tool) => {
    const probe = spawnSync(tool, [tool === 'java' ? '-version' : '--version'], { stdio: 'ignore' });
    return probe.error !== undefined || probe.status !== 0;
  });
  return missing.length === 0 ? undefined : `${missing.join(' and ')} not found on PATH`;
}

const mtime = (/** @type {string} */ file) => (fs.existsSync(file) ? fs.statSync(file).mtimeMs : -1);

/**
 * Every file under src/main (the classes and their META-INF/services): one added later is watched without being
 * listed here.
 * @param {string} [dir]
 * @returns {string[]}
 */
function sources(dir = SOURCES) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    return entry.isDirectory() ? sources(file) : [file];
  });
}

/**
 * Whether the class or the kept class path is missing (a fresh clone: target/ is not committed), older than pom.xml
 * or any source, or names a missing jar.
 */
function needsBuild() {
  const built = Math.min(mtime(BUILT_CLASS), mtime(CLASSPATH_FILE));
  const classpathOk =
    built >= 0 &&
    fs
      .readFileSync(CLASSPATH_FILE, 'utf8')
      .split(path.delimiter)
      .every((jar) => fs.existsSync(jar));
  return !(classpathOk && built >= mtime(POM) && sources().every((source) => built >= mtime(source)));
}

/** Compiles the launcher and writes its class path (jars in Maven's cache) when needsBuild(); later starts run no Maven. */
function ensureBuilt(log = (/** @type {string} */ line) => process.stderr.write(`${line}\n`)) {
  if (!needsBuild()) return;
  log('neo4j-local: building the launcher with Maven (the first run fetches Neo4j from Maven Central into ~/.m2)...');
  const started = Date.now();
  const mvn = spawnSync('mvn', ['-B', '-q', '-f', POM, 'package', '-DskipTests'], { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  if (mvn.status !== 0) {
    const output = `${mvn.stdout ?? ''}${mvn.stderr ?? ''}`.trim().split('\n').slice(-20).join('\n');
    throw new Error(`neo4j-local: 'mvn package' failed (exit ${mvn.status ?? mvn.error?.message}):\n${output}`);
  }
  // Maven leaves an unchanged classpath.txt (and an up-to-date class) untouched; mark both as built now, or the
  // check above would rebuild on every start after an edit of the pom or the source.
  const now = new Date();
  for (const file of [BUILT_CLASS, CLASSPATH_FILE]) fs.utimesSync(file, now, now);
  log(`neo4j-local: built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** A password for user neo4j when a script passes none: the server never runs with auth off. */
const generatedPassword = () => randomBytes(18).toString('base64url');

function javaArgs({ heap = '1g', stopWhenStdinCloses = false, quickJit = false, shallowInlining = false } = {}) {
  const classpath = [CLASSES, fs.readFileSync(CLASSPATH_FILE, 'utf8').trim()].join(path.delimiter);
  return [...jvmOptions(heap, { quickJit, shallowInlining }), '-cp', classpath, MAIN_CLASS, ...(stopWhenStdinCloses ? ['--stop-when-stdin-closes'] : [])];
}

/**
 * neo4j-admin's own entry point (the `neo4j-command-line` jar, already on the server's class path), run in this JVM:
 * Neo4jAdminCommand, the distribution's wrapper, starts another JVM from a distribution's folders, which this launcher
 * has none of.
 */
const ADMIN_CLASS = 'org.neo4j.cli.AdminTool';

/** @param {string[]} args @param {string} heap */
function adminJavaArgs(args, heap) {
  const classpath = [CLASSES, fs.readFileSync(CLASSPATH_FILE, 'utf8').trim()].join(path.delimiter);
  return [...jvmOptions(heap), '-cp', classpath, ADMIN_CLASS, ...args];
}

/**
 * The environment of neo4j-admin on `data`: the data folder of this launcher is its server's home (the
 * DatabaseManagementService is built on it), so it is neo4j-admin's NEO4J_HOME, with its default folders below it. A
 * NEO4J_CONF of a Neo4j installed on the machine would point it at that one's databases: never passed on.
 * @param {string} data
 */
function adminEnv(data) {
  /** @type {NodeJS.ProcessEnv} */
  const env = { ...process.env, NEO4J_HOME: data };
  delete env.NEO4J_CONF;
  return env;
}

/**
 * Runs neo4j-admin of Neo4j 5.26 on the data folder of a local server, which must be stopped: Community Edition's
 * `database dump` and `database load` refuse a database a running server holds ("The database is in use"). For
 * example `['database', 'dump', 'neo4j', '--to-path=<folder>']`, then `['database', 'load', 'neo4j',
 * '--from-path=<folder>', '--overwrite-destination=true']`. The data folder is created owner-only when missing (a load
 * into a new folder), as start() does. Resolves with neo4j-admin's exit code and what it printed.
 * @param {string[]} args
 * @param {import('./neo4j-local').AdminOptions} options
 * @returns {Promise<import('./neo4j-local').AdminRun>}
 */
async function admin(args, { data, heap = '512m' }) {
  ensureBuilt();
  fs.mkdirSync(data, { recursive: true, mode: 0o700 });
  const child = spawn('java', adminJavaArgs(args, heap), { env: adminEnv(data), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (/** @type {string} */ chunk) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (/** @type {string} */ chunk) => (output += chunk));
  return new Promise((resolve, reject) => {
    child.once('error', (e) => reject(new Error(`neo4j-local: java could not be started: ${e.message}`)));
    child.once('close', (code) => resolve({ code, output }));
  });
}

const READY = /ready at (bolt:\/\/\S+)/;
const BROWSER = /Neo4j Browser at (http:\/\/\S+)/;

/** A port nothing listens on right now, on loopback. */
async function freePort() {
  const probe = net.createServer();
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', () => resolve(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (probe.address());
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** `count` distinct ports nothing listens on right now, on loopback. @param {number} count */
async function freePorts(count) {
  /** @type {number[]} */
  const ports = [];
  while (ports.length < count) {
    const port = await freePort();
    if (!ports.includes(port)) ports.push(port);
  }
  return ports;
}

/**
 * Starts a server in the background and resolves once it printed its ready line: { uri, password, child, stop() }.
 * It stops when stop() is called, and by itself when this process goes away (its stdin is our pipe).
 * options: port (a free one when undefined), password (user neo4j's; a random one, returned as `password`, when
 * undefined: auth is always on), httpPort (Neo4j Browser on this
 * port; off when undefined or 0), data (a kept folder; a temporary one when undefined), heap (default 1g), pageCacheMb (default 1024), transactionTimeoutS (db.transaction.timeout,
 * default 30), minReplanIntervalS (dbms.cypher.min_replan_interval: how long a query's plan is kept before changed
 * statistics may have it planned again; Neo4j's 10 s by default), quickJit (the first JIT compiler only, for a server
 * that lives minutes: jvmOptions()), shallowInlining (both compilers, inlining less: jvmOptions()), servers (default 1:
 * that many database servers in the one JVM, each on a free port and a temporary folder of its own, Bolt only; their
 * URIs are `uris`, and stop() stops them all).
 * @param {import('./neo4j-local').StartOptions} [options]
 * @returns {Promise<import('./neo4j-local').LocalNeo4j>}
 */
async function start({
  port,
  password: given,
  httpPort,
  data,
  heap,
  pageCacheMb,
  transactionTimeoutS,
  minReplanIntervalS,
  quickJit,
  shallowInlining,
  servers = 1,
  timeoutMs = 300_000,
} = {}) {
  ensureBuilt();
  if (servers > 1 && (port !== undefined || data !== undefined || httpPort))
    throw new Error('neo4j-local: several servers take free ports and temporary folders, and no Browser');
  const password = given || generatedPassword();
  const ports = port !== undefined ? [port] : await freePorts(servers);
  /** @type {NodeJS.ProcessEnv} */
  const env = { ...process.env, NEO4J_LOCAL_PORT: ports.join(',') };
  delete env.NEO4J_LOCAL_PAGECACHE_MB;
  if (pageCacheMb !== undefined) env.NEO4J_LOCAL_PAGECACHE_MB = String(pageCacheMb);
  delete env.NEO4J_LOCAL_TRANSACTION_TIMEOUT_S;
  if (transactionTimeoutS !== undefined) env.NEO4J_LOCAL_TRANSACTION_TIMEOUT_S = String(transactionTimeoutS);
  delete env.NEO4J_LOCAL_MIN_REPLAN_INTERVAL_S;
  if (minReplanIntervalS !== undefined) env.NEO4J_LOCAL_MIN_REPLAN_INTERVAL_S = String(minReplanIntervalS);
  // Tests and scripts never take the Browser's fixed port from the environment: off unless asked for.
  env.NEO4J_LOCAL_HTTP_PORT = String(httpPort ?? 0);
  env.NEO4J_LOCAL_ANALYST_DIR = ANALYST_DIR;
  env.NEO4J_PASSWORD = password;
  delete env.NEO4J_LOCAL_DATA;
  if (data !== undefined) env.NEO4J_LOCAL_DATA = data;
  const child = spawn('java', javaArgs({ heap, stopWhenStdinCloses: true, quickJit, shallowInlining }), { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  /** @type {import('./neo4j-local').LocalNeo4j['exited']} */
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));

  const stop = async (graceMs = 60_000) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };

  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop(5_000);
      reject(new Error(`neo4j-local: not ready within ${timeoutMs / 1000} s:\n${output.slice(-2000)}`));
    }, timeoutMs);
    const onData = (/** @type {string} */ chunk) => {
      output += chunk;
      // One ready line per server, once all of them accept connections.
      const lines = output
        .split('\n')
        .slice(0, -1)
        .filter((l) => READY.test(l));
      if (lines.length >= ports.length) {
        clearTimeout(timer);
        child.stdout.off('data', onData);
        // Keep draining, so the server never blocks on a full pipe.
        child.stdout.resume();
        child.stderr.resume();
        const uris = lines.map((l) => /** @type {string} */ (READY.exec(l)?.[1]));
        const [line = ''] = lines;
        resolve({
          uri: /** @type {string} */ (uris[0]),
          uris,
          password,
          browserUrl: BROWSER.exec(line)?.[1],
          line: lines.map((l) => l.trim()).join('\n'),
          child,
          stop,
          exited,
        });
      }
    };
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', onData);
    child.stderr.on('data', (/** @type {string} */ chunk) => {
      output += chunk;
    });
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(new Error(`neo4j-local: java could not be started: ${e.message}`));
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`neo4j-local: the server exited before it was ready (${signal ?? `exit ${code}`}):\n${output.slice(-2000)}`));
    });
  });
}

/**
 * `npm run neo4j:local`: the server in the foreground, configured by NEO4J_LOCAL_PORT, NEO4J_PASSWORD, NEO4J_LOCAL_DATA
 * (data/neo4j under the working directory when unset: kept, with the generated password of user neo4j in its file
 * `password`), NEO4J_LOCAL_HTTP_PORT (Neo4j Browser; 7474 when unset, 0 turns it off), or the flag --no-browser,
 * NEO4J_LOCAL_HEAP, and NEO4J_LOCAL_QUICK_JIT=true (the first JIT compiler only: jvmOptions()).
 * --stop-when-stdin-closes is passed on to the server (the tests that run this script use it).
 * `admin <arguments>` runs neo4j-admin on that data folder instead (runAdmin()).
 */
function main() {
  const missing = missingTools();
  if (missing) {
    process.stderr.write(`neo4j-local cannot run: ${missing} (it needs java 17 or 21 and mvn).\n`);
    process.exit(1);
  }
  try {
    ensureBuilt();
  } catch (e) {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  }
  // Kept by default, as the service keeps ./data/idlink.sqlite: the generated password lives beside the database
  // and is the same at every start, so the service can read it from the file.
  const data = path.resolve(process.env.NEO4J_LOCAL_DATA || path.join('data', 'neo4j'));
  if (process.argv[2] === 'admin') return runAdmin(process.argv.slice(3), data);
  const httpPort = process.argv.includes('--no-browser') ? '0' : process.env.NEO4J_LOCAL_HTTP_PORT || '7474';
  const stopWhenStdinCloses = process.argv.includes('--stop-when-stdin-closes');
  const quickJit = process.env.NEO4J_LOCAL_QUICK_JIT === 'true';
  const child = spawn('java', javaArgs({ heap: process.env.NEO4J_LOCAL_HEAP || '1g', stopWhenStdinCloses, quickJit }), {
    stdio: 'inherit',
    env: { ...process.env, NEO4J_LOCAL_HTTP_PORT: httpPort, NEO4J_LOCAL_DATA: data, NEO4J_LOCAL_ANALYST_DIR: ANALYST_DIR },
  });
  // npm (and a terminal's Ctrl-C) signal this process; the JVM shuts the database down on the same signal.
  for (const signal of /** @type {const} */ (['SIGTERM', 'SIGINT', 'SIGHUP'])) {
    process.on(signal, () => {
      if (child.exitCode === null) child.kill(signal);
    });
  }
  child.on('exit', (code, signal) => {
    // A JVM stopped by SIGTERM/SIGINT exits 143/130 after a clean shutdown: that is the normal way to stop it.
    process.exit(signal || code === 143 || code === 130 ? 0 : (code ?? 1));
  });
}

/**
 * `npm run neo4j:local -- admin <neo4j-admin arguments>`: neo4j-admin in the foreground on the data folder (NEO4J_LOCAL_DATA,
 * data/neo4j by default), with NEO4J_LOCAL_HEAP (default 512m); exits with its exit code. The server must be stopped.
 * @param {string[]} args @param {string} data
 */
function runAdmin(args, data) {
  fs.mkdirSync(data, { recursive: true, mode: 0o700 });
  const child = spawn('java', adminJavaArgs(args, process.env.NEO4J_LOCAL_HEAP || '512m'), { stdio: 'inherit', env: adminEnv(data) });
  child.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 1)));
}

if (require.main === module) main();

module.exports = { start, admin, ensureBuilt, missingTools, javaArgs, jvmOptions, freePort };
