// The Neo4j store's own logic that a real server cannot easily show, with a fake driver that answers each statement
// file with canned rows and records what was called: races a test cannot time on a server (a node deleted or rekeyed
// between two statements), the kept policy's re-checks and renewals, batching under contention, retries of transient
// errors and lost commit replies, and how driver errors become domain errors. It asserts outcomes and counts of
// statements (each its own round trip on the fake), not their order. What Cypher answers and what a call costs on the
// real driver are for the suites on a server: the store contract, round-trips.neo4j.test.ts, write-gathering and
// bulk (`npm run test:neo4j`).
import neo4j, { type Driver, type Integer, Neo4jError } from 'neo4j-driver';
import { assembleDelivery, type Delivery, ZERO_COUNTS } from '../../src/domain/deliveries';
import { DomainError } from '../../src/domain/errors';
import { NodeService } from '../../src/domain/nodes';
import type { GraphQuery } from '../../src/domain/graph';
import type { CustomerPolicy, IdPair, NodeAddress, SchemaRecord, SearchQuery } from '../../src/domain/model';
import type { CheckedNode, NodeWrite, SchemaWithPolicy } from '../../src/domain/ports/node-writes';
import type { CheckedPerson } from '../../src/domain/ports/showing';
import type { StartCheck, UncheckedGraph, UncheckedSearch } from '../../src/domain/ports/identity-reads';
import { deliveryDocument } from '../../src/store/delivery-document';
import { SEARCH_STATEMENTS_AT_ONCE } from '../../src/store/neo4j/neo4j-search';
import { blocklistDigest } from '../../src/store/neo4j/kept-policies';
import { Neo4jStore } from '../../src/store/neo4j/neo4j-store';
import { loadStatements, schemaObjects, type StatementName, STATEMENT_NAMES } from '../../src/store/neo4j/statements';
import { buildDraft, buildMessage } from '../helpers/deliveries';
import { buildQuery } from '../store-contract/contract';
import { settle } from '../helpers/settling';
import { checkedImpression, checkedPerson } from '../helpers/checked-showing';
import { POLICY_ATTEMPTS } from '../../src/store/neo4j/checked-showing';
import { seeded } from '../helpers/seeded';

type Row = Record<string, unknown>;
type Answer = Row[] | Error;
/** A promise: the statement answers when it settles (a Neo4j that does not answer, until the test says so). */
type Handler = (name: StatementName, params: Record<string, unknown>) => Answer | Promise<Answer> | undefined;

interface Call {
  name: StatementName;
  params: Record<string, unknown>;
}

const statements = loadStatements();
const nameByText = new Map<string, StatementName>(STATEMENT_NAMES.map((name) => [statements.byName[name].sent, name]));
// The schema statements too (applySchema): a handler sees them by their names, such as `schema/id.unique-value`.
for (const statement of statements.schema) nameByText.set(statement.sent, statement.name as StatementName);

/** What person.counts reads of a customer that declared no secure or `links: false` type and put no settings. */
const NO_POLICY = { secureTypes: [], unlinkedTypes: [], timezone: [] };

/** What person.counts reads of a catalogue no delivery write changed (version 0), with the live counts asked for. */
const unchangedCatalogue = (deliveryIds: unknown) => ({
  catalogueVersion: [],
  live: ((deliveryIds ?? []) as Integer[]).map((deliveryId) => ({ deliveryId: deliveryId.toNumber(), ...STORED_COUNTS })),
});

/** The first impression of an impression.count statement's parameters. */
const firstImpression = (params: Record<string, unknown>) => (params.impressions as Array<Record<string, unknown>>)[0] as Record<string, unknown>;

/** Rows every statement gets unless a test says otherwise: enough for each store method to run its whole path. */
function defaultAnswer(name: StatementName, params: Record<string, unknown>): Row[] {
  switch (name) {
    case 'schema.guard':
      return [{ declared: [...LIMITED_TYPES], requireToken: [], blocklistDigest: [] }];
    case 'node.create':
      return [{ node: 'n1', linked: 1 }];
    case 'node.lock-many':
      // Every key has a node: n<line>.
      return (params.keys as Array<{ line: number }>).map(({ line }) => ({ line, node: `n${line}` }));
    case 'node.lock':
      return [{ node: 'n1' }];
    case 'node.held-among': {
      // Found again by its key after the lock: n1, which holds its key, member_id=m1 (a rekey then unlinks it).
      const held = (params.ids as IdPair[]).filter((asked) => asked.type === 'member_id' && asked.id === 'm1');
      return params.keyId === 'm1' ? [{ node: 'n1', held }] : [];
    }
    case 'node.ids':
      return [
        {
          node: 'n1',
          ids: [
            { type: 'member_id', id: 'm1' },
            { type: 'device', id: 'd1' },
          ],
        },
      ];
    case 'search.all':
    case 'search.one':
      // For each search, the policy of a customer with no settings or blocklist, whose schema `member` declares
      // member_id and device (answered when the search names a schema).
      return (params.searches as Array<{ index: unknown; schema: string | null }>).map(({ index, schema }) => ({
        index,
        policy: {
          secureTypes: [],
          unlinkedTypes: [],
          settings: [],
          blocklist: [],
          schema:
            schema === null
              ? []
              : [
                  {
                    schemaId: 'member',
                    idTypes: [
                      { type: 'member_id', secure: false, links: true, maxHolders: null, position: 0 },
                      { type: 'device', secure: false, links: true, maxHolders: null, position: 1 },
                    ],
                  },
                ],
        },
        visited: 2,
        ids: [{ type: 'member_id', ids: ['m1'] }],
      }));
    case 'delivery.forget-deleted':
      return [{ deleted: 1 }];
    case 'delivery.catalogue':
      // The document only when the caller has not parsed revision 2 of delivery 7 yet.
      return [{ version: 0, deliveryId: 7, revision: 2, ...STORED_COUNTS, document: isKnown(params.known, 7, 2) ? null : storedDocument }];
    case 'impression.count':
      return (params.impressions as Array<{ index: Integer }>).map((i) => ({
        index: i.index.toNumber(),
        outcome: 'counted',
        answerCounts: [4, 3, 2],
        answer: null,
        document: null,
        ...STORED_COUNTS,
        total: 2,
        today: 1,
      }));
    case 'history.page':
      return [{ total: 1, page: [{ entry: STORED_ENTRY, atMillis: 0 }] }];
    case 'search.start-by-key':
      return [{ start: 'n1' }];
    case 'search.start-by-where':
      return [{ source: 'i1', starts: ['n1'] }];
    case 'delivery.lock':
    case 'delivery.get':
      return [{ document: storedDocument, ...STORED_COUNTS }];
    case 'person.counts':
      return [{ visited: 1, idsRead: 2, counts: [{ deliveryId: 7, total: 2, today: 1 }], ...NO_POLICY, ...unchangedCatalogue(params.deliveryIds) }];
    default:
      return [];
  }
}

/** A history entry as history.append.cypher stores it (its JSON without `at`): n1's create. */
const STORED_ENTRY = JSON.stringify({
  request_id: 'r1',
  actor: 'admin',
  op: 'create',
  schema: 'member',
  key: { type: 'member_id', id: 'm1' },
  added: [
    { type: 'member_id', id: 'm1' },
    { type: 'device', id: 'd1' },
  ],
  removed: [],
});

/** What the fake schema declares under its guard: cookie has a holder limit. */
const LIMITED_TYPES = [
  { type: 'member_id', secure: false, links: true, maxHolders: null },
  { type: 'cookie', secure: false, links: true, maxHolders: 5 },
];

const storedDelivery: Delivery = assembleDelivery(buildDraft({ message: [buildMessage({ title: 'one' }), buildMessage({ title: 'two' })] }), {
  deliveryId: 7,
  conditionId: 70,
  messageIds: [700, 701],
  counts: { iphoneDeliveryCount: 1, androidDeliveryCount: 2, deliveryCount: 3 },
});
/** The counts are properties beside the document; the document keeps those it was written with. */
const STORED_COUNTS = { deliveryCount: 3, iphoneCount: 1, androidCount: 2 };
const storedDocument = deliveryDocument({ ...storedDelivery, condition: { ...storedDelivery.condition, ...ZERO_COUNTS } });

/** Whether delivery.catalogue's `known` holds [deliveryId, revision]. */
const isKnown = (known: unknown, deliveryId: number, revision: number): boolean =>
  (known as Array<[unknown, unknown]>).some(([d, r]) => String(d) === String(deliveryId) && String(r) === String(revision));

/**
 * `loseCommitReplies`: the first commit of every write, or the first auto-commit statement of a write session, fails
 * as a connection lost before its reply would, after it was applied (the write then runs again, as a driver runs it
 * again when a commit's reply is lost). Retries wait 1 ms and stop `maxRetryTimeMs` (50 by default) after
 * the first failure.
 */
