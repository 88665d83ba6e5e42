// The store contract of the explorer's read (Store.graph, docs/explorer.md): plain Store calls, no HTTP, run by every
// store (`describeGraphContract(name, openStore)`). The same rules as contract.ts: each test on customers of its
// own, every assertion on what the store answers.
import { byTypeThenId } from '../../src/domain/code-point-order';
import type { GraphComponent, GraphQuery } from '../../src/domain/graph';
import { DomainError } from '../../src/domain/errors';
import type { AnswerRoom, IdPair, NodeAddress, SchemaRecord, SearchQuery } from '../../src/domain/model';
import type { TestStore as Store } from '../helpers/store';
import { asChecked, id, member, MEMBER, newCustomer, shop, SHOP, useStore, VISIT_WITH_OPTIONS } from './contract';
import { seeded } from '../helpers/seeded';

/** A node as the tests compare them: schema, key, and its IDs sorted (stores answer them in no order). */
interface Drawn {
  schema: string;
  key: string;
  ids: string[];
}

const text = (x: IdPair): string => `${x.type}:${x.id}`;

function drawn(component: GraphComponent): { nodes: Drawn[]; truncated: boolean } {
  return {
    nodes: component.nodes.map((n) => ({ schema: n.schemaId, key: text(n.key), ids: [...n.ids].sort(byTypeThenId).map(text) })),
    truncated: component.truncated,
  };
}

const keys = (component: GraphComponent): string[] => component.nodes.map((n) => `${n.schemaId}/${text(n.key)}`);

