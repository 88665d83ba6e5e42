// Every `sh` example of README.md and docs/ run against a freshly started service on Neo4j (`npm run test:neo4j`),
// one per file, on a database emptied before each, in a folder of its own (where `data/admin-token` is
// generated), and compared with what the doc says it prints: the same text as on the embedded store
// (examples.test.ts), since no answer may differ between the stores.
import neo4j from 'neo4j-driver';
import { emptyTestDatabase } from '../neo4j/test-database';
import { describeDocExamples } from '../helpers/doc-examples';
import { untilReady } from '../helpers/neo4j-services';
import { freshDir, installCleanup, startServer } from '../helpers/server-process';
import { neo4jConnectionFromEnv } from '../helpers/store';

installCleanup();

describeDocExamples(
  'Neo4j',
  async () => {
    const connection = neo4jConnectionFromEnv();
    const auth = connection.password === undefined ? undefined : neo4j.auth.basic(connection.username, connection.password);
    const driver = neo4j.driver(connection.uri, auth);
    try {
      await emptyTestDatabase(driver, connection.database, `database ${connection.database} at ${connection.uri}`);
    } finally {
      await driver.close();
    }
    const cwd = freshDir('idlink-doc-examples-');
    const env = {
      PORT: '0',
      HOST: '127.0.0.1',
      STORE: 'neo4j',
      NEO4J_URI: connection.uri,
      NEO4J_USERNAME: connection.username,
      ...(connection.password !== undefined ? { NEO4J_PASSWORD: connection.password } : {}),
      NEO4J_DATABASE: connection.database,
      LOG_LEVEL: 'info',
    };
    const { server, base } = await startServer(env, cwd);
    await untilReady({ server, base }, 60_000);
    return {
      base,
      cwd,
      stop: async () => {
        server.child.kill('SIGTERM');
        await server.exited;
      },
    };
  },
  180_000,
);
