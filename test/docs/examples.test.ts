// Every `sh` example of README.md and docs/ run against a freshly started service on the embedded store, one per
// file, in a folder of its own (where `data/admin-token` is generated), and compared with what the doc says it
// prints. The same examples run on Neo4j in examples.neo4j.test.ts.
import { describeDocExamples } from '../helpers/doc-examples';
import { freshDir, installCleanup, startServer } from '../helpers/server-process';

installCleanup();

describeDocExamples(
  'SQLite',
  async () => {
    const cwd = freshDir('idlink-doc-examples-');
    const { server, base } = await startServer({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' }, cwd);
    return {
      base,
      cwd,
      stop: async () => {
        server.child.kill('SIGTERM');
        await server.exited;
      },
    };
  },
  120_000,
);
