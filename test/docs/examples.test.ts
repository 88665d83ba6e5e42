// Every `sh` example of README.md and docs/ run against a freshly started service on the embedded store, one per
// file, in a folder of its own (where `data/admin-token` is generated), and compared with what the doc says it
// prints. The same examples run on Neo4j in examples.neo4j.test.ts.
import { describeDocExamples, exampleService } from '../helpers/doc-examples';
import { installCleanup } from '../helpers/server-process';

installCleanup();

describeDocExamples('SQLite', () => exampleService({}), 120_000);