export function describeGraphContract(name: string, openStore: () => Promise<Store>): void {
  describe(`Store contract, graph: ${name}`, () => {
    const store = useStore(openStore);

    async function customerWith(...schemas: SchemaRecord[]): Promise<string> {
      const c = newCustomer();
      for (const schema of schemas) await store().putSchema(c, schema);
      return c;
    }

    const create = (node: NodeAddress, schema: SchemaRecord, ids: IdPair[]) => store().createNode(seeded(asChecked(node, schema, ids)), ids);

    /** A graph query from `start` with generous bounds unless overridden. */
    const query = (customerId: string, start: Pick<GraphQuery, 'key' | 'where'>, overrides: Partial<GraphQuery> = {}): GraphQuery => ({
      customerId,
      ...start,
      step: 'ALL',
      exclude: false,
      hiddenTypes: [],
      unlinkedTypes: [],
      maxNodes: 10_000,
      maxIds: 50_000,
      answerNodes: 500,
      ...overrides,
    });
    const fromKey = (node: NodeAddress) => ({ key: { schemaId: node.schemaId, key: node.key } });

    /**
     * The chain m1 – m2 – m3 – m4 (devices d1, d2, d3 shared by neighbours), and s1 (shop) sharing d2 with m2 and
     * m3: from m1, level 0 m1, level 1 m2, level 2 m3 and s1, level 3 m4.
     */
    async function chain(): Promise<string> {
      const c = await customerWith(MEMBER, SHOP);
      await create(member(c, 'm1'), MEMBER, [id('device', 'd1')]);
      await create(member(c, 'm2'), MEMBER, [id('device', 'd1'), id('device', 'd2')]);
      await create(member(c, 'm3'), MEMBER, [id('device', 'd2'), id('device', 'd3'), id('cookie', 'k3')]);
      await create(member(c, 'm4'), MEMBER, [id('device', 'd3')]);
      await create(shop(c, 's1'), SHOP, [id('device', 'd2')]);
      return c;
    }

    test('when step ALL starts from a key, then every node comes with every ID it holds, level by level, then by schema and key', async () => {
      const c = await chain();
      const answer = drawn(await store().graphWithTypes(query(c, fromKey(member(c, 'm1')))));
      expect(answer).toEqual({
        nodes: [
          { schema: 'member', key: 'member_id:m1', ids: ['device:d1', 'member_id:m1'] },
          { schema: 'member', key: 'member_id:m2', ids: ['device:d1', 'device:d2', 'member_id:m2'] },
          { schema: 'member', key: 'member_id:m3', ids: ['cookie:k3', 'device:d2', 'device:d3', 'member_id:m3'] },
          { schema: 'shop', key: 'shop_id:s1', ids: ['device:d2', 'shop_id:s1'] },
          { schema: 'member', key: 'member_id:m4', ids: ['device:d3', 'member_id:m4'] },
        ],
        truncated: false,
      });
    });

    test('when answerNodes is smaller than the component, then the nearest come first and truncated is true', async () => {
      const c = await chain();
      const cut = await store().graphWithTypes(query(c, fromKey(member(c, 'm4')), { answerNodes: 3 }));
      expect(keys(cut)).toEqual(['member/member_id:m4', 'member/member_id:m3', 'member/member_id:m2']);
      expect(cut.truncated).toBe(true);
      const whole = await store().graphWithTypes(query(c, fromKey(member(c, 'm4')), { answerNodes: 5 }));
      expect(keys(whole)).toEqual(['member/member_id:m4', 'member/member_id:m3', 'member/member_id:m2', 'shop/shop_id:s1', 'member/member_id:m1']);
      expect(whole.truncated).toBe(false);
    });

    test('when the answered nodes would hold more than maxIds IDs counted per node, then the answer stops before the first that does not fit', async () => {
      const c = await chain();
      // m1 holds 2 IDs, m2 3, m3 4: 9 fit; s1's 2 more do not. The distinct IDs (9) are within the search's bound.
      const cut = await store().graphWithTypes(query(c, fromKey(member(c, 'm1')), { maxIds: 9 }));
      expect(keys(cut)).toEqual(['member/member_id:m1', 'member/member_id:m2', 'member/member_id:m3']);
      expect(cut.truncated).toBe(true);
      const tighter = await store().graphWithTypes(query(c, fromKey(member(c, 'm1')), { maxIds: 9, answerNodes: 2 }));
      expect(keys(tighter)).toEqual(['member/member_id:m1', 'member/member_id:m2']);
    });

    test('when step ONE starts from an ID without a schema, then its holders come first and the nodes sharing an ID with them next', async () => {
      const c = await chain();
      const answer = await store().graphWithTypes(query(c, { where: { id: id('device', 'd2') } }, { step: 'ONE' }));
      expect(keys(answer)).toEqual(['member/member_id:m2', 'member/member_id:m3', 'shop/shop_id:s1', 'member/member_id:m1', 'member/member_id:m4']);
      expect(answer.truncated).toBe(false);
    });

    test('when step ONE starts from a key, then the key node and its neighbours are answered, no further', async () => {
      const c = await chain();
      const answer = await store().graphWithTypes(query(c, fromKey(member(c, 'm2')), { step: 'ONE' }));
      expect(keys(answer)).toEqual(['member/member_id:m2', 'member/member_id:m1', 'member/member_id:m3', 'shop/shop_id:s1']);
    });

    test('when step ALL starts from an ID that links, restricted to a schema, then every holder of the ID is level 0', async () => {
      const c = await chain();
      const answer = await store().graphWithTypes(query(c, { where: { id: id('device', 'd2'), schemaId: 'shop' } }));
      expect(keys(answer)).toEqual(['member/member_id:m2', 'member/member_id:m3', 'shop/shop_id:s1', 'member/member_id:m1', 'member/member_id:m4']);
      // exclude leaves out only the start nodes, those of the schema
      const excluded = await store().graphWithTypes(query(c, { where: { id: id('device', 'd2'), schemaId: 'shop' } }, { exclude: true }));
      expect(keys(excluded)).toEqual(['member/member_id:m2', 'member/member_id:m3', 'member/member_id:m1', 'member/member_id:m4']);
    });

    test('when step ALL starts from a key that holds the where ID, then the keyed node alone is level 0', async () => {
      const c = await chain();
      const answer = await store().graphWithTypes(query(c, { ...fromKey(member(c, 'm2')), where: { id: id('device', 'd2'), schemaId: 'member' } }));
      expect(keys(answer)).toEqual(['member/member_id:m2', 'member/member_id:m1', 'member/member_id:m3', 'shop/shop_id:s1', 'member/member_id:m4']);
    });

    test("when step ONE starts from an ID restricted to a schema, then only that schema's holders are level 0", async () => {
      const c = await chain();
      const answer = await store().graphWithTypes(query(c, { where: { id: id('device', 'd2'), schemaId: 'shop' } }, { step: 'ONE' }));
      expect(keys(answer)).toEqual(['shop/shop_id:s1', 'member/member_id:m2', 'member/member_id:m3']);
    });

    test('when exclude is set, then the start nodes are left out and the rest keep their order', async () => {
      const c = await chain();
      const answer = await store().graphWithTypes(query(c, fromKey(member(c, 'm1')), { exclude: true, answerNodes: 2 }));
      expect(keys(answer)).toEqual(['member/member_id:m2', 'member/member_id:m3']);
      expect(answer.truncated).toBe(true);
    });

    test('when no node holds the start, then nothing is answered and nothing is truncated', async () => {
      const c = await chain();
      expect(await store().graphWithTypes(query(c, { where: { id: id('device', 'nobody') } }))).toEqual({ nodes: [], truncated: false });
      expect(await store().graphWithTypes(query(c, fromKey(member(c, 'nobody'))))).toEqual({ nodes: [], truncated: false });
      // an ID held only in another schema than the one named
      expect(await store().graphWithTypes(query(c, { where: { id: id('device', 'd1'), schemaId: 'shop' } }))).toEqual({ nodes: [], truncated: false });
    });

    test('when IDs of a links: false type are shared, then they link nothing but are answered with their holders', async () => {
      const c = await customerWith(VISIT_WITH_OPTIONS);
      const visit = (v: string): NodeAddress => ({ customerId: c, schemaId: 'visit', key: id('visit_id', v) });
      await create(visit('v1'), VISIT_WITH_OPTIONS, [id('ip', '10.0.0.1'), id('device', 'x')]);
      await create(visit('v2'), VISIT_WITH_OPTIONS, [id('ip', '10.0.0.1')]);
      await create(visit('v3'), VISIT_WITH_OPTIONS, [id('device', 'x'), id('ip', '10.0.0.9')]);
      const unlinkedTypes = ['ip'];
      expect(drawn(await store().graphWithTypes(query(c, fromKey(visit('v1')), { unlinkedTypes })))).toEqual({
        nodes: [
          { schema: 'visit', key: 'visit_id:v1', ids: ['device:x', 'ip:10.0.0.1', 'visit_id:v1'] },
          { schema: 'visit', key: 'visit_id:v3', ids: ['device:x', 'ip:10.0.0.9', 'visit_id:v3'] },
        ],
        truncated: false,
      });
      // from the ID that links nothing: its holders are the start nodes, each with its own component
      const fromIp = await store().graphWithTypes(query(c, { where: { id: id('ip', '10.0.0.1') } }, { unlinkedTypes }));
      expect(keys(fromIp)).toEqual(['visit/visit_id:v1', 'visit/visit_id:v2', 'visit/visit_id:v3']);
      const inSchema = await store().graphWithTypes(query(c, { where: { id: id('ip', '10.0.0.1'), schemaId: 'visit' } }, { unlinkedTypes }));
      expect(keys(inSchema)).toEqual(['visit/visit_id:v1', 'visit/visit_id:v2', 'visit/visit_id:v3']);
      const one = await store().graphWithTypes(query(c, { where: { id: id('ip', '10.0.0.1') } }, { unlinkedTypes, step: 'ONE' }));
      expect(keys(one)).toEqual(['visit/visit_id:v1', 'visit/visit_id:v2', 'visit/visit_id:v3']);
    });

    test('when many holders of a links: false ID in a schema share one component, then ALL from the ID has them all at level 0 and the rest next, within the bounds', async () => {
      const withIp = (schema: SchemaRecord): SchemaRecord => ({ ...schema, idTypes: [...schema.idTypes, { type: 'ip', secure: false, links: false }] });
      const c = await customerWith(withIp(MEMBER), withIp(SHOP));
      const HOT = id('ip', 'hot');
      const holders = Array.from({ length: 40 }, (_, i) => `m${String(i).padStart(2, '0')}`);
      for (const m of holders) await create(member(c, m), withIp(MEMBER), [id('device', 'shared'), HOT]);
      // Linked by the device: level 1, though s3 holds the ip too; s2 holds only the ip, in another schema: out.
      await create(shop(c, 's1'), withIp(SHOP), [id('device', 'shared')]);
      await create(shop(c, 's2'), withIp(SHOP), [HOT]);
      await create(shop(c, 's3'), withIp(SHOP), [HOT, id('device', 'shared')]);
      const from = { where: { schemaId: 'member', id: HOT } };
      const unlinkedTypes = ['ip'];

      const answer = drawn(await store().graphWithTypes(query(c, from, { unlinkedTypes })));
      expect(answer).toEqual({
        nodes: [
          ...holders.map((m) => ({ schema: 'member', key: `member_id:${m}`, ids: ['device:shared', 'ip:hot', `member_id:${m}`] })),
          { schema: 'shop', key: 'shop_id:s1', ids: ['device:shared', 'shop_id:s1'] },
          { schema: 'shop', key: 'shop_id:s3', ids: ['device:shared', 'ip:hot', 'shop_id:s3'] },
        ],
        truncated: false,
      });
      expect(keys(await store().graphWithTypes(query(c, from, { unlinkedTypes, answerNodes: 41 })))).toEqual([
        ...holders.map((m) => `member/member_id:${m}`),
        'shop/shop_id:s1',
      ]);
      // 42 nodes holding 44 distinct IDs (answered, 3 a node for the nearest, maxIds holds 14 of them).
      await expect(store().graphWithTypes(query(c, from, { unlinkedTypes, maxNodes: 41 }))).rejects.toMatchObject({ code: 'component_too_large' });
      await expect(store().graphWithTypes(query(c, from, { unlinkedTypes, maxIds: 43 }))).rejects.toMatchObject({ code: 'component_too_large' });
      const atTheBounds = await store().graphWithTypes(query(c, from, { unlinkedTypes, maxNodes: 42, maxIds: 44 }));
      expect({ answered: keys(atTheBounds), truncated: atTheBounds.truncated }).toEqual({
        answered: holders.slice(0, 14).map((m) => `member/member_id:${m}`),
        truncated: true,
      });
    });

    test('when the component passes maxNodes or its nodes hold more than maxIds distinct IDs, then component_too_large', async () => {
      const c = await chain();
      for (const step of ['ONE', 'ALL'] as const) {
        await expect(store().graphWithTypes(query(c, { where: { id: id('device', 'd2') } }, { step, maxNodes: 2 }))).rejects.toMatchObject({
          code: 'component_too_large',
        });
      }
      await expect(store().graphWithTypes(query(c, fromKey(member(c, 'm1')), { maxNodes: 4 }))).rejects.toMatchObject({ code: 'component_too_large' });
      // 9 distinct IDs in the component
      await expect(store().graphWithTypes(query(c, fromKey(member(c, 'm1')), { maxIds: 8 }))).rejects.toMatchObject({ code: 'component_too_large' });
      await expect(store().graphWithTypes(query(c, fromKey(member(c, 'm2')), { step: 'ONE', maxIds: 7 }))).rejects.toMatchObject({
        code: 'component_too_large',
      });
      // at the bounds exactly: 5 nodes, 9 distinct IDs (13 counted per node)
      expect(keys(await store().graphWithTypes(query(c, fromKey(member(c, 'm1')), { maxNodes: 5, maxIds: 13 })))).toHaveLength(5);
    });

    test('when IDs hold characters past U+FFFF, then nodes of a level are ordered by code point, not by UTF-16 unit', async () => {
      const c = await customerWith(MEMBER);
      await create(member(c, 'hub'), MEMBER, [id('device', 'shared')]);
      // U+1F600 sorts after U+FFFD by code point; as UTF-16 (a surrogate, 0xD83D) it would sort before.
      for (const m of ['\u{1F600}', '\uFFFD', 'z']) await create(member(c, m), MEMBER, [id('device', 'shared')]);
      const answer = await store().graphWithTypes(query(c, fromKey(member(c, 'hub'))));
      expect(keys(answer)).toEqual(['member/member_id:hub', 'member/member_id:z', 'member/member_id:\uFFFD', 'member/member_id:\u{1F600}']);
    });

    test('when nodes are linked while graphs are read at the same time, then every answer is whole and the last one sees every node', async () => {
      const c = await customerWith(MEMBER);
      await create(member(c, 'root'), MEMBER, [id('device', 'hub')]);
      const writers = Array.from({ length: 30 }, (_, i) => create(member(c, `n${i}`), MEMBER, [id('device', 'hub'), id('cookie', `k${i}`)]));
      const readers = Array.from({ length: 30 }, () => store().graphWithTypes(query(c, fromKey(member(c, 'root')))));
      const [, answers] = await Promise.all([Promise.all(writers), Promise.all(readers)]);
      for (const answer of answers) {
        expect(answer.nodes[0]?.key).toEqual(id('member_id', 'root'));
        // a node is answered whole: its key, the hub, its own cookie
        for (const n of answer.nodes.slice(1))
          expect([...n.ids].sort(byTypeThenId).map(text)).toEqual([`cookie:k${n.key.id.slice(1)}`, 'device:hub', text(n.key)]);
      }
      const last = await store().graphWithTypes(query(c, fromKey(member(c, 'root'))));
      expect(last.nodes).toHaveLength(31);
      expect(keys(last).slice(1)).toEqual(Array.from({ length: 30 }, (_, i) => `member/member_id:n${i}`).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    });

    test('when keys are hidden, then nodes of one level keep their order whatever their key values, which order the visible keys', async () => {
      const c = await customerWith(MEMBER);
      const byEmail = (value: string): NodeAddress => ({ customerId: c, schemaId: 'member', key: id('email', value) });
      await create(byEmail('b@example.com'), MEMBER, [id('device', 'shared')]);
      await create(byEmail('c@example.com'), MEMBER, [id('device', 'shared')]);
      await create(byEmail('a@example.com'), MEMBER, [id('device', 'shared')]);
      const fromDevice = { where: { id: id('device', 'shared') } };
      const order = async (hiddenTypes: string[]) => keys(await store().graphWithTypes(query(c, fromDevice, { hiddenTypes })));
      expect(await order([])).toEqual(['member/email:a@example.com', 'member/email:b@example.com', 'member/email:c@example.com']);
      const hidden = await order(['email']);
      // b moves past c and a in value order: where it is answered must not move with it.
      await store().rekey(seeded(asChecked(byEmail('b@example.com'), MEMBER)), 'd@example.com');
      expect(await order(['email'])).toEqual(hidden.map((k) => k.replace('b@example.com', 'd@example.com')));
      expect(await order([])).toEqual(['member/email:a@example.com', 'member/email:c@example.com', 'member/email:d@example.com']);
    });

    describe('the answer room (RESPONSE_MEMORY_LIMIT)', () => {
      /** A room that records what it is asked for, and refuses it when `refuse`. */
      const room = (freeBytes: number, refuse = false): AnswerRoom & { asked: number[] } => {
        const asked: number[] = [];
        return {
          freeBytes,
          asked,
          take(bytes: number) {
            asked.push(bytes);
            if (refuse) throw new DomainError('server_busy', 'no room in the test');
          },
        };
      };
      const search = (customerId: string, node: NodeAddress, answerRoom: AnswerRoom, limit = 100_000): SearchQuery => ({
        customerId,
        key: { schemaId: node.schemaId, key: node.key },
        step: 'ONE',
        exclude: false,
        hiddenTypes: ['email'],
        unlinkedTypes: [],
        limit,
        maxNodes: 10_000,
        maxIds: 50_000,
        answerRoom,
      });
      /** m1 and m2 sharing 300 devices of 300 characters (an answer of about 100 KB), m2 with a secure e-mail too. */
      async function heavy(): Promise<string> {
        const c = await customerWith(MEMBER);
        const devices = Array.from({ length: 300 }, (_, i) => id('device', `${i}-`.padEnd(300, 'x')));
        await create(member(c, 'm1'), MEMBER, devices);
        await create(member(c, 'm2'), MEMBER, [...devices, id('email', 'secret@example.com'.padEnd(5000, 's'))]);
        return c;
      }
      const json = (x: unknown): number => Buffer.byteLength(JSON.stringify(x));

      test('when a search answer is larger than its free room, then the store asks room for about its size, without hidden IDs, and a refusal answers nothing', async () => {
        const c = await heavy();
        const refused = room(1000, true);
        await expect(store().searchWithTypes(search(c, member(c, 'm1'), refused))).rejects.toMatchObject({ code: 'server_busy' });
        expect(refused.asked).toHaveLength(1);
        const granted = room(1000);
        const answer = await store().searchWithTypes(search(c, member(c, 'm1'), granted));
        expect(answer.total).toBe(302);
        const size = json({ results: answer.results, total: answer.total });
        expect(granted.asked).toHaveLength(1);
        expect(granted.asked[0]).toBeGreaterThanOrEqual(size * 0.95);
        expect(granted.asked[0]).toBeLessThanOrEqual(size * 1.05);
        expect(refused.asked[0]).toBe(granted.asked[0]);
      });

      test('when a search answer is within its free room, or cut by its limit, then the store takes no room', async () => {
        const c = await heavy();
        const free = room(1_000_000);
        expect((await store().searchWithTypes(search(c, member(c, 'm1'), free))).total).toBe(302);
        const limited = room(10_000, true);
        expect((await store().searchWithTypes(search(c, member(c, 'm1'), limited, 5))).results).toHaveLength(5);
        expect([...free.asked, ...limited.asked].filter((b) => b > 10_000)).toEqual([]);
      });

      test('when a graph answer is larger than its free room, then the store asks room for about its size, without hidden IDs, before reading the IDs, and a refusal answers nothing', async () => {
        const c = await heavy();
        const refused = room(1000, true);
        await expect(store().graphWithTypes(query(c, fromKey(member(c, 'm1')), { hiddenTypes: ['email'], answerRoom: refused }))).rejects.toMatchObject({
          code: 'server_busy',
        });
        const granted = room(1000);
        const component = await store().graphWithTypes(query(c, fromKey(member(c, 'm1')), { hiddenTypes: ['email'], answerRoom: granted }));
        expect(component.nodes).toHaveLength(2);
        const shown = component.nodes.map((n) => ({ schema: n.schemaId, key: n.key, ids: n.ids.filter((x) => x.type !== 'email') }));
        const size = json({ nodes: shown, truncated: false, types: [] });
        expect(granted.asked).toHaveLength(1);
        expect(granted.asked[0]).toBeGreaterThanOrEqual(size * 0.95);
        expect(granted.asked[0]).toBeLessThanOrEqual(size * 1.1);
        expect(refused.asked).toEqual(granted.asked);
        const free = room(1_000_000, true);
        expect((await store().graphWithTypes(query(c, fromKey(member(c, 'm1')), { answerRoom: free }))).nodes).toHaveLength(2);
      });
    });
  });
}
