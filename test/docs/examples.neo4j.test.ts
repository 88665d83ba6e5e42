// Every `sh` example of README.md and docs/ run against a freshly started service on Neo4j (`npm run test:neo4j`),
// one per file, on a database emptied before each, in a folder of its own (where `data/admin-token` is
// generated), and compared with what the doc says it prints: the same text as on the embedded store
// (examples.test.ts), since no answer may differ between the stores.
import { describeDocExamples, exampleService } from '../helpers/doc-examples';
import { emptyNeo4jTestDatabase, neo4jStoreEnv, untilReady } from '../helpers/neo4j-services';
import { installCleanup } from '../helpers/server-process';
import { neo4jConnectionFromEnv } from '../helpers/store';

installCleanup();

describeDocExamples(
  'Neo4j',
  async () => {
    const connection = neo4jConnectionFromEnv();
    await emptyNeo4jTestDatabase(connection);
    const service = await exampleService(neo4jStoreEnv(connection));
    await untilReady(service, 60_000);
    return service;
  },
  180_000,
);
