// Runs in every test file of `npm run test:neo4j` (jest.neo4j.config.js, setupFilesAfterEnv): startApp() without a
// store gets a Neo4j store (test/helpers/store.ts), and the database starts each test file empty, with the
// constraints and indexes of cypher/schema/ in place. Only a database that holds the suites' marker node (or nothing)
// is emptied (test-database.js), and the marker stays.
import { Neo4jStore } from '../../src/store/neo4j/neo4j-store';
import { neo4jConnectionFromEnv } from '../helpers/store';
import { emptyNeo4jTestDatabase } from '../helpers/neo4j-services';

process.env.IDLINK_TEST_STORE = 'neo4j';

beforeAll(async () => {
  const connection = neo4jConnectionFromEnv();
  await emptyNeo4jTestDatabase(connection);
  // Connecting applies cypher/schema/ again (IF NOT EXISTS: unchanged when already there).
  const store = await Neo4jStore.connect(connection);
  await store.close();
});
