// An error the store does not map (a 500) is logged by its name, code and stack, never by its message: a store's
// message may quote the values of the write, and a secure ID must not reach the log. Forced for real on each
// store by a rule the store does not know about, which refuses one secure email: on Neo4j a uniqueness constraint
// on every Id's value alone (Neo.ClientError.Schema.ConstraintValidationFailed, whose message quotes the value),
// on SQLite a trigger whose error quotes it. Test-only Cypher and SQL, not statements of the stores.
import path from 'node:path';
import vm from 'node:vm';
import type { Driver } from 'neo4j-driver';
import { loggableError } from '../../src/http/middleware';
import Database from '../../src/store/sqlite/driver';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store';
import { startApp, tempDir, type TestApp } from '../helpers/app';
import { untilAccessLogged } from '../helpers/access-log';
import { issueLabelledToken, nodePath, parsedLogs, uniqueCustomer } from '../helpers/builders-auth';
import { memberSchema, putSchema } from '../helpers/factories';
import { neo4jConnectionFromEnv, neo4jDriver, usesNeo4j } from '../helpers/store';

const SECRET = 'secret-7c1e@example.com';
const CONSTRAINT = 'test_id_value_anywhere';

describe(`an unmapped store error (${usesNeo4j() ? 'Neo4j' : 'SQLite file'})`, () => {
  let app: TestApp;
  let driver: Driver | undefined;
  const connection = usesNeo4j() ? neo4jConnectionFromEnv() : undefined;
  const cypher = async (statement: string) => {
    await driver!.executeQuery(statement, {}, { database: connection!.database });
  };

  beforeAll(async () => {
    if (connection) {
      app = await startApp();
      driver = neo4jDriver(connection);
      await cypher(`CREATE CONSTRAINT ${CONSTRAINT} IF NOT EXISTS FOR (id:Id) REQUIRE id.value IS UNIQUE`);
    } else {
      const file = path.join(tempDir('unhandled-log-'), 'store.db');
      app = await startApp({ store: new SqliteStore({ path: file }) });
      const db = new Database(file);
      db.exec(
        `CREATE TRIGGER refuse_secret BEFORE INSERT ON ids WHEN NEW.customer_id LIKE 'refused%' AND NEW.type = 'email' BEGIN SELECT RAISE(ABORT, 'refused value ' || NEW.value); END`,
      );
      db.close();
    }
  });
  afterAll(async () => {
    if (driver) {
      await cypher(`DROP CONSTRAINT ${CONSTRAINT} IF EXISTS`);
      await driver.close();
    }
    await app.close();
  });

  test('when a write of a secure ID fails with an error that quotes it, then the answer is a 500 and the log has its name and code but neither the value nor the message', async () => {
    // Neo4j: the first customer's Id holds the value, so the second's is refused; SQLite: the second's is refused.
    // Keys of their own: on Neo4j a key is an Id vertex too.
    const holder = uniqueCustomer('holder');
    const refused = uniqueCustomer('refused');
    const tokens: Record<string, string> = {};
    for (const customer of [holder, refused]) {
      await putSchema(app, customer, 'member', memberSchema);
      tokens[customer] = (await issueLabelledToken(app, customer, 'bearer')).token;
      const created = await app.call('POST', nodePath(customer, '_create'), {
        token: tokens[customer],
        body: { schema: 'member', key: { type: 'member_id', id: `${customer}-m` } },
      });
      expect(created.status).toBe(201);
    }
    const held = await app.call('POST', nodePath(holder, '_insert'), {
      token: tokens[holder],
      body: { schema: 'member', key: { type: 'member_id', id: `${holder}-m` }, ids: [{ type: 'email', id: SECRET }] },
    });
    expect(held.status).toBe(201);

    const res = await app.call('POST', nodePath(refused, '_insert'), {
      token: tokens[refused],
      body: { schema: 'member', key: { type: 'member_id', id: `${refused}-m` }, ids: [{ type: 'email', id: SECRET }] },
    });
    expect(res.status).toBe(500);
    expect(JSON.stringify(res.body)).not.toContain(SECRET);
    // Its access line is the last the request logs: the log is whole once it is there.
    await untilAccessLogged(app, [res.headers['x-request-id'] as string]);

    const errors = parsedLogs(app).filter((line) => line.message === 'unhandled error');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.error).toEqual(
      expect.objectContaining(
        usesNeo4j()
          ? { name: 'Neo4jError', code: 'Neo.ClientError.Schema.ConstraintValidationFailed' }
          : { name: 'SqliteError', code: 'SQLITE_CONSTRAINT_TRIGGER' },
      ),
    );
    expect(app.logs.join('\n')).not.toContain(SECRET);
    expect(app.logs.join('\n')).not.toMatch(/already exists with label|refused value/);
  });
});

describe('what the log keeps of an error', () => {
  test("when the error comes from another realm (as a native addon's may under jest), then it still keeps its name, code and frames, not its message", () => {
    const foreign: unknown = vm.runInNewContext(
      `const e = new Error('refused value ${SECRET}\\n    at quoted ${SECRET}'); e.name = 'SqliteError'; e.code = 'SQLITE_CONSTRAINT_TRIGGER'; e`,
    );
    expect(foreign instanceof Error).toBe(false);
    const kept = loggableError(foreign);
    expect(kept).toEqual(expect.objectContaining({ name: 'SqliteError', code: 'SQLITE_CONSTRAINT_TRIGGER', stack: expect.stringMatching(/^\s+at /) }));
    expect(JSON.stringify(kept)).not.toContain(SECRET);
  });
});
