// The governance half of the store contract (docs/history-and-erasure.md): node history, erasure and retention, as plain Store
// calls, no HTTP. Every Store implementation runs it (`describeHistoryContract(name, openStore)`), so it assumes
// nothing of a particular store:
// - the store is opened before and closed after the tests, and never emptied;
// - each test works on customer ids of its own (unique per run and per test), because a shared store (Neo4j)
//   keeps what earlier tests and runs wrote. The one exception is pruneHistory, which is not per customer: its test
//   only asserts on entries it wrote itself, around an instant it read back from them.
// Every assertion reads back what is stored (nodeHistory, getNodeIds, search), not merely what a call returned.
import type { EraseOutcome, EraseRequest, HistoryEntry, HistoryId, HistoryOp, IdPair, NodeAddress, SchemaRecord, WriteAudit } from '../../src/domain/model';
import type { TestStore as Store } from '../helpers/store';
import { buildQuery, id, member, MEMBER, newCustomer, shop, SHOP, useStore } from './contract';
import { waitFor } from '../helpers/settling';
import { seeded } from '../helpers/seeded';

// ---- fixtures

/** A schema keyed by a device: erasing a device (scope id) deletes such a node. Options of device as in MEMBER. */
const GADGET: SchemaRecord = {
  schemaId: 'gadget',
  idTypes: [
    { type: 'device', secure: false },
    { type: 'cookie', secure: false },
  ],
};
const gadget = (customerId: string, device: string): NodeAddress => ({ customerId, schemaId: 'gadget', key: id('device', device) });

/** MEMBER whose device never links (a shared family tablet): two people holding it stay two components. */
const MEMBER_SHARED_DEVICE: SchemaRecord = {
  schemaId: 'member',
  idTypes: [
    { type: 'member_id', secure: false },
    { type: 'device', secure: false, links: false },
    { type: 'cookie', secure: false },
    { type: 'email', secure: true },
  ],
};

/** MEMBER plus an ip that never links, and a schema keyed by such an ip. */
const MEMBER_WITH_IP: SchemaRecord = { schemaId: 'member', idTypes: [...MEMBER.idTypes, { type: 'ip', secure: false, links: false }] };
const LEASE: SchemaRecord = {
  schemaId: 'lease',
  idTypes: [
    { type: 'ip', secure: false, links: false },
    { type: 'cookie', secure: false },
  ],
};
const lease = (customerId: string, ip: string): NodeAddress => ({ customerId, schemaId: 'lease', key: id('ip', ip) });

/** A value as history shows it. */
const shown = (type: string, value: string): HistoryId => ({ type, id: value });
/** What an erasure leaves of a value of `type` in history. */
const gone = (type: string): HistoryId => ({ type, id: null, erased: true });

const NO_AUDIT = { requestId: '', actor: 'anonymous' };
const ERASE_AUDIT: WriteAudit = { requestId: 'req-erase', actor: 'admin' };

/** The entry expected: `at` any ISO instant (checked on its own), no audit given unless `audit`. */
function entry(op: HistoryOp, schema: string, key: HistoryId, added: HistoryId[], removed: HistoryId[], audit: WriteAudit = NO_AUDIT): HistoryEntry {
  return { at: expect.any(String), requestId: audit.requestId, actor: audit.actor, op, schema, key, added, removed };
}

const withAudit = (node: NodeAddress, requestId: string, actor: string): NodeAddress => ({ ...node, audit: { requestId, actor } });

const valuesOf = (e: HistoryEntry): HistoryId[] => [e.key, ...e.added, ...e.removed];
const names = (e: HistoryEntry, value: IdPair): boolean => valuesOf(e).some((h) => h.type === value.type && h.id === value.id);
const show = (x: IdPair): string => `${x.type}=${x.id}`;
/** Waits until the clock is past `ms` (history entries are stamped to the millisecond, by this process's clock). */
const clockPast = (ms: number): Promise<true> => waitFor('the clock to move on', () => Date.now() > ms, { everyMs: 1 });

/** An erase by the administrator, within limits no test reaches; override one thing at a time. */
export const eraseRequest = (customerId: string, erased: IdPair, scope: 'id' | 'person', overrides: Partial<EraseRequest> = {}): EraseRequest => ({
  customerId,
  id: erased,
  scope,
  unlinkedTypes: [],
  maxNodes: 10_000,
  maxIds: 50_000,
  audit: ERASE_AUDIT,
  ...overrides,
});

