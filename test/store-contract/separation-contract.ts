// Separations (Store.separate, unseparate, listSeparations): two nodes that must never hold a common ID, as plain
// Store calls. Every Store implementation runs it (`describeSeparationContract(name, openStore)`); each test works on
// a customer of its own. Every assertion reads back what is stored (getNodeIds, nodeHistory, listSeparations).
import type { IdPair, NodeAddress, NodeRef, WriteAudit } from '../../src/domain/model';
import type { TestStore as Store } from '../helpers/store';
import { id, member, MEMBER, newCustomer, useStore } from './contract';
import { seeded } from '../helpers/seeded';

const audit: WriteAudit = { requestId: 'req-sep', actor: 'token:t1' };
const ref = (n: NodeAddress): NodeRef => ({ schemaId: n.schemaId, key: n.key });
const checked = (n: NodeAddress): NodeAddress => ({ ...n, expectedTypes: MEMBER.idTypes });

/** A customer with ann (device tablet, cookie c1) and bob (device tablet): one person through the tablet. */
async function annAndBob(store: Store) {
  const c = newCustomer();
  await store.putSchema(c, MEMBER);
  const ann = member(c, 'ann');
  const bob = member(c, 'bob');
  await store.createNode(seeded(ann), [id('device', 'tablet'), id('cookie', 'c1')]);
  await store.createNode(seeded(bob), [id('device', 'tablet')]);
  return { c, ann, bob };
}

const ops = async (store: Store, n: NodeAddress) => (await store.nodeHistory(n.customerId, n.schemaId, n.key, 0, 10)).items.map((e) => e.op);

