// The Neo4j error codes the store's predicates (src/store/neo4j/driver-errors.ts) rely on, produced by a real
// server: two transactions of the store's own statements, interleaved by hand, so that one of them writes to a
// vertex the other deleted, or creates a key the other has just created. The test waits until Neo4j reports the
// second transaction blocked on the first's lock before it lets the first commit.

import type { Driver, Session, Transaction } from 'neo4j-driver';
import { DomainError } from '../../src/domain/errors';
import { isConstraintViolation, isEntityNotFound, neo4jCode, toStoreError } from '../../src/store/neo4j/driver-errors';
import { Neo4jStore } from '../../src/store/neo4j/neo4j-store';
import { int } from '../../src/store/neo4j/query';
import { checkParams, loadStatement } from '../../src/store/neo4j/statements';
import { neo4jConnectionFromEnv, neo4jDriver, untilOneIsBlocked } from '../helpers/store';
import { id, member, MEMBER, newCustomer } from '../store-contract/contract';
import { seeded } from '../helpers/seeded';

/** The limit the store passes node.link-ids for a write that grows a node (NODE_MAX_IDS, its default). */
const NODE_MAX_IDS = 10_000;

describe('Neo4j error codes, from a real server', () => {
  const connection = neo4jConnectionFromEnv();
  let driver: Driver;
  let store: Neo4jStore;
  const sessions: Session[] = [];

  beforeAll(async () => {
    driver = neo4jDriver(connection);
    store = await Neo4jStore.connect(connection);
  });
  afterEach(async () => {
    await Promise.all(sessions.splice(0).map((s) => s.close()));
  });
  afterAll(async () => {
    await store.close();
    await driver.close();
  });

  async function begin(): Promise<Transaction> {
    const session = driver.session({ database: connection.database });
    sessions.push(session);
    return session.beginTransaction();
  }

  /** Runs a statement of cypher/ in `tx` with exactly the parameters its file declares. */
  async function run(tx: Transaction, name: string, params: Record<string, unknown>) {
    const statement = loadStatement(name);
    checkParams(statement, params);
    return (await tx.run(statement.sent, params)).records.map((r) => r.toObject());
  }

  /** What a promise rejected with (it must reject). */
  async function rejection(promise: Promise<unknown>): Promise<unknown> {
    try {
      await promise;
    } catch (e) {
      return e;
    }
    throw new Error('expected a rejection');
  }

  const key = (customer: string, memberId: string) => ({ customer, schema: 'member', keyType: 'member_id', keyId: memberId });
  const createParams = (customer: string, memberId: string, device: string) => ({
    ...key(customer, memberId),
    ids: [id('device', device), id('member_id', memberId)],
    write: `test-${memberId}`,
    // No history entry: these tests are about the locks and errors of the node's own writes.
    history: [],
  });

  /** Locks a node as every store write to it starts (node.lock) and returns its element id. */
  async function lockNode(tx: Transaction, customer: string, memberId: string): Promise<string> {
    const [row] = await run(tx, 'node.lock', { ...key(customer, memberId), write: `test-${memberId}` });
    return row?.node as string;
  }

  test('when a transaction links an Id vertex that another one deletes as an orphan meanwhile, then EntityNotFound, which isEntityNotFound recognises', async () => {
    const c = newCustomer();
    await store.putSchema(c, MEMBER);
    await store.createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
    await store.createNode(seeded(member(c, 'm2')), []);
    // m1 lets go of d1, its only holder, so the Id vertex d1 is locked and deleted (node.unlink-id), not yet committed.
    const removing = await begin();
    await run(removing, 'node.unlink-id', { node: await lockNode(removing, c, 'm1'), type: 'device', value: 'd1' });
    // m2 links d1: node.link-ids finds the vertex as committed, waits for its lock, then writes to a deleted vertex.
    const linking = await begin();
    const m2 = await lockNode(linking, c, 'm2');
    const linked = rejection(run(linking, 'node.link-ids', { node: m2, ids: [id('device', 'd1')], maxIds: int(NODE_MAX_IDS) }));
    await untilOneIsBlocked(driver, connection.database);
    await removing.commit();

    const error = await linked;
    expect(neo4jCode(error)).toBe('Neo.ClientError.Statement.EntityNotFound');
    expect(isEntityNotFound(error)).toBe(true);
    expect(isConstraintViolation(error)).toBe(false);
    // Nothing of it was committed, and run again (as the store does) it creates the Id vertex anew.
    await linking.rollback();
    await store.insertIds(seeded(member(c, 'm2')), [id('device', 'd1')]);
    expect(await store.getNodeIds(member(c, 'm2'))).toEqual([id('device', 'd1'), id('member_id', 'm2')]);
    expect(await store.getNodeIds(member(c, 'm1'))).toEqual([id('member_id', 'm1')]);
  });

  test('when a node is locked while another transaction deletes it, then there is no error: the lock step returns it, and only a new read shows it gone', async () => {
    const c = newCustomer();
    await store.putSchema(c, MEMBER);
    await store.createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
    const deleting = await begin();
    await run(deleting, 'node.delete', { node: await lockNode(deleting, c, 'm1') });
    const writing = await begin();
    // As the store sends them: the statement that finds the node by its key again goes out with the lock, and runs
    // once the lock is taken.
    const locked = run(writing, 'node.lock', { ...key(c, 'm1'), write: 'test-writer' });
    const heldAmong = run(writing, 'node.held-among', { ...key(c, 'm1'), ids: [id('device', 'd1')] });
    await untilOneIsBlocked(driver, connection.database);
    await deleting.commit();

    // Which is why the store's statement after the lock finds the node by its key again (node.held-among, or
    // node.ids for a delete).
    const [row] = await locked;
    expect(row?.node).toEqual(expect.any(String));
    expect(await heldAmong).toEqual([]);
    expect(await run(writing, 'node.ids', key(c, 'm1'))).toEqual([]);
    await writing.commit();
    expect(await store.getNodeIds(member(c, 'm1'))).toBeUndefined();
  });

  test('when a node is rekeyed while a write waits for its lock, then the lock step returns the moved node, and the statements after it find no node under the old key', async () => {
    const c = newCustomer();
    await store.putSchema(c, MEMBER);
    await store.createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
    const rekeying = await begin();
    const moved = await lockNode(rekeying, c, 'm1');
    // As Neo4jStore.rekey does, but without linking m9 (not needed here).
    await run(rekeying, 'node.rekey', { node: moved, keyId: 'm9' });
    await run(rekeying, 'node.unlink-id', { node: moved, type: 'member_id', value: 'm1' });
    const writing = await begin();
    const locked = run(writing, 'node.lock', { ...key(c, 'm1'), write: 'test-writer' });
    const heldAmong = run(writing, 'node.held-among', { ...key(c, 'm1'), ids: [id('device', 'd1')] });
    await untilOneIsBlocked(driver, connection.database);
    await rekeying.commit();
    const [row] = await locked;
    expect(row?.node).toBe(moved);
    expect(await heldAmong).toEqual([]);

    // Read again under the old key: nothing (the store answers node_not_found). No other node can take that key
    // meanwhile: a create of m1 at this point waited until the writer ended (the lock step's lookup through the
    // unique index holds a shared lock on the key's entry).
    expect(await run(writing, 'node.ids', key(c, 'm1'))).toEqual([]);
    // Under the key it has now, the locked node is found, with what it holds of the IDs asked about.
    expect(await run(writing, 'node.held-among', { ...key(c, 'm9'), ids: [id('device', 'd1'), id('cookie', 'k1')] })).toEqual([
      { node: moved, held: [id('device', 'd1')], separated: false },
    ]);
    await writing.rollback();
  });

  test('when a node is created in a schema that another transaction has deleted meanwhile, then EntityNotFound, which isEntityNotFound recognises', async () => {
    const c = newCustomer();
    await store.putSchema(c, MEMBER);
    const deleting = await begin();
    expect(await run(deleting, 'schema.lock-for-delete', { customer: c, schemaId: 'member' })).toEqual([{ inUse: false }]);
    await run(deleting, 'schema.delete', { customer: c, schemaId: 'member' });
    await run(deleting, 'idtype.delete-orphans', { customer: c });
    // node.create finds the schema vertex as committed and waits for it, then links its node to a deleted vertex.
    const creating = await begin();
    const created = rejection(run(creating, 'node.create', createParams(c, 'm1', 'd1')));
    await untilOneIsBlocked(driver, connection.database);
    await deleting.commit();

    const error = await created;
    expect(neo4jCode(error)).toBe('Neo.ClientError.Statement.EntityNotFound');
    expect(isEntityNotFound(error)).toBe(true);
    // The store runs such a write again, and then finds no schema.
    await creating.rollback();
    await expect(store.createNode(seeded(member(c, 'm1')), [id('device', 'd1')])).rejects.toMatchObject({ code: 'schema_not_found' });
    expect(await store.getNodeIds(member(c, 'm1'))).toBeUndefined();
  });

  test('when a schema vertex is deleted while a node still points to it, then the commit fails with ConstraintValidationFailed (the store says schema_in_use)', async () => {
    const c = newCustomer();
    await store.putSchema(c, MEMBER);
    await store.createNode(seeded(member(c, 'm1')), []);
    const deleting = await begin();
    // schema.lock-for-delete says inUse, and the store stops there; this shows what Neo4j does should it go on.
    expect(await run(deleting, 'schema.lock-for-delete', { customer: c, schemaId: 'member' })).toEqual([{ inUse: true }]);
    const error = await rejection(run(deleting, 'schema.delete', { customer: c, schemaId: 'member' }).then(() => deleting.commit()));
    expect(neo4jCode(error)).toBe('Neo.ClientError.Schema.ConstraintValidationFailed');
    expect(isConstraintViolation(error)).toBe(true);
    expect(await store.getSchema(c, 'member')).toEqual(MEMBER);
  });

  test('when two transactions create the same node key, then the second waits for the first and fails with ConstraintValidationFailed, which isConstraintViolation recognises', async () => {
    const c = newCustomer();
    await store.putSchema(c, MEMBER);
    const first = await begin();
    expect(await run(first, 'node.create', createParams(c, 'm1', 'd1'))).toHaveLength(1);
    const second = await begin();
    // Whether Neo4j refuses the statement or, later, its commit: the refusal is what counts.
    const refused = rejection(run(second, 'node.create', createParams(c, 'm1', 'd2')).then(() => second.commit()));
    await untilOneIsBlocked(driver, connection.database);
    await first.commit();

    const error = await refused;
    expect(neo4jCode(error)).toBe('Neo.ClientError.Schema.ConstraintValidationFailed');
    expect(isConstraintViolation(error)).toBe(true);
    expect(isEntityNotFound(error)).toBe(false);
    expect(toStoreError(error, () => new DomainError('node_exists', 'taken'))).toMatchObject({ code: 'node_exists' });
    expect(await store.getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('member_id', 'm1')]);
  });
});