export function describeHistoryContract(name: string, openStore: () => Promise<Store>): void {
  describe(`Store contract, history and erasure: ${name}`, () => {
    const store = useStore(openStore);

    async function customerWith(...schemas: SchemaRecord[]): Promise<string> {
      const c = newCustomer();
      for (const schema of schemas) await store().putSchema(c, schema);
      return c;
    }

    /** Every entry under a node's key, newest first, read in one page. */
    async function historyOf(node: NodeAddress): Promise<HistoryEntry[]> {
      const page = await store().nodeHistory(node.customerId, node.schemaId, node.key, 0, 1000);
      expect(page.items).toHaveLength(page.total);
      return page.items;
    }

    /** The IDs a search (step ALL) from the nodes holding `value` finds: none when nothing holds it. */
    const reached = async (customerId: string, value: IdPair, unlinkedTypes: string[] = []): Promise<IdPair[]> =>
      (await store().searchWithTypes(buildQuery({ customerId, where: { id: value }, unlinkedTypes }))).results;
    /** How many IDs that search finds (0: nothing holds the value). */
    const holders = async (customerId: string, value: IdPair, unlinkedTypes: string[] = []): Promise<number> =>
      (await store().searchWithTypes(buildQuery({ customerId, where: { id: value }, unlinkedTypes }))).total;

    // ------------------------------------------------------------------ entries of node writes
    describe('entries of node writes', () => {
      test('when a node is created, then one create entry lists the key first, then the IDs in request order, each once, and names no audit', async () => {
        const c = await customerWith(MEMBER);
        const before = Date.now();
        await store().createNode(seeded(member(c, 'm1')), [id('cookie', 'k2'), id('member_id', 'm1'), id('device', 'd1'), id('cookie', 'k1')]);
        const after = Date.now();
        const items = await historyOf(member(c, 'm1'));
        expect(items).toEqual([
          entry(
            'create',
            'member',
            shown('member_id', 'm1'),
            [shown('member_id', 'm1'), shown('cookie', 'k2'), shown('device', 'd1'), shown('cookie', 'k1')],
            [],
          ),
        ]);
        const at = items[0]?.at ?? '';
        expect(new Date(at).toISOString()).toBe(at);
        // Neo4j's clock, not ours: on the same machine, within a few seconds.
        expect(Date.parse(at)).toBeGreaterThanOrEqual(before - 5_000);
        expect(Date.parse(at)).toBeLessThanOrEqual(after + 5_000);
      });

      test('when a node is created without IDs, then its create entry lists its key alone', async () => {
        const c = await customerWith(MEMBER);
        await store().createNode(seeded(member(c, 'm1')), []);
        expect(await historyOf(member(c, 'm1'))).toEqual([entry('create', 'member', shown('member_id', 'm1'), [shown('member_id', 'm1')], [])]);
      });

      test('when each write names its audit, then each entry records its request id and actor', async () => {
        const c = await customerWith(MEMBER);
        await store().createNode(seeded(withAudit(member(c, 'm1'), 'req-1', 'token:t1')), [id('device', 'd1')]);
        await store().insertIds(seeded(withAudit(member(c, 'm1'), 'req-2', 'admin')), [id('cookie', 'k1')]);
        await store().replaceId(seeded(withAudit(member(c, 'm1'), 'req-3', 'token:t2')), id('cookie', 'k1'), id('cookie', 'k2'), false);
        await store().removeId(seeded(withAudit(member(c, 'm1'), 'req-4', 'anonymous')), id('cookie', 'k2'));
        await store().rekey(seeded(withAudit(member(c, 'm1'), 'req-5', 'token:t3')), 'm2');
        await store().deleteNode(seeded(withAudit(member(c, 'm2'), 'req-6', 'admin')));
        const items = await historyOf(member(c, 'm2'));
        expect(items.map((e) => [e.op, e.requestId, e.actor])).toEqual([
          ['delete', 'req-6', 'admin'],
          ['rekeying', 'req-5', 'token:t3'],
        ]);
        expect((await historyOf(member(c, 'm1'))).map((e) => [e.op, e.requestId, e.actor])).toEqual([
          ['rekeying', 'req-5', 'token:t3'],
          ['delete', 'req-4', 'anonymous'],
          ['update', 'req-3', 'token:t2'],
          ['insert', 'req-2', 'admin'],
          ['create', 'req-1', 'token:t1'],
        ]);
      });

      test('when IDs are inserted, then an insert entry lists them in request order and removes nothing', async () => {
        const c = await customerWith(MEMBER);
        await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
        await store().insertIds(seeded(member(c, 'm1')), [id('email', 'ann@example.com'), id('cookie', 'k9'), id('cookie', 'k1')]);
        expect(await historyOf(member(c, 'm1'))).toEqual([
          entry('insert', 'member', shown('member_id', 'm1'), [shown('email', 'ann@example.com'), shown('cookie', 'k9'), shown('cookie', 'k1')], []),
          entry('create', 'member', shown('member_id', 'm1'), [shown('member_id', 'm1'), shown('device', 'd1')], []),
        ]);
      });

      test('when an insert is refused (id_exists, node_not_found), then no entry is written', async () => {
        const c = await customerWith(MEMBER);
        await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
        await expect(store().insertIds(seeded(member(c, 'm1')), [id('cookie', 'k1'), id('device', 'd1')])).rejects.toMatchObject({ code: 'id_exists' });
        await expect(store().insertIds(seeded(member(c, 'ghost')), [id('cookie', 'k1')])).rejects.toMatchObject({ code: 'node_not_found' });
        await expect(store().createNode(seeded(member(c, 'm1')), [id('cookie', 'k2')])).rejects.toMatchObject({ code: 'node_exists' });
        expect(await historyOf(member(c, 'm1'))).toEqual([
          entry('create', 'member', shown('member_id', 'm1'), [shown('member_id', 'm1'), shown('device', 'd1')], []),
        ]);
        expect(await store().nodeHistory(c, 'member', id('member_id', 'ghost'), 0, 20)).toEqual({ items: [], total: 0 });
      });

      // On Neo4j the entry of a write alone in its transaction is sent with the statement that links (one round trip),
      // so it is written before that statement refuses; the refusal must take it back with the rest.
      test('when an insert or an upsert is refused by the statement that links (node_id_limit_reached), then no entry is written', async () => {
        const c = await customerWith(MEMBER);
        const full = { ...member(c, 'm1'), maxIds: 2 };
        await store().createNode(seeded(full), [id('device', 'd1')]);
        await expect(store().insertIds(seeded(full), [id('cookie', 'k1')])).rejects.toMatchObject({ code: 'node_id_limit_reached' });
        await expect(store().replaceId(seeded(full), id('cookie', 'k0'), id('cookie', 'k1'), true)).rejects.toMatchObject({ code: 'node_id_limit_reached' });
        expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('member_id', 'm1')]);
        expect(await historyOf(member(c, 'm1'))).toEqual([
          entry('create', 'member', shown('member_id', 'm1'), [shown('member_id', 'm1'), shown('device', 'd1')], []),
        ]);
      });

      test('when where is held, then replaceId writes update (or upsert with upsert), adding set and removing where', async () => {
        const c = await customerWith(MEMBER);
        await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1'), id('cookie', 'k1')]);
        await store().replaceId(seeded(member(c, 'm1')), id('device', 'd1'), id('device', 'd2'), false);
        await store().replaceId(seeded(member(c, 'm1')), id('cookie', 'k1'), id('cookie', 'k2'), true);
        expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('cookie', 'k2'), id('device', 'd2'), id('member_id', 'm1')]);
        expect((await historyOf(member(c, 'm1'))).slice(0, 2)).toEqual([
          entry('upsert', 'member', shown('member_id', 'm1'), [shown('cookie', 'k2')], [shown('cookie', 'k1')]),
          entry('update', 'member', shown('member_id', 'm1'), [shown('device', 'd2')], [shown('device', 'd1')]),
        ]);
      });

      test('when upsert finds neither where nor set, then an upsert entry adds set and removes nothing', async () => {
        const c = await customerWith(MEMBER);
        await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
        await store().replaceId(seeded(member(c, 'm1')), id('device', 'dX'), id('device', 'd2'), true);
        expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('device', 'd2'), id('member_id', 'm1')]);
        expect(await historyOf(member(c, 'm1'))).toEqual([
          entry('upsert', 'member', shown('member_id', 'm1'), [shown('device', 'd2')], []),
          entry('create', 'member', shown('member_id', 'm1'), [shown('member_id', 'm1'), shown('device', 'd1')], []),
        ]);
      });

      test('when replaceId changes nothing or is refused, then no entry is written', async () => {
        const c = await customerWith(MEMBER);
        await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1'), id('device', 'd2')]);
        // where not held, no upsert
        await store().replaceId(seeded(member(c, 'm1')), id('device', 'dX'), id('device', 'd3'), false);
        // set == where, held
        await store().replaceId(seeded(member(c, 'm1')), id('device', 'd1'), id('device', 'd1'), false);
        await store().replaceId(seeded(member(c, 'm1')), id('device', 'd1'), id('device', 'd1'), true);
        // upsert: where not held, set held already
        await store().replaceId(seeded(member(c, 'm1')), id('device', 'dX'), id('device', 'd2'), true);
        // refused: set held while where is held
        await expect(store().replaceId(seeded(member(c, 'm1')), id('device', 'd1'), id('device', 'd2'), false)).rejects.toMatchObject({ code: 'id_exists' });
        await expect(store().replaceId(seeded(member(c, 'ghost')), id('device', 'd1'), id('device', 'd3'), true)).rejects.toMatchObject({
          code: 'node_not_found',
        });
        expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('device', 'd2'), id('member_id', 'm1')]);
        expect(await historyOf(member(c, 'm1'))).toEqual([
          entry('create', 'member', shown('member_id', 'm1'), [shown('member_id', 'm1'), shown('device', 'd1'), shown('device', 'd2')], []),
        ]);
      });

      test('when a node is rekeyed, then a rekeying entry (key: the old key, adding the new, removing the old) is found under both keys', async () => {
        const c = await customerWith(MEMBER);
        await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
        await store().rekey(seeded(member(c, 'm1')), 'm9');
        await store().insertIds(seeded(member(c, 'm9')), [id('cookie', 'k1')]);
        const rekeying = entry('rekeying', 'member', shown('member_id', 'm1'), [shown('member_id', 'm9')], [shown('member_id', 'm1')]);
        expect(await historyOf(member(c, 'm9'))).toEqual([entry('insert', 'member', shown('member_id', 'm9'), [shown('cookie', 'k1')], []), rekeying]);
        expect(await historyOf(member(c, 'm1'))).toEqual([
          rekeying,
          entry('create', 'member', shown('member_id', 'm1'), [shown('member_id', 'm1'), shown('device', 'd1')], []),
        ]);
        // The same entry under both keys, not two entries.
        const [underOld] = await historyOf(member(c, 'm1'));
        const [, underNew] = await historyOf(member(c, 'm9'));
        expect(underNew?.at).toBe(underOld?.at);
      });

      test('when a node is rekeyed to its own key, or to a taken one, then no entry is written', async () => {
        const c = await customerWith(MEMBER);
        await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
        await store().createNode(seeded(member(c, 'm2')), []);
        await store().rekey(seeded(member(c, 'm1')), 'm1');
        await expect(store().rekey(seeded(member(c, 'm1')), 'm2')).rejects.toMatchObject({ code: 'node_exists' });
        expect((await historyOf(member(c, 'm1'))).map((e) => e.op)).toEqual(['create']);
        expect((await historyOf(member(c, 'm2'))).map((e) => e.op)).toEqual(['create']);
      });

      test('when a held ID is removed, then a delete entry removes it; when the ID is not held, then no entry is written', async () => {
        const c = await customerWith(MEMBER);
        await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1'), id('cookie', 'k1')]);
        await store().removeId(seeded(member(c, 'm1')), id('cookie', 'k1'));
        await store().removeId(seeded(member(c, 'm1')), id('cookie', 'k1'));
        await store().removeId(seeded(member(c, 'm1')), id('email', 'never@example.com'));
        expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('member_id', 'm1')]);
        expect(await historyOf(member(c, 'm1'))).toEqual([
          entry('delete', 'member', shown('member_id', 'm1'), [], [shown('cookie', 'k1')]),
          entry('create', 'member', shown('member_id', 'm1'), [shown('member_id', 'm1'), shown('device', 'd1'), shown('cookie', 'k1')], []),
        ]);
      });

      test('when a node is deleted, then a delete entry removes every ID it held, by type then id in code-point order, and its history stays readable', async () => {
        const c = await customerWith(MEMBER);
        await store().createNode(seeded(member(c, 'm1')), [id('device', '9'), id('cookie', 'b'), id('device', '10'), id('cookie', 'B'), id('cookie', 'a')]);
        await store().deleteNode(seeded(member(c, 'm1')));
        expect(await store().getNodeIds(member(c, 'm1'))).toBeUndefined();
        expect(await historyOf(member(c, 'm1'))).toEqual([
          entry(
            'delete',
            'member',
            shown('member_id', 'm1'),
            [],
            [shown('cookie', 'B'), shown('cookie', 'a'), shown('cookie', 'b'), shown('device', '10'), shown('device', '9'), shown('member_id', 'm1')],
          ),
          entry(
            'create',
            'member',
            shown('member_id', 'm1'),
            [shown('member_id', 'm1'), shown('device', '9'), shown('cookie', 'b'), shown('device', '10'), shown('cookie', 'B'), shown('cookie', 'a')],
            [],
          ),
        ]);
        // A node created again under that key continues the same history.
        await store().createNode(seeded(member(c, 'm1')), []);
        expect((await historyOf(member(c, 'm1'))).map((e) => e.op)).toEqual(['create', 'delete', 'create']);
      });

      test('when no entry names a key, then its history is empty; entries are per customer and per schema', async () => {
        const c = await customerWith(MEMBER, SHOP);
        const other = await customerWith(MEMBER);
        await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
        await store().createNode(seeded(shop(c, 'm1')), []);
        await expect(store().nodeHistory(c, 'member', id('member_id', 'nobody'), 0, 20)).resolves.toEqual({ items: [], total: 0 });
        await expect(store().nodeHistory(other, 'member', id('member_id', 'm1'), 0, 20)).resolves.toEqual({ items: [], total: 0 });
        await expect(store().nodeHistory(c, 'shop', id('member_id', 'm1'), 0, 20)).resolves.toEqual({ items: [], total: 0 });
        await expect(store().nodeHistory(c, 'member', id('device', 'd1'), 0, 20)).resolves.toEqual({ items: [], total: 0 });
        expect(await historyOf(shop(c, 'm1'))).toEqual([entry('create', 'shop', shown('shop_id', 'm1'), [shown('shop_id', 'm1')], [])]);
        expect((await historyOf(member(c, 'm1'))).map((e) => e.op)).toEqual(['create']);
      });

      test('when a bulk batch mixes applied and refused lines, then each applied line writes its entry, with its audit, and a refused one none', async () => {
        const c = await customerWith(MEMBER);
        const line = (requestId: string, key = 'm1') => withAudit(member(c, key), requestId, 'token:bulk');
        const outcomes = await store().applyNodeWrites([
          { kind: 'create', node: seeded(line('r1')), ids: [id('device', 'd1')] },
          { kind: 'create', node: seeded(line('r2')), ids: [id('cookie', 'never')] },
          { kind: 'insert', node: seeded(line('r3')), ids: [id('cookie', 'k1')] },
          { kind: 'insert', node: seeded(line('r4')), ids: [id('cookie', 'k2'), id('device', 'd1')] },
          { kind: 'replace', node: seeded(line('r5')), where: id('device', 'd1'), set: id('device', 'd2'), upsert: false },
          { kind: 'replace', node: seeded(line('r6')), where: id('device', 'dX'), set: id('device', 'd3'), upsert: false },
          { kind: 'replace', node: seeded(line('r7')), where: id('device', 'dX'), set: id('device', 'd3'), upsert: true },
          { kind: 'removeId', node: seeded(line('r8')), id: id('cookie', 'k1') },
          { kind: 'removeId', node: seeded(line('r9')), id: id('cookie', 'k1') },
          { kind: 'insert', node: seeded(line('r10', 'ghost')), ids: [id('cookie', 'k3')] },
          { kind: 'deleteNode', node: seeded(line('r11')) },
          { kind: 'deleteNode', node: seeded(line('r12')) },
        ]);
        expect(outcomes.map((o) => o?.code)).toEqual([
          undefined,
          'node_exists',
          undefined,
          'id_exists',
          undefined,
          undefined,
          undefined,
          undefined,
          undefined,
          'node_not_found',
          undefined,
          'node_not_found',
        ]);
        const key = shown('member_id', 'm1');
        const by = (requestId: string): WriteAudit => ({ requestId, actor: 'token:bulk' });
        expect(await historyOf(member(c, 'm1'))).toEqual([
          entry('delete', 'member', key, [], [shown('device', 'd2'), shown('device', 'd3'), shown('member_id', 'm1')], by('r11')),
          entry('delete', 'member', key, [], [shown('cookie', 'k1')], by('r8')),
          entry('upsert', 'member', key, [shown('device', 'd3')], [], by('r7')),
          entry('update', 'member', key, [shown('device', 'd2')], [shown('device', 'd1')], by('r5')),
          entry('insert', 'member', key, [shown('cookie', 'k1')], [], by('r3')),
          entry('create', 'member', key, [key, shown('device', 'd1')], [], by('r1')),
        ]);
        expect(await store().nodeHistory(c, 'member', id('member_id', 'ghost'), 0, 20)).toEqual({ items: [], total: 0 });
      });

      test('when consecutive bulk upserts and ID removals change several nodes, then each line that changed its node writes its entry, with its audit, and a line that changed nothing none', async () => {
        // On Neo4j, such a run of lines takes each step in one statement for all of them (changeNodes).
        const c = await customerWith(MEMBER);
        for (const k of ['m1', 'm2', 'm3', 'm4']) await store().createNode(seeded(member(c, k)), [id('device', `d-${k}`)]);
        const line = (requestId: string, key: string) => withAudit(member(c, key), requestId, 'token:bulk');
        const outcomes = await store().applyNodeWrites([
          { kind: 'replace', node: seeded(line('r1', 'm1')), where: id('device', 'd-m1'), set: id('device', 'd-new'), upsert: true },
          { kind: 'replace', node: seeded(line('r2', 'm2')), where: id('device', 'dX'), set: id('cookie', 'k2'), upsert: true },
          { kind: 'removeId', node: seeded(line('r3', 'm3')), id: id('device', 'd-m3') },
          { kind: 'removeId', node: seeded(line('r4', 'm4')), id: id('device', 'dX') },
        ]);
        expect(outcomes).toEqual([undefined, undefined, undefined, undefined]);
        const by = (requestId: string): WriteAudit => ({ requestId, actor: 'token:bulk' });
        const newest = async (k: string) => (await historyOf(member(c, k)))[0];
        expect(await newest('m1')).toEqual(
          entry('upsert', 'member', shown('member_id', 'm1'), [shown('device', 'd-new')], [shown('device', 'd-m1')], by('r1')),
        );
        expect(await newest('m2')).toEqual(entry('upsert', 'member', shown('member_id', 'm2'), [shown('cookie', 'k2')], [], by('r2')));
        expect(await newest('m3')).toEqual(entry('delete', 'member', shown('member_id', 'm3'), [], [shown('device', 'd-m3')], by('r3')));
        expect((await historyOf(member(c, 'm4'))).map((e) => e.op)).toEqual(['create']);
      });

      test('when history is read by pages, then newest first, offset and limit slice it, and total counts every entry', async () => {
        const c = await customerWith(MEMBER);
        await store().createNode(seeded(member(c, 'm1')), []);
        for (let i = 1; i <= 6; i += 1) await store().insertIds(seeded(member(c, 'm1')), [id('cookie', `k${i}`)]);
        const all = await historyOf(member(c, 'm1'));
        expect(all.map((e) => e.added[0]?.id)).toEqual(['k6', 'k5', 'k4', 'k3', 'k2', 'k1', 'm1']);
        const ats = all.map((e) => Date.parse(e.at));
        expect(ats).toEqual([...ats].sort((a, b) => b - a));

        const page = (offset: number, limit: number) => store().nodeHistory(c, 'member', id('member_id', 'm1'), offset, limit);
        expect(await page(0, 3)).toEqual({ items: all.slice(0, 3), total: 7 });
        expect(await page(3, 3)).toEqual({ items: all.slice(3, 6), total: 7 });
        expect(await page(6, 3)).toEqual({ items: all.slice(6), total: 7 });
        expect(await page(7, 3)).toEqual({ items: [], total: 7 });
        expect(await page(2, 1)).toEqual({ items: [all[2]], total: 7 });
      });
    });

    // ------------------------------------------------------------------ erase
    describe('erase', () => {
      test('when an ID is erased (scope id), then the node keyed by it is deleted, the others lose it, and its value leaves every entry', async () => {
        const c = await customerWith(MEMBER, SHOP, GADGET);
        await store().createNode(seeded(gadget(c, 'd1')), [id('cookie', 'kg')]);
        await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1'), id('cookie', 'k1')]);
        await store().createNode(seeded(shop(c, 's1')), [id('device', 'd1')]);
        await store().createNode(seeded(member(c, 'm2')), [id('device', 'd2')]);
        await store().removeId(seeded(member(c, 'm1')), id('device', 'd1'));
        await store().insertIds(seeded(member(c, 'm1')), [id('device', 'd1')]);
        expect(await reached(c, id('device', 'd1'))).toEqual(expect.arrayContaining([id('cookie', 'kg'), id('member_id', 'm1'), id('shop_id', 's1')]));

        await expect(store().erase(eraseRequest(c, id('device', 'd1'), 'id'))).resolves.toEqual({ nodesDeleted: 1, idsRemoved: 2 });

        expect(await store().getNodeIds(gadget(c, 'd1'))).toBeUndefined();
        expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('cookie', 'k1'), id('member_id', 'm1')]);
        expect(await store().getNodeIds(shop(c, 's1'))).toEqual([id('shop_id', 's1')]);
        expect(await store().getNodeIds(member(c, 'm2'))).toEqual([id('device', 'd2'), id('member_id', 'm2')]);
        expect(await holders(c, id('device', 'd1'))).toBe(0);
        expect(await holders(c, id('cookie', 'kg'))).toBe(0);
        const fromM1 = await store().searchWithTypes(buildQuery({ customerId: c, key: { schemaId: 'member', key: id('member_id', 'm1') } }));
        expect(fromM1.results).toEqual([id('cookie', 'k1'), id('member_id', 'm1')]);

        const m1 = shown('member_id', 'm1');
        expect(await historyOf(member(c, 'm1'))).toEqual([
          entry('erase', 'member', m1, [], [gone('device')], ERASE_AUDIT),
          entry('insert', 'member', m1, [gone('device')], []),
          entry('delete', 'member', m1, [], [gone('device')]),
          entry('create', 'member', m1, [m1, gone('device'), shown('cookie', 'k1')], []),
        ]);
        expect(await historyOf(shop(c, 's1'))).toEqual([
          entry('erase', 'shop', shown('shop_id', 's1'), [], [gone('device')], ERASE_AUDIT),
          entry('create', 'shop', shown('shop_id', 's1'), [shown('shop_id', 's1'), gone('device')], []),
        ]);
        // The deleted node's key was the erased value: its entries are found under it no more.
        expect(await store().nodeHistory(c, 'gadget', id('device', 'd1'), 0, 20)).toEqual({ items: [], total: 0 });
        // Untouched: a node that never held it.
        expect(await historyOf(member(c, 'm2'))).toEqual([
          entry('create', 'member', shown('member_id', 'm2'), [shown('member_id', 'm2'), shown('device', 'd2')], []),
        ]);
        // The value can be used again, and is then history like any other.
        await store().insertIds(seeded(member(c, 'm2')), [id('device', 'd1')]);
        expect((await historyOf(member(c, 'm2')))[0]).toEqual(entry('insert', 'member', shown('member_id', 'm2'), [shown('device', 'd1')], []));
      });

      test('when a person is erased, then their component goes, a links:false device shared with another person stays theirs, and rekeyed-away and replaced values leave history too', async () => {
        const c = await customerWith(MEMBER_SHARED_DEVICE);
        // B held ann's first address before ann did, and shares a tablet (links:false) with her.
        await store().createNode(seeded(member(c, 'b1')), [id('email', 'ann@example.com'), id('device', 'tablet'), id('cookie', 'kb1')]);
        await store().replaceId(seeded(member(c, 'b1')), id('email', 'ann@example.com'), id('email', 'bob@example.com'), false);
        // Ann: a1, whose address was replaced, and a node first keyed a2-old, rekeyed to a2, linked by cookie ka1.
        await store().createNode(seeded(member(c, 'a1')), [id('email', 'ann@example.com'), id('device', 'tablet'), id('cookie', 'ka1')]);
        await store().replaceId(seeded(member(c, 'a1')), id('email', 'ann@example.com'), id('email', 'ann2@example.com'), false);
        await store().createNode(seeded(member(c, 'a2-old')), [id('cookie', 'ka1'), id('cookie', 'ka2')]);
        await store().rekey(seeded(member(c, 'a2-old')), 'a2');
        const bobBefore = await historyOf(member(c, 'b1'));
        expect(bobBefore.some((e) => names(e, id('email', 'ann@example.com')))).toBe(true);
        expect((await historyOf(member(c, 'a2-old'))).map((e) => e.op)).toEqual(['rekeying', 'create']);
        expect(await reached(c, id('email', 'ann2@example.com'), ['device'])).toEqual(expect.arrayContaining([id('member_id', 'a1'), id('member_id', 'a2')]));

        await expect(store().erase(eraseRequest(c, id('email', 'ann2@example.com'), 'person', { unlinkedTypes: ['device'] }))).resolves.toEqual({
          nodesDeleted: 2,
          idsRemoved: 0,
        });

        for (const key of ['a1', 'a2', 'a2-old']) expect(await store().getNodeIds(member(c, key))).toBeUndefined();
        expect(await store().getNodeIds(member(c, 'b1'))).toEqual([
          id('cookie', 'kb1'),
          id('device', 'tablet'),
          id('email', 'bob@example.com'),
          id('member_id', 'b1'),
        ]);
        const erased = [
          id('email', 'ann@example.com'),
          id('email', 'ann2@example.com'),
          id('cookie', 'ka1'),
          id('cookie', 'ka2'),
          id('member_id', 'a1'),
          id('member_id', 'a2'),
          id('member_id', 'a2-old'),
        ];
        for (const value of erased) expect([show(value), await holders(c, value)]).toEqual([show(value), 0]);
        const byTablet = await store().searchWithTypes(buildQuery({ customerId: c, where: { id: id('device', 'tablet') }, unlinkedTypes: ['device'] }));
        expect(byTablet.results).toEqual([id('cookie', 'kb1'), id('device', 'tablet'), id('email', 'bob@example.com'), id('member_id', 'b1')]);

        // Ann's entries are found under none of her keys, the old one included.
        for (const key of ['a1', 'a2', 'a2-old']) {
          expect(await store().nodeHistory(c, 'member', id('member_id', key), 0, 20)).toEqual({ items: [], total: 0 });
        }
        // Bob's history keeps its entries and the shared tablet, but no longer names ann's first address; an erase entry
        // that took nothing from bob says so.
        const b1 = shown('member_id', 'b1');
        expect(await historyOf(member(c, 'b1'))).toEqual([
          entry('erase', 'member', b1, [], [], ERASE_AUDIT),
          entry('update', 'member', b1, [shown('email', 'bob@example.com')], [gone('email')]),
          entry('create', 'member', b1, [b1, gone('email'), shown('device', 'tablet'), shown('cookie', 'kb1')], []),
        ]);
      });

      test("when a person's node is keyed by a links:false value another node still holds, then the node goes but its key stays, with an erase entry naming only types", async () => {
        const c = await customerWith(MEMBER_WITH_IP, LEASE);
        await store().createNode(seeded(lease(c, '10.0.0.1')), [id('cookie', 'kp')]);
        await store().createNode(seeded(member(c, 'p1')), [id('cookie', 'kp'), id('email', 'pat@example.com')]);
        await store().createNode(seeded(member(c, 'o1')), [id('ip', '10.0.0.1')]);

        await expect(store().erase(eraseRequest(c, id('email', 'pat@example.com'), 'person', { unlinkedTypes: ['ip'] }))).resolves.toEqual({
          nodesDeleted: 2,
          idsRemoved: 0,
        });

        expect(await store().getNodeIds(lease(c, '10.0.0.1'))).toBeUndefined();
        expect(await store().getNodeIds(member(c, 'p1'))).toBeUndefined();
        expect(await store().getNodeIds(member(c, 'o1'))).toEqual([id('ip', '10.0.0.1'), id('member_id', 'o1')]);
        expect(await holders(c, id('cookie', 'kp'))).toBe(0);
        const ip = shown('ip', '10.0.0.1');
        const items = await historyOf(lease(c, '10.0.0.1'));
        expect(items.map((e) => ({ ...e, removed: [...e.removed].sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0)) }))).toEqual([
          entry('erase', 'lease', ip, [], [gone('cookie'), gone('ip')], ERASE_AUDIT),
          entry('create', 'lease', ip, [ip, gone('cookie')], []),
        ]);
        expect(await historyOf(member(c, 'o1'))).toEqual([entry('create', 'member', shown('member_id', 'o1'), [shown('member_id', 'o1'), ip], [])]);
      });

      test('when an erase would pass maxNodes or maxIds, then component_too_large and nodes, searches and history are unchanged', async () => {
        const c = await customerWith(MEMBER);
        await store().createNode(seeded(member(c, 'm1')), [id('email', 'ann@example.com'), id('cookie', 'k1')]);
        await store().createNode(seeded(member(c, 'm2')), [id('cookie', 'k1'), id('cookie', 'k2'), id('device', 'd1')]);
        await store().createNode(seeded(member(c, 'm3')), [id('cookie', 'k2'), id('device', 'd1')]);
        await store().rekey(seeded(member(c, 'm3')), 'm4');
        const keys = ['m1', 'm2', 'm3', 'm4'].map((k) => member(c, k));
        const snapshot = async () => ({
          nodes: await Promise.all(keys.map((k) => store().getNodeIds(k))),
          history: await Promise.all(keys.map((k) => store().nodeHistory(c, 'member', k.key, 0, 100))),
          search: await store().searchWithTypes(buildQuery({ customerId: c, where: { id: id('email', 'ann@example.com') } })),
        });
        const before = await snapshot();
        expect(before.search.results).toHaveLength(7); // ann@example.com, k1, k2, d1, m1, m2, m4
        const attempts: EraseRequest[] = [
          eraseRequest(c, id('email', 'ann@example.com'), 'person', { maxNodes: 2 }),
          eraseRequest(c, id('email', 'ann@example.com'), 'person', { maxIds: 3 }),
          eraseRequest(c, id('device', 'd1'), 'person', { maxNodes: 1 }),
          // scope id: more holders than maxNodes
          eraseRequest(c, id('device', 'd1'), 'id', { maxNodes: 1 }),
          eraseRequest(c, id('cookie', 'k2'), 'id', { maxNodes: 1 }),
        ];
        for (const attempt of attempts) {
          await expect(store().erase(attempt)).rejects.toMatchObject({ code: 'component_too_large' });
        }
        expect(await snapshot()).toEqual(before);
      });

      test.each(['id', 'person'] as const)(
        'when the erased value is held by no node (scope %s), then zeros, nothing else changes, and the value still leaves history',
        async (scope) => {
          const c = await customerWith(MEMBER);
          await store().createNode(seeded(member(c, 'b1')), [id('cookie', 'kx'), id('cookie', 'ky')]);
          await store().removeId(seeded(member(c, 'b1')), id('cookie', 'kx'));

          await expect(store().erase(eraseRequest(c, id('cookie', 'kx'), scope))).resolves.toEqual({ nodesDeleted: 0, idsRemoved: 0 });

          expect(await store().getNodeIds(member(c, 'b1'))).toEqual([id('cookie', 'ky'), id('member_id', 'b1')]);
          const b1 = shown('member_id', 'b1');
          // The erase took nothing from b1, but rewrote its history: an erase entry says so (the change feed's redacts).
          expect(await historyOf(member(c, 'b1'))).toEqual([
            entry('erase', 'member', b1, [], [], ERASE_AUDIT),
            entry('delete', 'member', b1, [], [gone('cookie')]),
            entry('create', 'member', b1, [b1, gone('cookie'), shown('cookie', 'ky')], []),
          ]);
        },
      );

      test('when writes add fresh IDs to a component while the person is erased, then each write is wholly erased or wholly kept, and no erased value remains', async () => {
        // A first erase elsewhere, so that the timing of the one raced is that of a store already warm (Neo4j plans).
        const warm = await customerWith(MEMBER);
        await store().createNode(seeded(member(warm, 'w1')), [id('email', 'rae@example.com'), id('cookie', 'shared')]);
        await store().createNode(seeded(member(warm, 'w2')), [id('cookie', 'shared')]);
        await store().erase(eraseRequest(warm, id('email', 'rae@example.com'), 'person'));
        const c = await customerWith(MEMBER);
        const people = ['r0', 'r1', 'r2', 'r3'];
        await store().createNode(seeded(member(c, 'r0')), [id('email', 'rae@example.com'), id('cookie', 'shared')]);
        for (const k of people.slice(1)) await store().createNode(seeded(member(c, k)), [id('cookie', 'shared'), id('cookie', `own-${k}`)]);
        const original = [
          id('email', 'rae@example.com'),
          id('cookie', 'shared'),
          ...people.map((k) => id('member_id', k)),
          ...people.slice(1).map((k) => id('cookie', `own-${k}`)),
        ];

        // Even writes insert two fresh IDs into a node of the component; odd ones create a node linked to it by the
        // shared cookie, holding a fresh cookie. `fresh`: the values no one held before the write; `all`: every ID
        // the write gives its node.
        type Write = { node: NodeAddress; fresh: IdPair[]; all: IdPair[]; run: () => Promise<void> };
        const writes: Write[] = Array.from({ length: 40 }, (_, i): Write => {
          if (i % 2 === 0) {
            const node = member(c, people[(i / 2) % people.length] ?? 'r0');
            const fresh = [id('cookie', `fresh-${i}`), id('device', `fresh-${i}`)];
            return { node, fresh, all: fresh, run: () => store().insertIds(seeded(node), fresh) };
          }
          const node = member(c, `n${i}`);
          const given = [id('cookie', 'shared'), id('cookie', `fresh-${i}`)];
          return {
            node,
            fresh: [id('member_id', `n${i}`), id('cookie', `fresh-${i}`)],
            all: [node.key, ...given],
            run: () => store().createNode(seeded(node), given),
          };
        });
        // The erase is sent amid the writes: half of them just before it, half after it, one by one as each is answered.
        const started = writes.map((w) => () => w.run());
        const before = started.slice(0, 20).map((run) => run());
        const erase = store().erase(eraseRequest(c, id('email', 'rae@example.com'), 'person'));
        const after = started.slice(20).reduce<Array<Promise<void>>>((sent, run) => [...sent, (sent.at(-1) ?? Promise.resolve()).then(run, run)], []);
        const [erasing, ...settled] = await Promise.allSettled([erase, ...before, ...after]);
        if (erasing?.status !== 'fulfilled') throw erasing?.reason;

        // Each successful write is wholly erased (its node gone) or wholly kept (its node holds all it gave).
        const kept: Write[] = [];
        const erasedWrites: Write[] = [];
        for (const [i, outcome] of settled.entries()) {
          const w = writes[i] as Write;
          if (outcome.status === 'rejected') {
            // An insert into a node the erase deleted; nothing else may refuse these writes.
            expect([i, (outcome.reason as { code?: string }).code]).toEqual([i, 'node_not_found']);
            continue;
          }
          const held = await store().getNodeIds(w.node);
          if (held === undefined) {
            erasedWrites.push(w);
            continue;
          }
          const missing = w.all.filter((x) => !held.some((h) => h.type === x.type && h.id === x.id)).map(show);
          expect([i, missing]).toEqual([i, []]);
          kept.push(w);
        }
        for (const w of erasedWrites) {
          for (const f of w.fresh) expect([show(f), await holders(c, f)]).toEqual([show(f), 0]);
        }
        for (const w of kept) {
          for (const f of w.fresh) expect(await holders(c, f)).toBeGreaterThan(0);
        }
        // The erase deleted the four nodes and every node a create linked to them before it.
        const createdBefore = erasedWrites.filter((w) => w.node.key.id.startsWith('n')).length;
        expect(erasing.value).toEqual({ nodesDeleted: people.length + createdBefore, idsRemoved: 0 });

        // Values the erase took and no later write brought back: in no node, search or history entry.
        const keptValues = new Set(kept.flatMap((w) => w.all).map(show));
        const mustBeGone = [...original, ...erasedWrites.flatMap((w) => w.fresh)].filter((v) => !keptValues.has(show(v)));
        for (const k of people) expect(await store().getNodeIds(member(c, k))).toBeUndefined();
        for (const value of mustBeGone) expect([show(value), await holders(c, value)]).toEqual([show(value), 0]);
        const keys = [...people, ...writes.map((w) => w.node.key.id)];
        for (const k of new Set(keys)) {
          for (const e of await historyOf(member(c, k))) {
            const named = mustBeGone.filter((v) => names(e, v)).map(show);
            expect([k, e.op, named]).toEqual([k, e.op, []]);
          }
        }
        for (const k of people) expect((await store().nodeHistory(c, 'member', id('member_id', k), 0, 1)).total).toBe(0);
      });

      // Two erases that lock nothing in common (each value is held by another person now) still rewrite the same
      // entries: those of a deleted node that held both. Neither may write back what it read before the other
      // committed, or the other's value would be named again.
      test('when two erases of different values rewrite the same history entries at once, then both values are erased from them', async () => {
        const customers = await Promise.all(Array.from({ length: 6 }, () => customerWith(MEMBER)));
        for (const c of customers) {
          await store().createNode(seeded(member(c, 'gone')), [id('email', 'va@example.com'), id('cookie', 'w')]);
          await store().deleteNode(seeded(member(c, 'gone')));
          await store().createNode(seeded(member(c, 'holds-va')), [id('email', 'va@example.com')]);
          await store().createNode(seeded(member(c, 'holds-w')), [id('cookie', 'w')]);
        }
        const outcomes = await Promise.all(
          customers.flatMap((c) => [
            store().erase(eraseRequest(c, id('email', 'va@example.com'), 'id')),
            store().erase(eraseRequest(c, id('cookie', 'w'), 'id')),
          ]),
        );
        expect(outcomes).toEqual(
          customers.flatMap(() => [
            { nodesDeleted: 0, idsRemoved: 1 },
            { nodesDeleted: 0, idsRemoved: 1 },
          ]),
        );
        const key = shown('member_id', 'gone');
        for (const c of customers) {
          expect([c, await historyOf(member(c, 'gone'))]).toEqual([
            c,
            [
              // One erase entry of each erase, which took nothing from the deleted node but rewrote its history.
              entry('erase', 'member', key, [], [], ERASE_AUDIT),
              entry('erase', 'member', key, [], [], ERASE_AUDIT),
              entry('delete', 'member', key, [], [gone('cookie'), gone('email'), key]),
              entry('create', 'member', key, [key, gone('email'), gone('cookie')], []),
            ],
          ]);
        }
      });

      // A node that another call deletes while an erase waits for it (Neo4j reads such a node back with no
      // properties) is already gone: the erase neither fails on it nor counts it.
      test('when erases of one person race each other and deletes of its nodes, then each node is deleted once, by exactly one call, and none of its values remains', async () => {
        const c = await customerWith(MEMBER);
        const people = ['p0', 'p1', 'p2', 'p3', 'p4', 'p5'];
        for (const k of people) await store().createNode(seeded(member(c, k)), [id('email', 'sam@example.com'), id('cookie', `own-${k}`)]);
        await store().createNode(seeded(member(c, 'elsewhere')), [id('cookie', 'other')]);

        // Two deletes of each node, with an erase of the whole person before every fourth of them.
        const erase = () => store().erase(eraseRequest(c, id('email', 'sam@example.com'), 'person'));
        const calls = people.flatMap((k, i) => {
          const deletes = [
            { erase: false, run: () => store().deleteNode(seeded(member(c, k))) },
            { erase: false, run: () => store().deleteNode(seeded(member(c, k))) },
          ];
          return i % 2 === 0 ? [{ erase: true, run: erase }, ...deletes] : deletes;
        });
        const settled = await Promise.allSettled(calls.map((call) => call.run()));

        let byErases = 0;
        let byDeletes = 0;
        for (const [i, outcome] of settled.entries()) {
          if (calls[i]?.erase) {
            expect(outcome.status).toBe('fulfilled');
            byErases += (outcome as PromiseFulfilledResult<EraseOutcome>).value.nodesDeleted;
          } else if (outcome.status === 'fulfilled') {
            byDeletes += 1;
          } else {
            expect(outcome.reason).toMatchObject({ code: 'node_not_found' });
          }
        }
        expect(byErases + byDeletes).toBe(people.length);
        for (const k of people) expect(await store().getNodeIds(member(c, k))).toBeUndefined();
        for (const value of [id('email', 'sam@example.com'), ...people.map((k) => id('cookie', `own-${k}`))]) {
          expect([show(value), await holders(c, value)]).toEqual([show(value), 0]);
        }
        expect(await store().getNodeIds(member(c, 'elsewhere'))).toEqual([id('cookie', 'other'), id('member_id', 'elsewhere')]);
      });
    });

    // ------------------------------------------------------------------ retention
    describe('pruneHistory', () => {
      test('when history is pruned before an instant, then only entries older than it go, at most `limit` per call', async () => {
        const c = await customerWith(MEMBER);
        await store().createNode(seeded(member(c, 'p1')), [id('cookie', 'k1')]);
        await store().insertIds(seeded(member(c, 'p1')), [id('cookie', 'k2')]);
        await store().insertIds(seeded(member(c, 'p1')), [id('cookie', 'k3')]);
        await clockPast(Date.now());
        await store().insertIds(seeded(member(c, 'p1')), [id('cookie', 'k4')]);
        await clockPast(Date.now());
        await store().insertIds(seeded(member(c, 'p1')), [id('cookie', 'k5')]);
        const all = await historyOf(member(c, 'p1'));
        expect(all).toHaveLength(5);
        const cut = all[1]?.at ?? ''; // the k4 insert's instant: it is not older than itself
        expect(Date.parse(all[2]?.at ?? '')).toBeLessThan(Date.parse(cut));

        // Nothing is that old.
        await expect(store().pruneHistory('2000-01-01T00:00:00.000Z', 1000)).resolves.toBe(0);
        expect(await historyOf(member(c, 'p1'))).toEqual(all);

        // At least this test's three older entries are there to prune: exactly `limit` go.
        await expect(store().pruneHistory(cut, 2)).resolves.toBe(2);
        let rounds = 0;
        while ((await store().pruneHistory(cut, 10_000)) > 0) {
          rounds += 1;
          expect(rounds).toBeLessThan(100);
        }
        await expect(store().pruneHistory(cut, 10_000)).resolves.toBe(0);
        expect(await store().nodeHistory(c, 'member', id('member_id', 'p1'), 0, 100)).toEqual({ items: all.slice(0, 2), total: 2 });
        expect(await store().getNodeIds(member(c, 'p1'))).toEqual([1, 2, 3, 4, 5].map((n) => id('cookie', `k${n}`)).concat(id('member_id', 'p1')));
      });

      // Several service processes on one Neo4j each prune every hour: a prune that waited for an entry another one
      // deleted must not count it again.
      test('when prunes race, then each entry is counted once, by the prune that deleted it', async () => {
        // Nothing older than this test's own entries is left, so what the prunes below may delete is exactly them.
        /** Prunes until nothing before `before` is left; answers how many entries the prunes said they deleted. */
        const pruneAll = async (before: string): Promise<number> => {
          let total = 0;
          for (let n = await store().pruneHistory(before, 10_000); n > 0; n = await store().pruneHistory(before, 10_000)) total += n;
          return total;
        };
        await pruneAll(new Date().toISOString());
        await clockPast(Date.now());
        const c = await customerWith(MEMBER);
        const keys = Array.from({ length: 10 }, (_, n) => `r${n}`);
        for (const k of keys) {
          await store().createNode(seeded(member(c, k)), [id('cookie', `${k}-0`)]);
          for (let w = 1; w <= 3; w++) await store().insertIds(seeded(member(c, k)), [id('cookie', `${k}-${w}`)]);
        }
        const newest = Math.max(...(await Promise.all(keys.map(async (k) => Date.parse((await historyOf(member(c, k)))[0]?.at ?? '')))));
        const cut = new Date(newest + 1).toISOString();

        const raced = await Promise.all(Array.from({ length: 6 }, () => store().pruneHistory(cut, 10)));
        const rest = await pruneAll(cut);

        expect(raced.reduce((sum, n) => sum + n, 0) + rest).toBe(keys.length * 4);
        for (const k of keys) expect((await store().nodeHistory(c, 'member', id('member_id', k), 0, 1)).total).toBe(0);
      });
    });
  });
}
