// Runs in every test file of `npm run test:neo4j` (jest.neo4j.config.js, setupFilesAfterEnv): startApp() without a
// store gets a Neo4j store (test/helpers/store.ts), and the database starts each test file empty, with the
// constraints and indexes of cypher/schema/ in place. Only a database that holds the suites' marker node (or nothing)
// is emptied (test-database.js), and the marker stays.
import { Neo4jStore } from '../../src/store/neo4j/neo4j-store';
import { neo4jConnectionFromEnv } from '../helpers/store';
import { emptyNeo4jTestDatabase } from '../helpers/neo4j-services';

process.env.IDLINK_TEST_STORE = 'neo4j';
// The driver records where each query was sent from (the stack of a new Error, for its errors), and Jest maps every
// frame of every stack through source maps, up to the 100 frames it allows: about a twentieth of the suites' CPU on
// the Jest side. V8's own limit, 10 frames, is what the service has in production.
Error.stackTraceLimit = 10;

// When global-setup.js started a server per jest worker, this file's worker uses its own (JEST_WORKER_ID counts from
// 1), so that no other file writes to its database while it runs.
const servers = process.env.NEO4J_TEST_SERVERS;
if (servers) {
  const all = JSON.parse(servers) as Array<{ uri: string; username: string; password: string }>;
  const worker = Number(process.env.JEST_WORKER_ID ?? '1');
  const own = all[worker - 1];
  if (!own) throw new Error(`jest worker ${worker} has no Neo4j server of its own (global-setup.js started ${all.length})`);
  process.env.NEO4J_TEST_URI = own.uri;
  process.env.NEO4J_TEST_USERNAME = own.username;
  process.env.NEO4J_TEST_PASSWORD = own.password;
}

beforeAll(async () => {
  const connection = neo4jConnectionFromEnv();
  await emptyNeo4jTestDatabase(connection);
  // Connecting applies cypher/schema/ again (IF NOT EXISTS: unchanged when already there).
  const store = await Neo4jStore.connect(connection);
  await store.close();
});