function fakeStore(
  handler: Handler = () => undefined,
  options: { loseCommitReplies?: boolean; callTimeoutMs?: number; firstCommitAnswers?: Promise<void>; maxRetryTimeMs?: number } = {},
) {
  const calls: Call[] = [];
  const sessions = { opened: 0, closed: 0, configs: [] as unknown[] };
  /** The transaction config of each statement of a read (auto-commit), write transaction and ping, in order. */
  const txConfigs: Array<{ kind: 'read' | 'write' | 'run'; config: unknown }> = [];
  let executeWrites = 0;
  /** How each write transaction ended, in order. */
  const ends: Array<'commit' | 'rollback'> = [];
  let driverClosed = 0;
  const tx = {
    run: async (text: string, params: Record<string, unknown> = {}) => {
      const name = nameByText.get(text);
      if (!name) throw new Error(`not a statement of cypher/: ${text.slice(0, 40)}`);
      calls.push({ name, params });
      const answer = (await handler(name, params)) ?? defaultAnswer(name, params);
      if (answer instanceof Error) throw answer;
      return { records: answer.map((row) => ({ toObject: () => row })) };
    },
  };
  let pingAnswer: Error | undefined;
  const driver = {
    session: (config: unknown) => {
      sessions.opened += 1;
      sessions.configs.push(config);
      let commits = 0;
      let autoCommits = 0;
      const writing = (config as { defaultAccessMode?: string }).defaultAccessMode === neo4j.session.WRITE;
      return {
        run: async (text: string, params: Record<string, unknown> = {}, config?: unknown) => {
          if (text === statements.byName['store.ping'].sent) {
            // ping's own query, or floor's read.
            calls.push({ name: 'store.ping', params });
            txConfigs.push({ kind: 'run', config });
            if (pingAnswer) throw pingAnswer;
            return { records: [] };
          }
          txConfigs.push({ kind: writing ? 'write' : 'read', config });
          const result = await tx.run(text, params);
          autoCommits += 1;
          if (writing && options.loseCommitReplies && autoCommits === 1) throw driverError('SessionExpired', 'Connection lost before the reply');
          return result;
        },
        beginTransaction: (config?: unknown) => {
          txConfigs.push({ kind: 'write', config });
          executeWrites += 1;
          let open = true;
          return {
            run: tx.run,
            commit: async () => {
              open = false;
              commits += 1;
              if (ends.length === 0) await options.firstCommitAnswers;
              ends.push('commit');
              if (options.loseCommitReplies && commits === 1) throw driverError('SessionExpired', 'Connection lost before the commit reply');
            },
            rollback: async () => {
              open = false;
              ends.push('rollback');
            },
            isOpen: () => open,
          };
        },
        close: async () => {
          sessions.closed += 1;
        },
      };
    },
    close: async () => {
      driverClosed += 1;
    },
    executeQueryBookmarkManager: undefined,
  };
  const store = new Neo4jStore(driver as unknown as Driver, 'graphdb', statements, options.callTimeoutMs, {
    maxTimeMs: options.maxRetryTimeMs ?? 50,
    firstDelayMs: 1,
  });
  return {
    store,
    calls,
    sessions,
    txConfigs,
    named: (name: StatementName) => calls.filter((c) => c.name === name),
    names: () => calls.map((c) => c.name),
    writes: () => executeWrites,
    ends,
    driverClosed: () => driverClosed,
    failPing: (e: Error) => {
      pingAnswer = e;
    },
  };
}

const driverError = (code: string, message = code) => new Neo4jError(message, code, '50N42', 'error');

const member = (memberId: string): NodeAddress => ({ customerId: 'acme', schemaId: 'member', key: { type: 'member_id', id: memberId } });
const id = (type: string, value: string): IdPair => ({ type, id: value });
const query = (overrides: Partial<SearchQuery>): SearchQuery => buildQuery({ customerId: 'acme', ...overrides });