export function describeSeparationContract(name: string, openStore: () => Promise<Store>): void {
  describe(`Separation contract: ${name}`, () => {
    const store = useStore(openStore);

    test('when two nodes sharing an ID are separated from B, then B loses it, A keeps it, the ban is listed, and both histories say separate', async () => {
      const { c, ann, bob } = await annAndBob(store());
      await expect(store().separate({ customerId: c, a: ref(ann), b: ref(bob), removeSharedFrom: 'b', audit })).resolves.toEqual({ idsRemoved: 1 });
      expect(await store().getNodeIds(ann)).toEqual([id('cookie', 'c1'), id('device', 'tablet'), id('member_id', 'ann')]);
      expect(await store().getNodeIds(bob)).toEqual([id('member_id', 'bob')]);
      expect(await store().listSeparations(c, 0, 10)).toEqual({ items: [{ a: ref(ann), b: ref(bob) }], total: 1 });
      const [bobEntry] = (await store().nodeHistory(c, 'member', bob.key, 0, 10)).items;
      expect(bobEntry).toMatchObject({ op: 'separate', actor: 'token:t1', requestId: 'req-sep', added: [], removed: [id('device', 'tablet')] });
      const [annEntry] = (await store().nodeHistory(c, 'member', ann.key, 0, 10)).items;
      expect(annEntry).toMatchObject({ op: 'separate', added: [], removed: [] });
    });

    test("when two nodes share 9,998 IDs and are separated from A, then A loses all of them in the one call, B keeps them, and A's history lists them", async () => {
      const c = newCustomer();
      await store().putSchema(c, MEMBER);
      const ann = member(c, 'ann');
      const bob = member(c, 'bob');
      // With their keys, 9,999 IDs each: within NODE_MAX_IDS (10,000).
      const shared = Array.from({ length: 9_998 }, (_, i) => id('device', `d${String(i).padStart(4, '0')}`));
      await store().createNode(seeded(ann), shared);
      await store().createNode(seeded(bob), shared);
      await expect(store().separate({ customerId: c, a: ref(ann), b: ref(bob), removeSharedFrom: 'a', audit })).resolves.toEqual({ idsRemoved: 9_998 });
      expect(await store().getNodeIds(ann)).toEqual([id('member_id', 'ann')]);
      expect(await store().getNodeIds(bob)).toEqual([...shared, id('member_id', 'bob')]);
      expect(await store().listSeparations(c, 0, 10)).toEqual({ items: [{ a: ref(ann), b: ref(bob) }], total: 1 });
      const [annEntry] = (await store().nodeHistory(c, 'member', ann.key, 0, 10)).items;
      expect(annEntry).toMatchObject({ op: 'separate', added: [], removed: shared });
    });

    test('when remove_shared_from is none and the nodes share an ID, then ids_shared and nothing changes; when they share none, then the ban is stored', async () => {
      const { c, ann, bob } = await annAndBob(store());
      await expect(store().separate({ customerId: c, a: ref(ann), b: ref(bob), removeSharedFrom: 'none', audit })).rejects.toMatchObject({
        code: 'ids_shared',
      });
      expect(await store().getNodeIds(bob)).toEqual([id('device', 'tablet'), id('member_id', 'bob')]);
      expect((await store().listSeparations(c, 0, 10)).total).toBe(0);
      expect(await ops(store(), bob)).toEqual(['create']);
      await store().removeId(seeded(bob), id('device', 'tablet'));
      await expect(store().separate({ customerId: c, a: ref(bob), b: ref(ann), removeSharedFrom: 'none', audit })).resolves.toEqual({ idsRemoved: 0 });
      // Listed in code-point order whatever order it was given in.
      expect((await store().listSeparations(c, 0, 10)).items).toEqual([{ a: ref(ann), b: ref(bob) }]);
    });

    test('when a node is missing, then node_not_found and nothing is stored', async () => {
      const { c, ann } = await annAndBob(store());
      await expect(store().separate({ customerId: c, a: ref(ann), b: ref(member(c, 'nobody')), removeSharedFrom: 'a', audit })).rejects.toMatchObject({
        code: 'node_not_found',
      });
      expect(await store().getNodeIds(ann)).toHaveLength(3);
      expect((await store().listSeparations(c, 0, 10)).total).toBe(0);
    });

    test('when the shared ID is the key of the side named, then key_id_immutable and nothing changes', async () => {
      const { c, ann, bob } = await annAndBob(store());
      await store().insertIds(seeded(ann), [id('member_id', 'bob')]);
      await expect(store().separate({ customerId: c, a: ref(ann), b: ref(bob), removeSharedFrom: 'b', audit })).rejects.toMatchObject({
        code: 'key_id_immutable',
      });
      expect(await store().getNodeIds(bob)).toEqual([id('device', 'tablet'), id('member_id', 'bob')]);
      expect((await store().listSeparations(c, 0, 10)).total).toBe(0);
    });

    test('when separated nodes are written, then every write that would make them share an ID is separated_nodes naming both keys, on either side, and changes nothing', async () => {
      const { c, ann, bob } = await annAndBob(store());
      await store().separate({ customerId: c, a: ref(ann), b: ref(bob), removeSharedFrom: 'b', audit });
      // An ID bob does not hold: ann may take it.
      await store().insertIds(seeded(checked(ann)), [id('member_id', 'ann-old')]);
      const annBefore = await store().getNodeIds(ann);
      const refused = expect.objectContaining({ code: 'separated_nodes', message: expect.stringMatching(/member_id=ann.*member_id=bob/) });
      await expect(store().insertIds(seeded(checked(bob)), [id('cookie', 'c9'), id('device', 'tablet')])).rejects.toEqual(refused);
      await expect(store().replaceId(seeded(checked(bob)), id('device', 'none'), id('device', 'tablet'), true)).rejects.toEqual(refused);
      await store().insertIds(seeded(bob), [id('cookie', 'c2')]);
      await expect(store().replaceId(seeded(checked(bob)), id('cookie', 'c2'), id('cookie', 'c1'), false)).rejects.toEqual(refused);
      // The other side: ann may not take bob's cookie, nor his key.
      const refusedFromAnn = expect.objectContaining({ code: 'separated_nodes', message: expect.stringMatching(/member_id=ann.*member_id=bob/) });
      await expect(store().insertIds(seeded(checked(ann)), [id('cookie', 'c2')])).rejects.toEqual(refusedFromAnn);
      await expect(store().insertIds(seeded(checked(ann)), [id('member_id', 'bob')])).rejects.toEqual(refusedFromAnn);
      // A rekey onto an ID the other holds.
      await expect(store().rekey(seeded(checked(bob)), 'ann-old')).rejects.toEqual(refused);
      const results = await store().applyNodeWrites([
        { kind: 'insert', node: seeded(checked(bob)), ids: [id('device', 'tablet')] },
        { kind: 'insert', node: seeded(checked(bob)), ids: [id('cookie', 'c3')] },
        { kind: 'replace', node: seeded(checked(ann)), where: id('cookie', 'zz'), set: id('cookie', 'c2'), upsert: true },
      ]);
      expect(results.map((r) => r?.code)).toEqual(['separated_nodes', undefined, 'separated_nodes']);
      expect(await store().getNodeIds(ann)).toEqual(annBefore);
      expect(await store().getNodeIds(bob)).toEqual([id('cookie', 'c2'), id('cookie', 'c3'), id('member_id', 'bob')]);
      // Other nodes are not concerned: a third node may hold the tablet.
      await expect(store().createNode(seeded(member(c, 'cy')), [id('device', 'tablet'), id('cookie', 'c2')])).resolves.toBeUndefined();
    });

    test('when a ban is lifted, then the pair may share IDs again, both histories say unseparate, and lifting it again is separation_not_found', async () => {
      const { c, ann, bob } = await annAndBob(store());
      await store().separate({ customerId: c, a: ref(ann), b: ref(bob), removeSharedFrom: 'b', audit });
      await store().unseparate(c, ref(bob), ref(ann), audit);
      expect((await store().listSeparations(c, 0, 10)).total).toBe(0);
      expect((await ops(store(), ann))[0]).toBe('unseparate');
      expect((await ops(store(), bob))[0]).toBe('unseparate');
      await store().insertIds(seeded(checked(bob)), [id('device', 'tablet')]);
      expect(await store().getNodeIds(bob)).toEqual([id('device', 'tablet'), id('member_id', 'bob')]);
      await expect(store().unseparate(c, ref(ann), ref(bob), audit)).rejects.toMatchObject({ code: 'separation_not_found' });
      await expect(store().unseparate(c, ref(ann), ref(member(c, 'nobody')), audit)).rejects.toMatchObject({ code: 'node_not_found' });
    });

    test('when a separated node is rekeyed, then the ban follows it; when either is deleted or erased, then the ban goes', async () => {
      const { c, ann, bob } = await annAndBob(store());
      await store().separate({ customerId: c, a: ref(ann), b: ref(bob), removeSharedFrom: 'b', audit });
      await store().rekey(seeded(checked(bob)), 'bobby');
      const bobby = member(c, 'bobby');
      expect((await store().listSeparations(c, 0, 10)).items).toEqual([{ a: ref(ann), b: ref(bobby) }]);
      await expect(store().insertIds(seeded(checked(bobby)), [id('device', 'tablet')])).rejects.toMatchObject({ code: 'separated_nodes' });
      await store().deleteNode(seeded(bobby));
      expect(await store().listSeparations(c, 0, 10)).toEqual({ items: [], total: 0 });
      // Erasure: a new bob separated from ann, then ann's person erased.
      await store().createNode(seeded(bob), []);
      await store().separate({ customerId: c, a: ref(ann), b: ref(bob), removeSharedFrom: 'none', audit });
      await store().erase({ customerId: c, id: id('cookie', 'c1'), scope: 'person', unlinkedTypes: [], maxNodes: 100, maxIds: 1000, audit });
      expect(await store().listSeparations(c, 0, 10)).toEqual({ items: [], total: 0 });
      await store().createNode(seeded(ann), [id('device', 'tablet')]);
      await expect(store().insertIds(seeded(checked(bob)), [id('device', 'tablet')])).resolves.toBeUndefined();
    });

    test('when a customer has several bans, then the list is paged in code-point order with the total', async () => {
      const c = newCustomer();
      await store().putSchema(c, MEMBER);
      const names = ['b', 'a', 'c', 'é', 'z'];
      for (const n of names) await store().createNode(seeded(member(c, n)), []);
      const pairs: Array<[string, string]> = [
        ['z', 'a'],
        ['c', 'b'],
        ['é', 'a'],
        ['b', 'a'],
      ];
      for (const [x, y] of pairs) await store().separate({ customerId: c, a: ref(member(c, x)), b: ref(member(c, y)), removeSharedFrom: 'none', audit });
      const key = (n: string): IdPair => id('member_id', n);
      const pair = (x: string, y: string) => ({ a: { schemaId: 'member', key: key(x) }, b: { schemaId: 'member', key: key(y) } });
      expect(await store().listSeparations(c, 0, 2)).toEqual({ items: [pair('a', 'b'), pair('a', 'z')], total: 4 });
      expect(await store().listSeparations(c, 2, 2)).toEqual({ items: [pair('a', 'é'), pair('b', 'c')], total: 4 });
      expect(await store().listSeparations(c, 4, 2)).toEqual({ items: [], total: 4 });
      expect((await store().listSeparations(newCustomer(), 0, 2)).total).toBe(0);
    });

    test('when one batch adds an ID to both nodes of a ban, then the later line is separated_nodes and only the earlier node holds it', async () => {
      const { c, ann, bob } = await annAndBob(store());
      await store().separate({ customerId: c, a: ref(ann), b: ref(bob), removeSharedFrom: 'b', audit });
      const inserts = await store().applyNodeWrites([
        { kind: 'insert', node: seeded(checked(ann)), ids: [id('cookie', 'c7')] },
        { kind: 'insert', node: seeded(checked(bob)), ids: [id('cookie', 'c7')] },
      ]);
      const upserts = await store().applyNodeWrites([
        { kind: 'replace', node: seeded(checked(bob)), where: id('cookie', 'none'), set: id('cookie', 'c8'), upsert: true },
        { kind: 'replace', node: seeded(checked(ann)), where: id('cookie', 'none'), set: id('cookie', 'c8'), upsert: true },
      ]);
      expect([...inserts, ...upserts].map((r) => r?.code)).toEqual([undefined, 'separated_nodes', undefined, 'separated_nodes']);
      expect(await store().getNodeIds(ann)).toEqual([id('cookie', 'c1'), id('cookie', 'c7'), id('device', 'tablet'), id('member_id', 'ann')]);
      expect(await store().getNodeIds(bob)).toEqual([id('cookie', 'c8'), id('member_id', 'bob')]);
    });

    test('when many writes race to add one ID to both nodes of a ban, then afterwards at most one of them holds it', async () => {
      const c = newCustomer();
      await store().putSchema(c, MEMBER);
      const rounds = 8;
      for (let round = 0; round < rounds; round++) {
        const a = member(c, `a${round}`);
        const b = member(c, `b${round}`);
        await store().createNode(seeded(a), []);
        await store().createNode(seeded(b), []);
        await store().separate({ customerId: c, a: ref(a), b: ref(b), removeSharedFrom: 'none', audit });
        const shared = id('device', `d${round}`);
        const writes: Array<Promise<unknown>> = [];
        for (let i = 0; i < 6; i++) {
          const n = checked(i % 2 === 0 ? a : b);
          writes.push(i % 3 === 0 ? store().insertIds(seeded(n), [shared]) : store().replaceId(seeded(n), id('cookie', 'none'), shared, true));
          writes.push(store().applyNodeWrites([{ kind: 'insert', node: seeded(n), ids: [shared] }]));
        }
        const outcomes = await Promise.allSettled(writes);
        for (const o of outcomes)
          if (o.status === 'rejected') expect(o.reason).toMatchObject({ name: 'DomainError', code: expect.stringMatching(/^(separated_nodes|id_exists)$/) });
        const held = [await store().getNodeIds(a), await store().getNodeIds(b)].filter((ids) => ids?.some((x) => x.type === 'device'));
        expect(held).toHaveLength(1);
      }
    });
  });
}
