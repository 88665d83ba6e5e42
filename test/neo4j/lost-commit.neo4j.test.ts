// What a store write answers when Neo4j commits it but the reply never reaches the driver: the driver's managed
// transaction runs the write again, and the store must then answer what the committed write did, exactly once,
// instead of tripping over its own effect (node_exists, id_exists, a second delivery, a token "not found").
// A proxy (test/helpers/bolt-fault-proxy.ts) between the store and Neo4j loses one commit reply on demand.
import type { Delivery } from '../../src/domain/deliveries';
import { Neo4jStore } from '../../src/store/neo4j/neo4j-store';
import type { StoredToken } from '../../src/domain/ports/tokens';
import { boltAddress, type BoltFaultProxy, startBoltFaultProxy } from '../helpers/bolt-fault-proxy';
import { buildCondition, buildDraft, buildMessage } from '../helpers/deliveries';
import { neo4jConnectionFromEnv } from '../helpers/store';
import { id, member, MEMBER, newCustomer } from '../store-contract/contract';
import { checkedImpression } from '../helpers/checked-showing';
import { seeded } from '../helpers/seeded';

describe('Neo4j store, when the reply to a commit is lost', () => {
  let proxy: BoltFaultProxy;
  let store: Neo4jStore;

  beforeAll(async () => {
    const connection = neo4jConnectionFromEnv();
    proxy = await startBoltFaultProxy(boltAddress(connection.uri));
    store = await Neo4jStore.connect({ ...connection, uri: proxy.uri });
  });
  afterAll(async () => {
    await store.close();
    await proxy.close();
  });

  /** Runs `write` with the reply to its commit lost, and checks that the fault did happen (else the test proves nothing). */
  async function withLostCommitReply<T>(write: () => Promise<T>, of?: 'auto-commit'): Promise<T> {
    const before = proxy.lostCommitReplies;
    proxy.loseNextCommitReply(of);
    try {
      return await write();
    } finally {
      expect(proxy.lostCommitReplies).toBe(before + 1);
    }
  }

  const buildToken = (customerId: string, tokenId: string): StoredToken => ({
    tokenId,
    customerId,
    kind: 'bearer',
    label: 'lost-commit',
    createdAt: new Date().toISOString(),
    tokenHash: `hash-${tokenId}`,
  });

  async function customerWithSchema(): Promise<string> {
    const c = newCustomer();
    await store.putSchema(c, MEMBER);
    return c;
  }

  describe('nodes', () => {
    test('when a node create loses its commit reply, then it resolves (not node_exists) and the node is stored once', async () => {
      const c = await customerWithSchema();
      await expect(withLostCommitReply(() => store.createNode(seeded(member(c, 'm1')), [id('device', 'd1')]))).resolves.toBeUndefined();
      expect(await store.getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('member_id', 'm1')]);
    });

    test('when an insert loses its commit reply, then it resolves (not id_exists) and the IDs are held', async () => {
      const c = await customerWithSchema();
      await store.createNode(seeded(member(c, 'm1')), []);
      await expect(withLostCommitReply(() => store.insertIds(seeded(member(c, 'm1')), [id('cookie', 'k1'), id('device', 'd1')]))).resolves.toBeUndefined();
      expect(await store.getNodeIds(member(c, 'm1'))).toEqual([id('cookie', 'k1'), id('device', 'd1'), id('member_id', 'm1')]);
    });

    test('when a rekey loses its commit reply, then it resolves (not node_not_found) and the node has the new key', async () => {
      const c = await customerWithSchema();
      await store.createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
      await expect(withLostCommitReply(() => store.rekey(seeded(member(c, 'm1')), 'm2'))).resolves.toBeUndefined();
      expect(await store.getNodeIds(member(c, 'm2'))).toEqual([id('device', 'd1'), id('member_id', 'm2')]);
      expect(await store.getNodeIds(member(c, 'm1'))).toBeUndefined();
    });

    test('when a node delete loses its commit reply, then it resolves (not node_not_found) and the node is gone', async () => {
      const c = await customerWithSchema();
      await store.createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
      await expect(withLostCommitReply(() => store.deleteNode(seeded(member(c, 'm1'))))).resolves.toBeUndefined();
      expect(await store.getNodeIds(member(c, 'm1'))).toBeUndefined();
    });

    test('when a bulk batch loses its commit reply, then every line is applied once (no node_exists, no id_exists)', async () => {
      const c = await customerWithSchema();
      const outcomes = await withLostCommitReply(() =>
        store.applyNodeWrites([
          { kind: 'create', node: seeded(member(c, 'm1')), ids: [] },
          { kind: 'create', node: seeded(member(c, 'm2')), ids: [id('device', 'd2')] },
          { kind: 'insert', node: seeded(member(c, 'm1')), ids: [id('cookie', 'k1')] },
        ]),
      );
      expect(outcomes).toEqual([undefined, undefined, undefined]);
      expect(await store.getNodeIds(member(c, 'm1'))).toEqual([id('cookie', 'k1'), id('member_id', 'm1')]);
      expect(await store.getNodeIds(member(c, 'm2'))).toEqual([id('device', 'd2'), id('member_id', 'm2')]);
    });

    test('when a bulk batch that ends with a node delete loses its commit reply, then it resolves (not node_not_found) and the node is gone', async () => {
      const c = await customerWithSchema();
      await store.createNode(seeded(member(c, 'm1')), []);
      const outcomes = await withLostCommitReply(() =>
        store.applyNodeWrites([
          { kind: 'create', node: seeded(member(c, 'm2')), ids: [] },
          { kind: 'deleteNode', node: seeded(member(c, 'm1')) },
        ]),
      );
      expect(outcomes).toEqual([undefined, undefined]);
      expect(await store.getNodeIds(member(c, 'm1'))).toBeUndefined();
      expect(await store.getNodeIds(member(c, 'm2'))).toEqual([id('member_id', 'm2')]);
    });
  });

  describe('schemas', () => {
    test('when a schema put loses its commit reply, then it still says created (a 201) for a new schema, and replaced for an existing one', async () => {
      const c = newCustomer();
      await expect(withLostCommitReply(() => store.putSchema(c, MEMBER))).resolves.toEqual({ created: true });
      expect(await store.getSchema(c, 'member')).toEqual(MEMBER);
      const replacement = { schemaId: 'member', idTypes: [...MEMBER.idTypes, { type: 'phone', secure: false }] };
      await expect(withLostCommitReply(() => store.putSchema(c, replacement))).resolves.toEqual({ created: false });
      expect(await store.getSchema(c, 'member')).toEqual(replacement);
    });

    test('when a schema delete loses its commit reply, then it resolves (not schema_not_found)', async () => {
      const c = newCustomer();
      await store.putSchema(c, MEMBER);
      await expect(withLostCommitReply(() => store.deleteSchema(c, 'member'))).resolves.toBeUndefined();
      expect(await store.getSchema(c, 'member')).toBeUndefined();
    });
  });

  describe('tokens', () => {
    test('when a token create loses its commit reply, then it resolves and the token is stored once', async () => {
      const c = newCustomer();
      const token = buildToken(c, `tok-${c}`);
      await expect(withLostCommitReply(() => store.createToken(token))).resolves.toBeUndefined();
      expect(await store.listTokens(c)).toEqual([{ tokenId: token.tokenId, customerId: c, kind: 'bearer', label: 'lost-commit', createdAt: token.createdAt }]);
      expect(await store.findActiveToken(token.tokenHash)).toEqual(token);
    });

    test('when a token revoke loses its commit reply, then it answers true (not false, a 404) and the token is revoked', async () => {
      const c = newCustomer();
      const token = buildToken(c, `tok-${c}`);
      await store.createToken(token);
      await expect(withLostCommitReply(() => store.revokeToken(c, token.tokenId))).resolves.toBe(true);
      expect(await store.findActiveToken(token.tokenHash)).toBeUndefined();
      // A revoke that really finds nothing still says so.
      await expect(store.revokeToken(c, token.tokenId)).resolves.toBe(false);
    });
  });

  describe('deliveries', () => {
    test('when a delivery create loses its commit reply, then it answers the stored delivery and there is one, not two', async () => {
      const c = newCustomer();
      const created = await withLostCommitReply(() => store.createDelivery(c, buildDraft({ message: [buildMessage(), buildMessage({ title: 'two' })] })));
      const page = await store.listDeliveries(c, 0, 10);
      expect(page.total).toBe(1);
      expect(page.items).toEqual([created]);
    });

    test('when a delivery replacement loses its commit reply, then it was applied once: its new message took the next message id, not a second one', async () => {
      const c = newCustomer();
      const original = await store.createDelivery(c, buildDraft({ message: [buildMessage({ title: 'kept' })] }));
      const keptId = original.message[0]?.messageId as number;
      const replaced = await withLostCommitReply(() =>
        store.replaceDelivery(
          c,
          original.deliveryId,
          buildDraft({ message: [buildMessage({ title: 'kept', message_id: keptId }), buildMessage({ title: 'new' })] }),
        ),
      );
      // Message ids come from one sequence, and nothing else in this file takes any meanwhile.
      expect((replaced as Delivery).message.map((m) => m.messageId)).toEqual([keptId, keptId + 1]);
      expect(await store.getDelivery(c, original.deliveryId)).toEqual(replaced);
    });

    test('when a delivery delete loses its commit reply, then it answers true (not false, a 404)', async () => {
      const c = newCustomer();
      const original = await store.createDelivery(c, buildDraft());
      await expect(withLostCommitReply(() => store.deleteDelivery(c, original.deliveryId))).resolves.toBe(true);
      expect(await store.getDelivery(c, original.deliveryId)).toBeUndefined();
    });
  });

  describe('impressions', () => {
    const impression = (customerId: string, deliveryId: number, idempotencyKey?: string) => ({
      person: { customerId, user: { type: 'device', id: 'd-1' }, unlinkedTypes: [], maxNodes: 10, maxIds: 10 },
      deliveryId,
      platform: 'ios' as const,
      day: '2026-06-01',
      ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
      receivedAt: new Date().toISOString(),
    });
    const counted = (n: number) => ({ answer: { deliveryId: expect.any(Number), deliveryCount: n, personTotal: n, personToday: n }, replayed: false });

    test('when an impression loses the reply of its statement, which committed, then it answers that count, counted once, also with a key', async () => {
      const c = newCustomer();
      const condition = buildCondition({ max_total_count: 10, max_total_count_per_day: 10 });
      const { deliveryId } = await store.createDelivery(c, buildDraft({ condition }));
      await expect(withLostCommitReply(() => store.recordImpression(checkedImpression(impression(c, deliveryId))), 'auto-commit')).resolves.toEqual(counted(1));
      await expect(withLostCommitReply(() => store.recordImpression(checkedImpression(impression(c, deliveryId, 'k1'))), 'auto-commit')).resolves.toEqual(
        counted(2),
      );
      // Its key answers its repeats with the same answer.
      await expect(store.recordImpression(checkedImpression(impression(c, deliveryId, 'k1')))).resolves.toEqual({ ...counted(2), replayed: true });
      await expect(store.recordImpression(checkedImpression(impression(c, deliveryId)))).resolves.toEqual(counted(3));
    });
  });

  describe('imports', () => {
    test('when an import begins, writes two batches at once and finishes, each losing its commit reply, then each resolves, and the customer holds every node and feed entry once', async () => {
      const c = newCustomer();
      const empty = { schemas: [], nodes: [], separations: [], deliveries: [], impressions: [], history: [] };
      const batchOf = (m: string) => {
        const node = { schemaId: 'member', key: id('member_id', m), ids: [id('device', 'shared')] };
        const entry = {
          at: '2026-03-01T00:00:00.000Z',
          requestId: `r-${m}`,
          actor: 'admin',
          op: 'create' as const,
          schema: 'member',
          key: node.key,
          added: [node.key, ...node.ids],
          removed: [],
        };
        return { ...empty, nodes: [node], history: [{ schemaId: 'member', key: node.key, entries: [entry] }] };
      };
      await expect(withLostCommitReply(() => store.beginImport(c))).resolves.toBeUndefined();
      await expect(withLostCommitReply(() => store.importBatch(c, { ...empty, schemas: [MEMBER] }))).resolves.toBeUndefined();
      // The second batch's reply is not lost: it runs beside the first on the other lane.
      await expect(Promise.all([withLostCommitReply(() => store.importBatch(c, batchOf('m1'))), store.importBatch(c, batchOf('m2'))])).resolves.toEqual([
        undefined,
        undefined,
      ]);
      await expect(withLostCommitReply(() => store.finishImport(c, { requireToken: false, timezone: 'UTC' }, []))).resolves.toBeUndefined();

      await expect(store.unfinishedImports(0)).resolves.not.toContain(c);
      expect(await store.getNodeIds(member(c, 'm1'))).toEqual([id('device', 'shared'), id('member_id', 'm1')]);
      expect(await store.getNodeIds(member(c, 'm2'))).toEqual([id('device', 'shared'), id('member_id', 'm2')]);
      const feed = await store.changesAfter(c, 0, 10);
      expect(feed.changes.map((change) => [change.seq, change.entry.key.id])).toEqual([
        [1, 'm1'],
        [2, 'm2'],
      ]);
      expect(feed.head).toBe(2);
    });
  });
});