describe('Neo4j store, with a fake driver', () => {
  test('when another sweep finished a deleted delivery while this one waited for its lock, then this sweep passes over it and takes the next; it stops after `limit` such', async () => {
    const ghost = { customer: null, deliveryId: null };
    const nexts = [[ghost], [{ customer: 'acme', deliveryId: 7 }], []];
    const fake = fakeStore((name) => {
      if (name === 'delivery.next-deleted') return nexts.shift();
      if (name === 'impression.sweep-of-deleted') return [{ deleted: 2 }];
      return undefined;
    });
    await expect(fake.store.sweepDeletedDeliveries(1000)).resolves.toBe(3);
    expect(fake.named('impression.sweep-of-deleted').map((c) => c.params)).toEqual([{ customer: 'acme', deliveryId: neo4j.int(7), limit: neo4j.int(1000) }]);
    expect(fake.named('delivery.next-deleted')).toHaveLength(3);

    const haunted = fakeStore((name) => (name === 'delivery.next-deleted' ? [ghost] : undefined));
    await expect(haunted.store.sweepDeletedDeliveries(5)).resolves.toBe(0);
    expect(haunted.named('delivery.next-deleted')).toHaveLength(5);
    expect(haunted.named('impression.sweep-of-deleted')).toEqual([]);
  });

  test('when Neo4j lists all but one constraint and one index of cypher/schema/, then missingSchema answers those two, the constraint as one', async () => {
    const expected = schemaObjects(statements.schema);
    const fake = fakeStore((name) =>
      name === 'store.schema-in-place' ? [{ present: expected.map((o) => o.name).filter((n) => n !== 'id_value_unique' && n !== 'history_time') }] : undefined,
    );
    expect(await fake.store.missingSchema()).toEqual(
      [
        { name: 'id_value_unique', constraint: true },
        { name: 'history_time', constraint: false },
      ].sort((a, b) => expected.findIndex((o) => o.name === a.name) - expected.findIndex((o) => o.name === b.name)),
    );
    expect(fake.named('store.schema-in-place')).toEqual([{ name: 'store.schema-in-place', params: { names: expected.map((o) => o.name) } }]);
    const complete = fakeStore((name) => (name === 'store.schema-in-place' ? [{ present: expected.map((o) => o.name) }] : undefined));
    expect(await complete.store.missingSchema()).toEqual([]);
  });

  test("when Neo4j refuses a schema statement, then applySchema names the file and Neo4j's code but never the message, which quotes the values found twice; a refused user and an absent Neo4j come out as they are", async () => {
    const duplicate = driverError(
      'Neo.DatabaseError.Schema.ConstraintCreationFailed',
      "Unable to create Constraint( name='idnode_key_unique' ): Both Node(0) and Node(1) have the label `IdNode` and property `keyId` = 'ann@example.com'",
    );
    const refusing = fakeStore((name) => (name === ('schema/idnode.unique-key' as StatementName) ? duplicate : undefined));
    const refused = (await refusing.store.applySchema({ awaitIndexes: false }).catch((e: unknown) => e)) as Error;
    expect(refused.message).toBe('Neo4j refused cypher/schema/idnode.unique-key.cypher (Neo.DatabaseError.Schema.ConstraintCreationFailed).');
    expect(refused.message).not.toContain('ann@example.com');
    for (const code of ['Neo.ClientError.Security.Forbidden', 'Neo.TransientError.General.DatabaseUnavailable']) {
      const error = driverError(code);
      const fake = fakeStore((name) => (name === ('schema/idnode.unique-key' as StatementName) ? error : undefined));
      await expect(fake.store.applySchema({ awaitIndexes: false })).rejects.toBe(error);
    }
    const fine = fakeStore();
    await fine.store.applySchema({ awaitIndexes: true });
    expect(fine.names()).toHaveLength(statements.schema.length + 1);
    expect(fine.named('store.await-indexes')).toHaveLength(1);
    const quick = fakeStore();
    await quick.store.applySchema({ awaitIndexes: false });
    expect(quick.names()).not.toContain('store.await-indexes');
  });

  test('when another service creates the same index at the same moment, then applySchema runs that statement once more and goes on; a conflict that stays is refused', async () => {
    const statementName = 'schema/idnode.index-schema' as StatementName;
    for (const code of ['Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists', 'Neo.ClientError.Schema.IndexWithNameAlreadyExists']) {
      let failures = 1;
      const racing = fakeStore((name) => (name === statementName && failures-- > 0 ? driverError(code) : undefined));
      await racing.store.applySchema({ awaitIndexes: false });
      expect(racing.named(statementName)).toHaveLength(2);
      expect(racing.names()).toContain(statements.schema.at(-1)?.name);
    }
    const conflicting = fakeStore((name) => (name === statementName ? driverError('Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists') : undefined));
    await expect(conflicting.store.applySchema({ awaitIndexes: false })).rejects.toThrow(
      'Neo4j refused cypher/schema/idnode.index-schema.cypher (Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists).',
    );
    expect(conflicting.named(statementName)).toHaveLength(2);
    expect(conflicting.sessions.opened).toBe(conflicting.sessions.closed);
  });

  test('when sessions are opened, then each names the database, is closed afterwards, and reads and writes use their access mode', async () => {
    const fake = fakeStore();
    await fake.store.getSchema('acme', 'member');
    await fake.store.createNode(seeded(member('m1')), []);
    await expect(fake.store.insertIds(seeded(member('m1')), [id('device', 'd1')])).resolves.toBeUndefined();
    expect(fake.sessions.closed).toBe(fake.sessions.opened);
    const [read, write] = [neo4j.session.READ, neo4j.session.WRITE].map((mode) => expect.objectContaining({ database: 'graphdb', defaultAccessMode: mode }));
    // Each write's check reads the policy first (this fake's policy is never kept), then the write is its transaction.
    expect(fake.sessions.configs).toEqual([read, read, write, read, write]);
  });

  describe('search', () => {
    test('when the traversal answers no row (its source deleted meanwhile), then the result is empty', async () => {
      const none = fakeStore((name) => (name === 'search.traverse-all' ? [] : undefined));
      expect(await none.store.searchWithTypes(query({ key: { schemaId: 'member', key: id('member_id', 'a') } }))).toEqual({
        results: [],
        total: 0,
        visitedNodes: 0,
      });
    });

    test('when there is no start node, then the result is empty and nothing is traversed', async () => {
      const byKey = fakeStore((name) => (name === 'search.start-by-key' ? [] : undefined));
      expect(await byKey.store.searchWithTypes(query({ key: { schemaId: 'member', key: id('member_id', 'x') } }))).toEqual({
        results: [],
        total: 0,
        visitedNodes: 0,
      });
      const byWhere = fakeStore((name) => (name === 'search.start-by-where' ? [] : undefined));
      expect(await byWhere.store.searchWithTypes(query({ where: { id: id('device', 'x') } }))).toEqual({ results: [], total: 0, visitedNodes: 0 });
      expect([...byKey.names(), ...byWhere.names()]).toHaveLength(2);
    });
  });

  describe('checked search', () => {
    const unchecked = (overrides: Partial<UncheckedSearch>): UncheckedSearch => ({
      customerId: 'acme',
      step: 'ONE',
      exclude: false,
      authenticated: false,
      limit: 10,
      maxNodes: 50,
      maxIds: 70,
      ...overrides,
    });
    const fromKey = { key: { schemaId: 'member', key: id('member_id', 'a') } };

    test("when a checked search starts from a keyed node, then one round trip reads the policy, finds the node and traverses, and the check gets the policy and the key's schema", async () => {
      const fake = fakeStore();
      const seen: Array<{ policy: CustomerPolicy; schema: SchemaRecord | undefined }> = [];
      const result = await fake.store.search({
        ...unchecked({ ...fromKey, where: { schemaId: 'member', id: id('device', 'd1') } }),
        check: (policy, schema) => {
          seen.push({ policy, schema });
        },
      });
      // One round trip: the policy, the start and the traversal in one statement.
      expect(fake.names()).toHaveLength(1);
      expect(seen).toEqual([
        {
          policy: { settings: { requireToken: false, timezone: 'UTC' }, blockRules: [], secureTypes: new Set(), unlinkedTypes: new Set() },
          schema: { schemaId: 'member', idTypes: [expect.objectContaining({ type: 'member_id' }), expect.objectContaining({ type: 'device' })] },
        },
      ]);
      expect(result).toEqual({ results: [id('member_id', 'm1')], total: 1, visitedNodes: 2 });
      await fake.store.search({ ...unchecked({ ...fromKey, step: 'ALL' }), check: () => undefined });
      expect(fake.names()).toHaveLength(2);
    });

    test('when the check refuses the start, then its refusal comes out, not the answer', async () => {
      const fake = fakeStore();
      const refusal = new DomainError('authentication_required', 'needs a token');
      await expect(
        fake.store.search({
          ...unchecked(fromKey),
          check: () => {
            throw refusal;
          },
        }),
      ).rejects.toBe(refusal);
    });
  });

  /** search.one.cypher's and search.all.cypher's rows: each search of the statement finds its key, and that is its one ID. */
  const searchRows = (params: Record<string, unknown>) =>
    (params.searches as Array<{ index: unknown; keyId: string; sendsPolicy: boolean }>).map(({ index, keyId, sendsPolicy }) => ({
      index,
      // As the statement does: the policy only in the row of the first search of each customer and schema.
      policy: sendsPolicy ? { secureTypes: [], unlinkedTypes: [], settings: [{ requireToken: true, timezone: 'UTC' }], blocklist: [], schema: [] } : null,
      visited: 1,
      ids: [{ type: 'member_id', ids: [keyId] }],
    }));

  /** A checked search of `step` from the member node `keyId`; `check` gets the policy the search read. */
  const keySearch = (fake: ReturnType<typeof fakeStore>, keyId: string, step: 'ONE' | 'ALL', check: StartCheck = () => undefined) =>
    fake.store.search({
      ...{
        customerId: 'acme',
        key: { schemaId: 'member', key: id('member_id', keyId) },
        step,
        exclude: false,
        authenticated: true,
        limit: 10,
        maxNodes: 50,
        maxIds: 70,
      },
      check: check,
    });

  test('when searches from keyed nodes arrive while as many statements of them run as may, then those that wait go together in one statement, each answered its own row', async () => {
    const frozen: Array<() => void> = [];
    const fake = fakeStore((name, params) =>
      name === 'search.one' && frozen.length < SEARCH_STATEMENTS_AT_ONCE
        ? new Promise((resolve) => frozen.push(() => resolve(searchRows(params))))
        : searchRows(params),
    );
    const checkedWith: boolean[] = [];
    const search = (keyId: string) => keySearch(fake, keyId, 'ONE', (policy) => void checkedWith.push(policy.settings.requireToken));
    const first = Array.from({ length: SEARCH_STATEMENTS_AT_ONCE }, (_, i) => search(`first-${i}`));
    const waiting = ['w1', 'w2', 'w3'].map(search);
    await new Promise((resolve) => setImmediate(resolve));
    // The first ones each went at once, alone; the others wait for a statement to end.
    expect(fake.named('search.one').map((c) => (c.params.searches as unknown[]).length)).toEqual(first.map(() => 1));
    frozen.forEach((release) => release());
    const answers = await Promise.all(waiting);
    expect(answers.map((a) => a.results)).toEqual([[id('member_id', 'w1')], [id('member_id', 'w2')], [id('member_id', 'w3')]]);
    expect(fake.named('search.one').map((c) => (c.params.searches as unknown[]).length)).toEqual([...first.map(() => 1), 3]);
    // The three waited together, and the policy of their customer and schema was read once for them.
    expect((fake.named('search.one').at(-1)?.params.policies as unknown[]).length).toBe(1);
    await Promise.all(first);
    // Each was checked against that policy, though only one row carried it.
    expect(checkedWith).toEqual([...first.map(() => true), true, true, true]);
  });

  test('when as many statements of searches ALL run as may, then a search ONE still goes at once', async () => {
    const frozen: Array<() => void> = [];
    const fake = fakeStore((name, params) =>
      name === 'search.all' ? new Promise((resolve) => frozen.push(() => resolve(searchRows(params)))) : searchRows(params),
    );
    const search = (keyId: string, step: 'ONE' | 'ALL') => keySearch(fake, keyId, step);
    const all = Array.from({ length: SEARCH_STATEMENTS_AT_ONCE + 1 }, (_, i) => search(`all-${i}`, 'ALL'));
    expect((await search('one', 'ONE')).results).toEqual([id('member_id', 'one')]);
    expect(fake.named('search.all').map((c) => (c.params.searches as unknown[]).length)).toEqual(Array.from({ length: SEARCH_STATEMENTS_AT_ONCE }, () => 1));
    while (frozen.length > 0) frozen.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
    while (frozen.length > 0) frozen.shift()?.();
    expect((await Promise.all(all)).map((a) => a.results)).toEqual(all.map((_, i) => [id('member_id', `all-${i}`)]));
  });

  test('when a search ONE is running, then searches ALL take one statement at a time, and two again once it has ended', async () => {
    const frozen = new Map<string, Array<() => void>>([
      ['search.one', []],
      ['search.all', []],
    ]);
    const fake = fakeStore((name, params) => {
      const waiting = frozen.get(name);
      return waiting ? new Promise((resolve) => waiting.push(() => resolve(searchRows(params)))) : searchRows(params);
    });
    const release = (name: string) => frozen.get(name)?.shift()?.();
    const one = keySearch(fake, 'one', 'ONE');
    const all = ['a1', 'a2', 'a3'].map((keyId) => keySearch(fake, keyId, 'ALL'));
    await new Promise((resolve) => setImmediate(resolve));
    // With the search ONE running, the second and third searches ALL wait for the first's statement.
    expect(fake.named('search.all').map((c) => (c.params.searches as unknown[]).length)).toEqual([1]);
    release('search.one');
    expect((await one).results).toEqual([id('member_id', 'one')]);
    release('search.all');
    await new Promise((resolve) => setImmediate(resolve));
    // No search ONE is left: the two waiting go together, and a new search ALL gets a second statement.
    const late = keySearch(fake, 'a4', 'ALL');
    await new Promise((resolve) => setImmediate(resolve));
    expect(fake.named('search.all').map((c) => (c.params.searches as unknown[]).length)).toEqual([1, 2, 1]);
    while ((frozen.get('search.all')?.length ?? 0) > 0) release('search.all');
    expect((await Promise.all([...all, late])).map((a) => a.results)).toEqual(['a1', 'a2', 'a3', 'a4'].map((keyId) => [id('member_id', keyId)]));
  });

  describe('graph', () => {
    const graphQuery = (overrides: Partial<GraphQuery>): GraphQuery => ({
      customerId: 'acme',
      step: 'ALL',
      exclude: false,
      hiddenTypes: [],
      unlinkedTypes: [],
      maxNodes: 10,
      maxIds: 10,
      answerNodes: 5,
      ...overrides,
    });
    type Reached = { ref: string; keyId: string; level?: number; start?: boolean; ids?: IdPair[] | null };
    const reached = (withIds: boolean, ...nodes: Reached[]) => [
      {
        policy: { secureTypes: ['email'], unlinkedTypes: ['ip'], settings: [], blocklist: [], schema: [] },
        types: [
          { type: 'email', secure: true, links: true, maxHolders: null },
          { type: 'ip', secure: null, links: false, maxHolders: 3 },
        ],
        visited: nodes.length,
        idsRead: nodes.length,
        withIds,
        nodes: nodes.map((n) => ({
          level: null,
          start: false,
          schema: 'member',
          keyType: 'member_id',
          idCount: 1,
          idChars: 30,
          ...n,
          ids: n.ids === undefined ? (withIds ? [id('member_id', n.keyId)] : null) : n.ids,
        })),
      },
    ];

    test('when the statement read the IDs (the answer fits its room), then no other statement runs, and a node whose IDs it found none of is left out', async () => {
      const fake = fakeStore((name) =>
        name === 'graph.all'
          ? reached(
              true,
              { ref: 'n1', keyId: 'm1', level: 0, start: true },
              { ref: 'n2', keyId: 'm2', level: 1, ids: [] },
              { ref: 'n3', keyId: 'm3', level: 1 },
            )
          : undefined,
      );
      const answer = await fake.store.graphWithTypes(graphQuery({ key: { schemaId: 'member', key: id('member_id', 'm1') } }));
      expect(answer).toEqual({
        nodes: [
          { schemaId: 'member', key: id('member_id', 'm1'), ids: [id('member_id', 'm1')] },
          { schemaId: 'member', key: id('member_id', 'm3'), ids: [id('member_id', 'm3')] },
        ],
        truncated: false,
      });
      expect(fake.names()).toHaveLength(1);
    });

    test('when a node is deleted between the traversal and the read of its IDs, then it is left out', async () => {
      const fake = fakeStore((name) => {
        if (name === 'graph.all') return reached(false, { ref: 'n1', keyId: 'm1', level: 0, start: true }, { ref: 'n2', keyId: 'm2', level: 1 });
        if (name === 'graph.ids') return [{ ref: 'n1', ids: [id('member_id', 'm1')] }];
        return undefined;
      });
      const answer = await fake.store.graphWithTypes(graphQuery({ key: { schemaId: 'member', key: id('member_id', 'm1') } }));
      expect(answer).toEqual({ nodes: [{ schemaId: 'member', key: id('member_id', 'm1'), ids: [id('member_id', 'm1')] }], truncated: false });
    });

    test.each([
      ['before its properties were read', { schema: null, keyType: null, keyId: null }],
      ['between the reads of two of its properties', { schema: 'member', keyType: 'member_id', keyId: null }],
    ])('when a node is deleted after the traversal reached it and %s, then it is left out', async (_when, props) => {
      const fake = fakeStore((name) => {
        if (name === 'graph.all') {
          const [row] = reached(false, { ref: 'n1', keyId: 'm1', level: 0, start: true });
          return [{ ...row, nodes: [row!.nodes[0], { ref: 'n2', level: 1, start: false, ...props, idCount: 0, idChars: 0, ids: null }] }];
        }
        if (name === 'graph.ids') return [{ ref: 'n1', ids: [id('member_id', 'm1')] }];
        return undefined;
      });
      const answer = await fake.store.graphWithTypes(graphQuery({ key: { schemaId: 'member', key: id('member_id', 'm1') } }));
      expect(answer).toEqual({ nodes: [{ schemaId: 'member', key: id('member_id', 'm1'), ids: [id('member_id', 'm1')] }], truncated: false });
      expect(fake.named('graph.ids')[0]?.params).toEqual({ nodes: ['n1'] });
    });

    test("when a checked graph is read, then its statement takes the policy's types, the check gets the policy before anything is answered, and the declarations come with it", async () => {
      const unchecked: UncheckedGraph = { ...graphQuery({ key: { schemaId: 'member', key: id('member_id', 'm1') }, step: 'ONE' }), authenticated: false };
      const fake = fakeStore((name) => (name === 'graph.one' ? reached(true, { ref: 'n1', keyId: 'm1', start: true }) : undefined));
      const seen: CustomerPolicy[] = [];
      const checked = await fake.store.graph({
        ...unchecked,
        check: (policy) => {
          seen.push(policy);
        },
      });
      expect(fake.named('graph.one')[0]?.params).toMatchObject({ authenticated: false, unlinkedTypes: null, hiddenTypes: null });
      expect(seen.map((p) => [[...p.secureTypes], [...p.unlinkedTypes]])).toEqual([[['email'], ['ip']]]);
      expect(checked.component).toEqual({ nodes: [{ schemaId: 'member', key: id('member_id', 'm1'), ids: [id('member_id', 'm1')] }], truncated: false });
      expect(checked.declarations).toEqual([
        { type: 'email', secure: true },
        { type: 'ip', secure: false, links: false, maxHolders: 3 },
      ]);

      const refused = fakeStore((name) => (name === 'graph.one' ? reached(false, { ref: 'n1', keyId: 'm1', start: true }) : undefined));
      const check: StartCheck = () => {
        throw new DomainError('authentication_required', 'A token is required.');
      };
      await expect(refused.store.graph({ ...unchecked, check: check })).rejects.toMatchObject({ code: 'authentication_required' });
      expect(refused.names()).toHaveLength(1);
    });
  });

  describe('node writes', () => {
    test('when a history entry is written and read back, then its stored JSON names request_id, as entries already stored do', async () => {
      const fake = fakeStore();
      await fake.store.createNode(seeded({ ...member('m1'), audit: { requestId: 'r9', actor: 'admin' } }), [id('member_id', 'm1')]);
      const [written] = fake.named('node.create')[0]?.params.history as Array<{ entry: string }>;
      const json: unknown = JSON.parse(written?.entry ?? '{}');
      expect(json).toMatchObject({ request_id: 'r9', actor: 'admin' });
      expect(json).not.toHaveProperty('requestId');
      const { items } = await fake.store.nodeHistory('acme', 'member', id('member_id', 'm1'), 0, 20);
      expect(items).toEqual([expect.objectContaining({ at: '1970-01-01T00:00:00.000Z', requestId: 'r1', actor: 'admin', op: 'create' })]);
      expect(items[0]).not.toHaveProperty('request_id');
    });

    test('when a node write sends its COMMIT, then the next write of its customer begins its transaction before that commit answers', async () => {
      let answer = () => {};
      const fake = fakeStore(undefined, { firstCommitAnswers: new Promise<void>((resolve) => (answer = resolve)) });
      const first = fake.store.createNode(seeded(member('m1')), [id('device', 'd1')]);
      const second = fake.store.createNode(seeded(member('m2')), [id('device', 'd2')]);
      for (let i = 0; i < 100 && fake.writes() < 2; i += 1) await settle();
      // The second runs its statements while the first's commit has not answered.
      expect(fake.writes()).toBe(2);
      expect(fake.ends).toEqual([]);
      answer();
      await Promise.all([first, second]);
      expect(fake.ends).toEqual(['commit', 'commit']);
    });

    describe('a policy kept between writes', () => {
      const rules = JSON.stringify([{ type: 'device', values: ['d9'] }]);
      const policyRow = (digest: string | null) => ({
        secureTypes: [],
        unlinkedTypes: [],
        settings: [{ requireToken: false, timezone: 'UTC' }],
        blocklist: [rules],
        blocklistDigest: [digest],
        schema: [{ schemaId: 'member', idTypes: [{ type: 'member_id', secure: false, links: true, maxHolders: null, position: 0 }] }],
      });
      const guardRow = (digest: string) => [
        { declared: [{ type: 'member_id', secure: false, links: true, maxHolders: null }], requireToken: [false], blocklistDigest: [digest] },
      ];
      const expected = [{ type: 'member_id', secure: false }];
      /** A fake store whose policy reads and guards answer the blocklist `rules` until `block` puts others. */
      const storeWithRules = () => {
        let current = rules;
        const row = () => ({ ...policyRow(blocklistDigest(current)), blocklist: [current] });
        const fake = fakeStore((name) => (name === 'customer.policy' ? [row()] : name === 'schema.guard' ? guardRow(blocklistDigest(current)) : undefined));
        return { fake, block: (text: string) => (current = text) };
      };

      /** A write to `key` whose check records each read it is run against and refuses those `refuses` says. */
      const checkedBy = (seen: SchemaWithPolicy[], key: string, refuses = (_read: SchemaWithPolicy) => false): CheckedNode => ({
        customerId: 'acme',
        schemaId: 'member',
        check: (read) => {
          seen.push(read);
          if (refuses(read)) throw new DomainError('blocked_id', 'refused by the check');
          return { ...member(key), expectedTypes: expected };
        },
      });

      test('when writes are checked, then against what the store kept; when a guard reads another blocklist, then checked again against a fresh read, which is kept', async () => {
        const { fake, block } = storeWithRules();
        const seen: SchemaWithPolicy[] = [];
        await fake.store.createNode(checkedBy(seen, 'm1'), []);
        await fake.store.createNode(checkedBy(seen, 'm2'), []);
        expect(fake.named('customer.policy')).toHaveLength(1);
        expect(seen[1]).toBe(seen[0]);
        // A plain read neither answers what is kept nor replaces it.
        await fake.store.schemaWithPolicy('acme', 'member');
        expect(fake.named('customer.policy')).toHaveLength(2);

        block('[]');
        await fake.store.createNode(checkedBy(seen, 'm3'), []);
        // Checked against the kept read, refused by the guard (schema_changed), read afresh and checked again.
        expect(fake.named('customer.policy')).toHaveLength(3);
        expect(fake.named('node.create').map((c) => c.params.keyId)).toEqual(['m1', 'm2', 'm3', 'm3']);
        expect(seen[2]).toBe(seen[0]);
        expect(seen[3]).not.toBe(seen[0]);
        await fake.store.createNode(checkedBy(seen, 'm4'), []);
        expect(fake.named('customer.policy')).toHaveLength(3);
        expect(seen[4]).toBe(seen[3]);
      });

      test("when a check refuses a kept read, then it runs again against a fresh one, whose answer is the write's", async () => {
        const { fake } = storeWithRules();
        const seen: SchemaWithPolicy[] = [];
        await fake.store.createNode(checkedBy(seen, 'm1'), []);
        // Refused against the kept read only: the fresh one lets it through.
        await fake.store.createNode(
          checkedBy(seen, 'm2', (read) => read === seen[0]),
          [],
        );
        expect(fake.named('customer.policy')).toHaveLength(2);
        expect(fake.named('node.create').map((c) => c.params.keyId)).toEqual(['m1', 'm2']);
        // Refused against both: the refusal is the answer, and nothing is written.
        await expect(
          fake.store.createNode(
            checkedBy(seen, 'm3', () => true),
            [],
          ),
        ).rejects.toMatchObject({ code: 'blocked_id' });
        expect(fake.named('customer.policy')).toHaveLength(3);
        expect(fake.named('node.create').map((c) => c.params.keyId)).toEqual(['m1', 'm2']);
      });

      test('when a node write checked against a kept policy is refused because the blocklist changed, then its next attempt reads afresh and it goes through', async () => {
        const { fake, block } = storeWithRules();
        const nodes = new NodeService(fake.store, { nodeMaxIds: 100 });
        const actor = { customerId: 'acme', authenticated: true };
        await nodes.create(actor, { schema: 'member', key: { type: 'member_id', id: 'm1' } });
        block(JSON.stringify([{ type: 'device', values: ['d8'] }]));
        await nodes.create(actor, { schema: 'member', key: { type: 'member_id', id: 'm2' } });
        // m1 read and kept the policy; m2 was checked against it and refused by its guard (its node.create, sent
        // with the guard, rolled back), then read the policy afresh and went.
        expect(fake.named('customer.policy')).toHaveLength(2);
        expect(fake.named('schema.guard')).toHaveLength(3);
        expect(fake.named('node.create').map((c) => c.params.keyId)).toEqual(['m1', 'm2', 'm2']);
        // The fresh read is kept: the next write reads nothing.
        await nodes.create(actor, { schema: 'member', key: { type: 'member_id', id: 'm3' } });
        expect(fake.named('customer.policy')).toHaveLength(2);
      });

      test('when a delete or an ID removal is checked against a kept policy, then its transaction reads the policy beside its lock; changed, the next attempt reads afresh and goes through', async () => {
        const { fake, block } = storeWithRules();
        const nodes = new NodeService(fake.store, { nodeMaxIds: 100 });
        const actor = { customerId: 'acme', authenticated: false };
        const m1 = { schema: 'member', key: { type: 'member_id', id: 'm1' } };
        await nodes.create(actor, m1);
        expect(fake.named('customer.policy')).toHaveLength(1);
        /** The kinds of the round trips since `from`: auto-commit reads and write transactions. */
        const since = (from: number) => fake.txConfigs.slice(from).map((t) => t.kind);
        const before = fake.txConfigs.length;
        await nodes.delete(actor, m1);
        // No read before the transaction: the kept policy's is read again in it, beside the lock.
        expect(since(before)).toEqual(['write']);
        expect(fake.named('customer.policy')).toHaveLength(2);
        expect(fake.named('node.delete')).toHaveLength(1);

        block(JSON.stringify([{ type: 'device', values: ['d8'] }]));
        const [reads, locks] = [fake.named('customer.policy').length, fake.named('node.lock').length];
        await nodes.delete(actor, m1);
        // Refused in its transaction (before node.delete), read afresh outside one, then checked again in the next.
        expect(fake.named('customer.policy')).toHaveLength(reads + 3);
        expect(fake.named('node.lock')).toHaveLength(locks + 2);
        expect(fake.named('node.delete')).toHaveLength(2);

        // An ID removal, checked against the policy kept by that fresh read: its read in its transaction, as a delete's.
        const [removing, policyReads] = [fake.txConfigs.length, fake.named('customer.policy').length];
        await nodes.delete(actor, { ...m1, where: { type: 'member_id', id: 'm9' } });
        expect(since(removing)).toEqual(['write']);
        expect(fake.named('customer.policy')).toHaveLength(policyReads + 1);
      });

      test('when the rules read are not the ones their digest names, or the schema is absent, then nothing is kept', async () => {
        for (const row of [policyRow('another digest'), policyRow(null), { ...policyRow(blocklistDigest(rules)), schema: [] }]) {
          const fake = fakeStore((name) => (name === 'customer.policy' ? [row] : undefined));
          const seen: SchemaWithPolicy[] = [];
          // Whatever the writes answer, each read the policy for its check.
          await fake.store.createNode(checkedBy(seen, 'm1'), []).catch(() => undefined);
          await fake.store.createNode(checkedBy(seen, 'm2'), []).catch(() => undefined);
          expect(fake.named('customer.policy')).toHaveLength(2);
        }
      });
    });

    test('when createNode meets the key constraint, then node_exists; when the schema is gone, then schema_not_found', async () => {
      const taken = fakeStore((name) => (name === 'node.create' ? driverError('Neo.ClientError.Schema.ConstraintValidationFailed') : undefined));
      await expect(taken.store.createNode(seeded(member('m1')), [])).rejects.toMatchObject({ code: 'node_exists' });
      const noSchema = fakeStore((name) => (name === 'node.create' ? [] : undefined));
      await expect(noSchema.store.createNode(seeded(member('m1')), [])).rejects.toMatchObject({ code: 'schema_not_found' });
    });

    test('when a node write finds no node, then node_not_found and nothing runs but the read sent with the lock', async () => {
      for (const write of [
        (s: Neo4jStore) => s.insertIds(seeded(member('x')), [id('device', 'd1')]),
        (s: Neo4jStore) => s.replaceId(seeded(member('x')), id('device', 'd1'), id('device', 'd2'), true),
        (s: Neo4jStore) => s.rekey(seeded(member('x')), 'y'),
        (s: Neo4jStore) => s.removeId(seeded(member('x')), id('device', 'd1')),
        (s: Neo4jStore) => s.deleteNode(seeded(member('x'))),
      ]) {
        const fake = fakeStore((name) => (name === 'node.lock' ? [] : undefined));
        await expect(write(fake.store)).rejects.toMatchObject({ code: 'node_not_found' });
        // The check's read of the policy, then the lock and the read sent with it: nothing written.
        expect(fake.names()).toHaveLength(3);
      }
    });

    test('when the node was rekeyed away while the write waited for its lock, then node_not_found and nothing else runs', async () => {
      // The statement after the lock finds the node by its key again: node.ids for a delete, node.held-among (which
      // also requires the locked node) for the others.
      for (const write of [
        (s: Neo4jStore) => s.insertIds(seeded(member('m1')), [id('device', 'd1')]),
        (s: Neo4jStore) => s.replaceId(seeded(member('m1')), id('device', 'd1'), id('device', 'd2'), true),
        (s: Neo4jStore) => s.rekey(seeded(member('m1')), 'm8'),
        (s: Neo4jStore) => s.removeId(seeded(member('m1')), id('device', 'd1')),
      ]) {
        const fake = fakeStore((name) => (name === 'node.held-among' ? [] : undefined));
        await expect(write(fake.store)).rejects.toMatchObject({ code: 'node_not_found' });
        // The check's read of the policy, then the lock and the read sent with it: nothing written.
        expect(fake.names()).toHaveLength(3);
      }
      // No node has the key any more, or another node has it now.
      for (const now of [[], [{ node: 'n2', ids: [] }]]) {
        const fake = fakeStore((name) => (name === 'node.ids' ? now : undefined));
        await expect(fake.store.deleteNode(seeded(member('m1')))).rejects.toMatchObject({ code: 'node_not_found' });
        expect(fake.names()).toHaveLength(3);
      }
    });

    test('when a delete of a bulk batch finds at its key another node than the one it locked, then that line is node_not_found, as a lone delete answers it', async () => {
      // m3's node was rekeyed while its lock was awaited: its key now names another node, in the batch and alone.
      const fake = fakeStore((name, params) => {
        if (name === 'node.ids-many')
          return (params.rows as Array<{ line: number }>).map(({ line }) => ({ line, node: line === 1 ? 'other' : `n${line}`, ids: [] }));
        if (name === 'node.ids' && params.keyId === 'm3') return [{ node: 'other', ids: [] }];
        return undefined;
      });
      const outcomes = await fake.store.applyNodeWrites(['m2', 'm3', 'm4'].map((k): NodeWrite => ({ kind: 'deleteNode', node: seeded(member(k)) })));
      expect(outcomes.map((o) => o?.code)).toEqual([undefined, 'node_not_found', undefined]);
    });

    test('when rekey targets a key in use, then node_exists, before or at the constraint; the same id changes nothing', async () => {
      const taken = fakeStore((name, params) => (name === 'node.find' && params.keyId === 'm9' ? [{ node: 'n9' }] : undefined));
      await expect(taken.store.rekey(seeded(member('m1')), 'm9')).rejects.toMatchObject({ code: 'node_exists' });
      expect(taken.named('node.rekey')).toEqual([]);
      const raced = fakeStore((name) => (name === 'node.rekey' ? driverError('Neo.ClientError.Schema.ConstraintValidationFailed') : undefined));
      await expect(raced.store.rekey(seeded(member('m1')), 'm9')).rejects.toMatchObject({ code: 'node_exists' });
      const same = fakeStore();
      await same.store.rekey(seeded(member('m1')), 'm1');
      // The check's read, the lock and the read sent with it; nothing written.
      expect(same.names()).toHaveLength(3);
    });
  });

  describe('NODE_MAX_IDS', () => {
    const limited = (memberId: string, maxIds: number): NodeAddress => ({ ...member(memberId), maxIds });

    test('when createNode would hold more than maxIds IDs, the key counted once, then node_id_limit_reached and nothing runs', async () => {
      const fake = fakeStore();
      await expect(fake.store.createNode(seeded(limited('m1', 2)), [id('member_id', 'm1'), id('device', 'd1'), id('device', 'd2')])).rejects.toMatchObject({
        code: 'node_id_limit_reached',
      });
      // Refused before any statement of the write: one round trip, the check's read of the policy.
      expect(fake.names()).toHaveLength(1);
      expect(fake.named('customer.policy')).toHaveLength(1);
      await fake.store.createNode(seeded(limited('m1', 3)), [id('member_id', 'm1'), id('device', 'd1'), id('device', 'd2')]);
      // A single create writes its history entry in node.create itself: its check's read, then one statement.
      expect(fake.names()).toHaveLength(3);
      expect(fake.named('node.create')).toHaveLength(1);
      expect(fake.named('node.create')[0]?.params.history).toEqual([expect.objectContaining({ keyType: 'member_id', keyId: 'm1' })]);
    });
  });

  describe('showing messages', () => {
    const person = { customerId: 'acme', user: id('device', 'd1'), unlinkedTypes: ['ip'], maxNodes: 10, maxIds: 10 };
    const impression = { person, deliveryId: 7, platform: 'ios' as const, day: '2026-06-01', receivedAt: '2026-06-01T00:00:00.000Z' };

    test('when eligibility is read twice, then the second weighs the catalogue kept by the first, with the live counts person.counts reads', async () => {
      let live = 3;
      const fake = fakeStore((name, params) =>
        name === 'person.counts'
          ? [
              {
                visited: 1,
                idsRead: 2,
                counts: [{ deliveryId: 7, total: 2, today: 1 }],
                ...NO_POLICY,
                ...unchangedCatalogue(params.deliveryIds),
                live: (params.deliveryIds as Integer[]).map(() => ({ deliveryId: 7, deliveryCount: live, iphoneCount: 1, androidCount: 2 })),
              },
            ]
          : undefined,
      );
      const first = await fake.store.eligibility(checkedPerson(person, '2026-06-01'));
      expect(first.deliveries).toEqual([storedDelivery]);
      expect(first.person).toEqual(new Map([[7, { total: 2, today: 1 }]]));
      live = 9;
      const second = await fake.store.eligibility(checkedPerson(person, '2026-06-01'));
      expect(second.deliveries.map((d) => d.condition.deliveryCount)).toEqual([9]);
      expect(second.person).toEqual(first.person);
      expect(fake.names().filter((n) => n === 'delivery.catalogue' || n === 'person.counts')).toHaveLength(3);
      expect(fake.named('person.counts').map((c) => (c.params.deliveryIds as Integer[]).map(String))).toEqual([[], ['7']]);
      const counts = fake.named('person.counts')[0]?.params;
      expect([counts?.type, counts?.value, counts?.unlinkedTypes, String(counts?.maxNodes), neo4j.isInt(counts?.maxNodes)]).toEqual([
        'device',
        'd1',
        ['ip'],
        '10',
        true,
      ]);
      expect(counts).toMatchObject({ day: '2026-06-01' });
    });

    test('when person.counts answers another catalogue version than the kept one, then the catalogue is read again, asking only for documents that changed', async () => {
      let version = 0;
      const fake = fakeStore((name, params) =>
        name === 'person.counts'
          ? [{ visited: 1, idsRead: 2, counts: [], ...NO_POLICY, ...unchangedCatalogue(params.deliveryIds), catalogueVersion: version === 0 ? [] : [version] }]
          : name === 'delivery.catalogue'
            ? [{ version, deliveryId: 7, revision: 2, ...STORED_COUNTS, document: isKnown(params.known, 7, 2) ? null : storedDocument }]
            : undefined,
      );
      await fake.store.eligibility(checkedPerson(person, '2026-06-01'));
      version = 4;
      expect((await fake.store.eligibility(checkedPerson(person, '2026-06-01'))).deliveries).toEqual([storedDelivery]);
      expect(fake.names().filter((n) => n === 'delivery.catalogue' || n === 'person.counts')).toHaveLength(5);
      const [before, after] = fake.named('delivery.catalogue').map((c) => c.params.known as unknown[]);
      expect(before).toEqual([]);
      expect(isKnown(after, 7, 2)).toBe(true);
      // Kept again at the new version: the next eligibility reads no catalogue.
      await fake.store.eligibility(checkedPerson(person, '2026-06-01'));
      expect(fake.named('delivery.catalogue')).toHaveLength(2);
    });

    test('when nothing in a kept catalogue is left to weigh, then the catalogue is read again instead of the person', async () => {
      const fake = fakeStore();
      await fake.store.eligibility(checkedPerson(person, '2026-06-01'));
      const state = await fake.store.eligibility(checkedPerson(person, '2026-06-01'), () => false);
      expect(state.others).toEqual([storedDelivery]);
      expect(fake.names().filter((n) => n === 'delivery.catalogue' || n === 'person.counts')).toHaveLength(3);
    });

    test('when a person is checked against a kept policy that person.counts reads otherwise, then checked again against fresh reads, the last not compared; when it reads the same, then the counts', async () => {
      let timezone = ['UTC'];
      const fake = fakeStore((name, params) =>
        name === 'customer.policy'
          ? [{ secureTypes: [], unlinkedTypes: ['ip'], settings: [{ requireToken: false, timezone: 'UTC' }], blocklist: [], schema: [] }]
          : name === 'person.counts'
            ? [
                {
                  visited: 1,
                  idsRead: 2,
                  counts: [{ deliveryId: 7, total: 2, today: 1 }],
                  secureTypes: [],
                  unlinkedTypes: ['ip'],
                  timezone,
                  ...unchangedCatalogue(params.deliveryIds),
                },
              ]
            : name === 'impression.count'
              ? [
                  {
                    ...(defaultAnswer(name, params)[0] as object),
                    outcome: firstImpression(params).keptPolicy === null || timezone[0] === 'UTC' ? 'counted' : 'schema_changed',
                  },
                ]
              : undefined,
      );
      const checked: CheckedPerson = {
        customerId: 'acme',
        check: (policy) => ({ person: { ...person, unlinkedTypes: [...policy.unlinkedTypes] }, day: '2026-06-01' }),
      };
      const { person: _person, day: _day, ...counted } = impression;
      expect((await fake.store.eligibility(checked)).person).toEqual(new Map([[7, { total: 2, today: 1 }]]));
      expect((await fake.store.eligibility(checked)).person).toEqual(new Map([[7, { total: 2, today: 1 }]]));
      await expect(fake.store.recordImpression({ ...counted, person: checked })).resolves.toMatchObject({ replayed: false });
      // Read once, kept: the statement compares the kept policy itself.
      expect(fake.named('customer.policy')).toHaveLength(1);
      expect(firstImpression(fake.named('impression.count')[0]?.params ?? {}).keptPolicy).toEqual({ secureTypes: [], unlinkedTypes: ['ip'], timezone: 'UTC' });

      timezone = ['Asia/Tokyo'];
      const reads = fake.named('person.counts').length;
      // Refused against the kept policy and the renewed one (this fake's policy reads never say Tokyo), then read without keeping.
      expect((await fake.store.eligibility(checked)).person).toEqual(new Map([[7, { total: 2, today: 1 }]]));
      expect(fake.named('person.counts')).toHaveLength(reads + 3);
      await expect(fake.store.recordImpression({ ...counted, person: checked })).resolves.toMatchObject({ replayed: false });
      expect(fake.named('impression.count').map((c) => firstImpression(c.params).keptPolicy === null)).toEqual([false, false, false, true]);
    });

    /** A store whose impression.count answers `outcome`, with `row` over its default row. */
    const answering = (outcome: string, row: object = {}) =>
      fakeStore((name, params) => (name === 'impression.count' ? [{ ...(defaultAnswer(name, params)[0] as object), outcome, ...row }] : undefined));

    test('when the statement refuses the impression, then the error of its refusal, and nothing else runs', async () => {
      const refusals = [
        ['component_too_large', 'component_too_large'],
        ['delivery_not_found', 'delivery_not_found'],
        ['invalid_token', 'invalid_token'],
        ['schema_changed', 'schema_changed'],
      ];
      for (const [outcome, code] of refusals) {
        const refused = answering(outcome as string, { answerCounts: null });
        await expect(refused.store.recordImpression(checkedImpression(impression))).rejects.toMatchObject({ code });
        // Beside the reads of the policy the impression is checked against: schema_changed checks it again.
        const runs = outcome === 'schema_changed' ? POLICY_ATTEMPTS : 1;
        expect(refused.names().filter((name) => name !== 'customer.policy')).toEqual(Array<string>(runs).fill('impression.count'));
      }
    });

    test('when an impression is counted, then in one auto-commit statement, and the answer is its counts', async () => {
      const fake = fakeStore();
      const outcome = await fake.store.recordImpression(checkedImpression({ ...impression, idempotencyKey: 'k1' }));
      expect(outcome).toEqual({ answer: { deliveryId: 7, deliveryCount: 4, personTotal: 3, personToday: 2 }, replayed: false });
      // Two round trips: the read of the policy the impression is checked against, and the impression.
      expect(fake.names()).toHaveLength(2);
      expect(fake.named('impression.count')).toHaveLength(1);
      expect(firstImpression(fake.named('impression.count')[0]?.params ?? {})).toMatchObject({
        deliveryId: neo4j.int(7),
        type: 'device',
        value: 'd1',
        day: '2026-06-01',
        platform: 'ios',
        key: 'k1',
        mapiToken: null,
        // What the check used of the policy read, for the statement to compare.
        keptPolicy: { secureTypes: [], unlinkedTypes: [], timezone: null },
      });
      expect(fake.ends).toEqual([]);
      expect(fake.txConfigs.map((c) => c.kind)).toEqual(['read', 'write']);
    });

    test('when the statement refuses over a cap, then refuseOverCap names it, judged on the delivery and the person the statement read', async () => {
      // storedDelivery's caps: 3 in all, 1 a day. The person at 3 is refused; below both caps, the refusal is a fault.
      const refused = answering('max_total_count', { answerCounts: null, document: storedDocument, total: 3 });
      await expect(refused.store.recordImpression(checkedImpression(impression))).rejects.toMatchObject({
        code: 'cap_reached',
        members: { cap: 'max_total_count' },
      });
      const disagreeing = answering('max_total_count', { answerCounts: null, document: storedDocument, total: 2, today: 0 });
      await expect(disagreeing.store.recordImpression(checkedImpression(impression))).rejects.toThrow('which refuseOverCap lets through');
    });

    test('when the key was used, then its answer, as an earlier version stored it or as its counts, replayed', async () => {
      // The earlier answer as an earlier version stored it (a document with the wire's names), and as its counts.
      const earlier = { delivery_id: 7, delivery_count: 1, person_total: 1, person_today: 1 };
      const replays = [answering('replayed', { answer: JSON.stringify(earlier), answerCounts: null }), answering('replayed', { answerCounts: [1, 1, 1] })];
      for (const replay of replays) {
        await expect(replay.store.recordImpression(checkedImpression({ ...impression, idempotencyKey: 'k1' }))).resolves.toEqual({
          answer: { deliveryId: 7, deliveryCount: 1, personTotal: 1, personToday: 1 },
          replayed: true,
        });
      }
    });

    test("when the delivery's vertex lacks its caps, then they are copied from its document and the impression runs again", async () => {
      let runs = 0;
      const fake = fakeStore((name, params) =>
        name === 'impression.count' && (runs += 1) === 1
          ? [{ ...(defaultAnswer(name, params)[0] as object), outcome: 'caps_unknown', answerCounts: null, document: storedDocument }]
          : undefined,
      );
      await expect(fake.store.recordImpression(checkedImpression(impression))).resolves.toMatchObject({ replayed: false });
      // The policy's read, the impression, the copy of the caps, and the impression again.
      expect(fake.names()).toHaveLength(4);
      expect(fake.named('impression.count')).toHaveLength(2);
      expect(fake.named('delivery.keep-caps')).toHaveLength(1);
      const { condition: c } = storedDelivery;
      expect(fake.named('delivery.keep-caps')[0]?.params).toEqual({
        customer: 'acme',
        deliveryId: neo4j.int(7),
        document: storedDocument,
        maxDeliveryCount: neo4j.int(c.maxDeliveryCount),
        maxTotalCount: neo4j.int(c.maxTotalCount),
        maxTotalCountPerDay: neo4j.int(c.maxTotalCountPerDay),
      });
      const [first, second] = fake.named('impression.count').map((call) => firstImpression(call.params).write);
      expect(second).toBe(first);
    });
  });

  describe('driver errors and lifecycle', () => {
    /** A statement that answers only when the test calls the release it returns (a frozen Neo4j, then thawed). */
    function frozenStatement(frozen: StatementName) {
      let release: () => void = () => undefined;
      const thawed = new Promise<Answer>((resolve) => (release = () => resolve(defaultAnswer(frozen, {}))));
      return { handler: ((name: StatementName) => (name === frozen ? thawed : undefined)) as Handler, release: () => release() };
    }

    test.each([
      { what: 'a read', frozen: 'node.ids' as const, call: (store: Neo4jStore) => store.getNodeIds(member('m1')) },
      { what: 'a write', frozen: 'node.create' as const, call: (store: Neo4jStore) => store.createNode(seeded(member('m1')), []) },
    ])(
      'when $what gets no answer within NEO4J_CALL_TIMEOUT_MS, then it is 503 store_unavailable at the limit, and its session is closed only once the call ends',
      async ({ frozen, call }) => {
        const neo4jFrozen = frozenStatement(frozen);
        const fake = fakeStore(neo4jFrozen.handler, { callTimeoutMs: 200 });
        const asked = Date.now();
        await expect(call(fake.store)).rejects.toMatchObject({ code: 'store_unavailable', message: 'Neo4j did not answer within 0.2 s.' });
        expect(Date.now() - asked).toBeGreaterThanOrEqual(190);
        // Closing a session waits for its transaction: the session is left to close when Neo4j answers (a write's
        // check read the policy in a session of its own, closed already).
        expect(fake.sessions.opened - fake.sessions.closed).toBe(1);
        neo4jFrozen.release();
        await new Promise((resolve) => setImmediate(resolve));
        expect(fake.sessions.closed).toBe(fake.sessions.opened);
      },
    );

    test('when a call is made, then each of its transactions tells Neo4j the time left of the call as its timeout, so Neo4j ends it by then too', async () => {
      const fake = fakeStore(undefined, { callTimeoutMs: 4_000 });
      await fake.store.getNodeIds(member('m1'));
      await fake.store.createNode(seeded(member('m2')), []);
      await fake.store.ping();
      // The read, the write's check (a read), the write, the ping.
      expect(fake.txConfigs.map((t) => t.kind)).toEqual(['read', 'read', 'write', 'run']);
      const timeouts = fake.txConfigs.map((t) => (t.config as { timeout?: number } | undefined)?.timeout ?? -1);
      for (const [kind, timeout, limit] of [
        ['read', timeouts[0], 4_000],
        ['check', timeouts[1], 4_000],
        ['write', timeouts[2], 4_000],
        ['ping', timeouts[3], 3_000],
      ] as const) {
        expect([kind, (timeout ?? -1) > limit - 1_000 && (timeout ?? -1) <= limit]).toEqual([kind, true]);
      }
    });

    test('when Neo4j cannot be reached or stays transiently failing, then store_unavailable', async () => {
      for (const code of [
        'ServiceUnavailable',
        'SessionExpired',
        'Neo.TransientError.Transaction.DeadlockDetected',
        'Neo.ClientError.Security.Unauthorized',
        'Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration',
        'Neo.ClientError.Transaction.LockClientStopped',
      ]) {
        const fake = fakeStore(() => driverError(code));
        await expect(fake.store.getNodeIds(member('m1'))).rejects.toMatchObject({ code: 'store_unavailable' });
        await expect(fake.store.createNode(seeded(member('m1')), [])).rejects.toMatchObject({ code: 'store_unavailable' });
      }
    });

    // Driver errors that say "unavailable" only by their message: their code is one that other faults share.
    test.each([
      {
        // The message neo4j-driver-core's pool writes (internal/pool/pool.js, getAcquisitionTimeoutError), code N/A.
        when: 'every pooled connection stays busy past the acquisition timeout',
        code: 'N/A',
        unavailable: 'Connection acquisition timed out in 10000 ms. Pool status: Active conn count = 100, Idle conn count = 0.',
        other: 'Some other local failure',
      },
      {
        // What BoltProtocol._onLoginError makes of the channel's ServiceUnavailable: its message, as a ProtocolError.
        when: 'the server closes a connection while the driver logs in',
        code: 'ProtocolError',
        unavailable: 'Connection was closed by server',
        other: 'Received FAILURE as a response for RESET: oops',
      },
      {
        // The channel's other message, for a socket error (seen: EPIPE from a server stopping).
        when: 'a write to a new connection fails while the driver logs in',
        code: 'ProtocolError',
        unavailable:
          'Failed to connect to server. Please ensure that your database is listening on the correct host and port and that you have compatible encryption settings both on Neo4j server and driver. Note that the default encryption setting has changed in Neo4j 4.0. Caused by: write EPIPE',
        other: 'Unknown Bolt protocol version: 9',
      },
    ])('when $when, then store_unavailable; other $code errors stay 500s', async ({ code, unavailable, other }) => {
      const down = fakeStore(() => driverError(code, unavailable));
      await expect(down.store.getNodeIds(member('m1'))).rejects.toMatchObject({ code: 'store_unavailable' });
      await expect(down.store.createNode(seeded(member('m1')), [])).rejects.toMatchObject({ code: 'store_unavailable' });
      const fault = driverError(code, other);
      await expect(fakeStore(() => fault).store.getNodeIds(member('m1'))).rejects.toBe(fault);
    });

    test('when a statement fails otherwise, then the error comes out as it is (a 500, details only in the log), and the call is not run again', async () => {
      const syntax = driverError('Neo.ClientError.Statement.SyntaxError', 'Invalid input');
      const fake = fakeStore(() => syntax);
      await expect(fake.store.listSchemas('acme')).rejects.toBe(syntax);
      expect(fake.names()).toHaveLength(1);
    });

    test('when a read or a write fails transiently (a deadlock, a connection lost), then it is run again until it succeeds', async () => {
      let failures = 2;
      const transient = (name: StatementName) => (name === 'node.ids' || name === 'node.create') && failures-- > 0;
      // Retries for as long as a busy machine may take to run them: what is checked is that they succeed, not when.
      const flaky = fakeStore((name) => (transient(name) ? driverError('Neo.TransientError.Transaction.DeadlockDetected') : undefined), {
        maxRetryTimeMs: 10_000,
      });
      await expect(flaky.store.getNodeIds(member('m1'))).resolves.toEqual(expect.any(Array));
      expect(flaky.named('node.ids')).toHaveLength(3);
      failures = 2;
      await expect(flaky.store.createNode(seeded(member('m1')), [])).resolves.toBeUndefined();
      expect(flaky.named('node.create')).toHaveLength(3);
      expect(flaky.writes()).toBe(3);
    });

    test('when a write runs into a vertex deleted concurrently, then it is run again, at most three times', async () => {
      let failures = 2;
      const flaky = fakeStore((name) => (name === 'node.lock' && failures-- > 0 ? driverError('Neo.ClientError.Statement.EntityNotFound') : undefined));
      await expect(flaky.store.removeId(seeded(member('m1')), id('device', 'd1'))).resolves.toBeUndefined();
      expect(flaky.writes()).toBe(3);
      const broken = fakeStore((name) => (name === 'node.lock' ? driverError('Neo.ClientError.Statement.EntityNotFound') : undefined));
      await expect(broken.store.removeId(seeded(member('m1')), id('device', 'd1'))).rejects.toMatchObject({ code: 'Neo.ClientError.Statement.EntityNotFound' });
      expect(broken.writes()).toBe(3);
    });

    test('when a read runs into a vertex deleted concurrently, then it is run again, at most three times', async () => {
      let failures = 2;
      const flaky = fakeStore((name) => (name === 'node.ids' && failures-- > 0 ? driverError('Neo.ClientError.Statement.EntityNotFound') : undefined));
      await expect(flaky.store.getNodeIds(member('m1'))).resolves.toEqual(expect.any(Array));
      expect(flaky.named('node.ids')).toHaveLength(3);
      const broken = fakeStore((name) => (name === 'node.ids' ? driverError('Neo.ClientError.Statement.EntityNotFound') : undefined));
      await expect(broken.store.getNodeIds(member('m1'))).rejects.toMatchObject({ code: 'Neo.ClientError.Statement.EntityNotFound' });
      expect(broken.named('node.ids')).toHaveLength(3);
    });

    test('when impressions share a statement and its reply is lost, then it runs again, and each answers what the committed run counted for it', async () => {
      const counted = new Set<unknown>();
      const fake = fakeStore(
        (name, params) =>
          name === 'impression.count'
            ? (params.impressions as Array<{ index: Integer; write: unknown }>).map((i) => {
                const before = counted.has(i.write);
                counted.add(i.write);
                return {
                  ...(defaultAnswer(name, { impressions: [i] })[0] as object),
                  index: i.index.toNumber(),
                  outcome: before ? 'counted_before' : 'counted',
                };
              })
            : undefined,
        { loseCommitReplies: true },
      );
      const person = { customerId: 'acme', user: id('device', 'd1'), unlinkedTypes: [], maxNodes: 10, maxIds: 10 };
      const impression = (deliveryId: number) => ({ person, deliveryId, platform: 'ios' as const, day: '2026-06-01', receivedAt: '2026-06-01T00:00:00.000Z' });
      const outcomes = await Promise.all([1, 2, 3, 4, 5].map((d) => fake.store.recordImpression(checkedImpression(impression(d)))));
      expect(outcomes.map((o) => [o.answer.deliveryId, o.replayed])).toEqual([1, 2, 3, 4, 5].map((d) => [d, false]));
      const runs = fake.named('impression.count').map((c) => (c.params.impressions as Array<{ write: unknown }>).map((i) => i.write));
      // The three that waited went together, and that statement ran again with the same write ids.
      const shared = runs.filter((writes) => writes.length === 3);
      expect(shared).toHaveLength(2);
      expect(shared[1]).toEqual(shared[0]);
      expect(counted.size).toBe(5);
    });

    test("when a commit reply is lost and nothing carries this call's write id, then the write runs again with the same write id", async () => {
      const fake = fakeStore((name) => (name === 'node.last-write' ? [{ lastWrite: 'another-call' }] : undefined), { loseCommitReplies: true });
      await fake.store.createNode(seeded(member('m1')), []);
      expect(fake.named('node.create')).toHaveLength(2);
      const [first, second] = fake.named('node.create');
      expect(first?.params.write).toEqual(second?.params.write);
    });

    test("when a node delete's commit reply is lost and no history entry carries its write id, then it runs again: a node another call deleted meanwhile is node_not_found", async () => {
      let locks = 0;
      const fake = fakeStore(
        (name) => {
          if (name === 'history.written-by') return [];
          if (name === 'node.lock' && ++locks > 1) return [];
          return undefined;
        },
        { loseCommitReplies: true },
      );
      await expect(fake.store.deleteNode(seeded(member('m1')))).rejects.toMatchObject({ code: 'node_not_found' });
      // Two attempts; the second found no node to lock, and deleted nothing.
      expect(fake.named('node.lock')).toHaveLength(2);
      expect(fake.named('node.delete')).toHaveLength(1);
    });

    test('when ping fails, then store_unavailable; when it answers, then it resolves', async () => {
      const fake = fakeStore();
      await expect(fake.store.ping()).resolves.toBeUndefined();
      fake.failPing(driverError('ServiceUnavailable'));
      await expect(fake.store.ping()).rejects.toMatchObject({ code: 'store_unavailable' });
      expect(fake.sessions.closed).toBe(fake.sessions.opened);
    });

    test('when the store is closed, then the driver is closed once and every call is store_unavailable', async () => {
      const fake = fakeStore();
      await fake.store.close();
      await fake.store.close();
      expect(fake.driverClosed()).toBe(1);
      await expect(fake.store.ping()).rejects.toMatchObject({ code: 'store_unavailable' });
      await expect(fake.store.searchWithTypes(query({ where: { id: id('device', 'd') } }))).rejects.toBeInstanceOf(DomainError);
      await expect(fake.store.createNode(seeded(member('m1')), [])).rejects.toMatchObject({ code: 'store_unavailable' });
      await expect(fake.store.applyNodeWrites([{ kind: 'deleteNode', node: seeded(member('m1')) }])).rejects.toMatchObject({ code: 'store_unavailable' });
      expect(fake.sessions.opened).toBe(0);
    });
  });
});
