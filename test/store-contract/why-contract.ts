// The store contract of `_why` (Store.why): plain Store calls, run by every store (`describeWhyContract(name,
// openStore)`). Each store must answer the one chain compareChains picks among all the shortest: random graphs are
// checked against every shortest chain enumerated here. With maskedTypes (a caller without a token), the chain
// answered must look the same, once masked, as the smallest by what such a caller sees.
import type { NodeWrite } from '../../src/domain/ports/node-writes';
import { DomainError } from '../../src/domain/errors';
import type { IdPair, NodeAddress, SchemaRecord } from '../../src/domain/model';
import type { TestStore as Store } from '../helpers/store';
import { compareChains, type Chain, type WhyQuery, type WhyStart } from '../../src/domain/why';
import { asChecked, id, member, MEMBER, newCustomer, useStore } from './contract';
import { seeded } from '../helpers/seeded';

/** member's types, and tag, which links nothing. */
const WHY: SchemaRecord = { ...MEMBER, idTypes: [...MEMBER.idTypes, { type: 'tag', secure: false, links: false }] };
/** Nodes keyed by a secure e-mail. */
const CONTACT: SchemaRecord = {
  schemaId: 'contact',
  idTypes: [
    { type: 'email', secure: true },
    { type: 'device', secure: false },
  ],
};

const text = (x: IdPair, masked: ReadonlySet<string> = new Set()): string => `${x.type}:${masked.has(x.type) ? '(hidden)' : x.id}`;
/** A chain as the tests compare it: node keys and vias in path order; the values of `masked` types hidden, as a caller without a token sees them. */
const shown = (chain: Chain | undefined, masked: ReadonlySet<string> = new Set()): string[] | undefined =>
  chain && chain.nodes.flatMap((n, i) => [...(i > 0 ? [`via ${text(chain.vias[i - 1] as IdPair, masked)}`] : []), `${n.schemaId}/${text(n.key, masked)}`]);

/** A small deterministic generator (mulberry32), so a failing graph can be built again. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Every shortest chain from a node of `from` to a node of `to`, by breadth-first search and enumeration, and the smallest (as `masked` sees it). */
function expected(
  held: Map<string, IdPair[]>,
  from: string[],
  to: string[],
  unlinked: Set<string>,
  masked: ReadonlySet<string> = new Set(),
): Chain | undefined {
  const holders = new Map<string, string[]>();
  for (const [node, ids] of held) for (const x of ids) if (!unlinked.has(x.type)) holders.set(text(x), [...(holders.get(text(x)) ?? []), node]);
  const best: Chain[] = [];
  let frontier: Array<{ at: string; chain: Chain }> = from.map((n) => ({
    at: n,
    chain: { nodes: [{ schemaId: 'member', key: id('member_id', n) }], vias: [] },
  }));
  const seen = new Set(from);
  while (frontier.length > 0 && best.length === 0) {
    for (const f of frontier) if (to.includes(f.at)) best.push(f.chain);
    if (best.length > 0) break;
    const next: typeof frontier = [];
    const reached = new Set<string>();
    for (const f of frontier) {
      for (const x of held.get(f.at) ?? []) {
        if (unlinked.has(x.type)) continue;
        for (const n of holders.get(text(x)) ?? []) {
          if (seen.has(n)) continue;
          reached.add(n);
          next.push({ at: n, chain: { nodes: [...f.chain.nodes, { schemaId: 'member', key: id('member_id', n) }], vias: [...f.chain.vias, x] } });
        }
      }
    }
    for (const n of reached) seen.add(n);
    frontier = next;
  }
  return best.sort((a, b) => compareChains(a, b, masked))[0];
}

export function describeWhyContract(name: string, openStore: () => Promise<Store>): void {
  describe(`Store contract, why: ${name}`, () => {
    const store = useStore(openStore);

    async function customerWith(nodes: Array<[string, IdPair[]]>): Promise<string> {
      const c = newCustomer();
      await store().putSchema(c, WHY);
      for (const [key, ids] of nodes) await store().createNode(seeded(asChecked(member(c, key), WHY, ids)), ids);
      return c;
    }

    /** Many nodes at once, in writes of 500 (a `_bulk` batch at most). */
    async function createMany(c: string, nodes: Array<[NodeAddress, IdPair[]]>): Promise<void> {
      const writes = nodes.map(([node, ids]): NodeWrite => ({ kind: 'create', node: seeded(node), ids }));
      for (let i = 0; i < writes.length; i += 500)
        expect(await store().applyNodeWrites(writes.slice(i, i + 500))).toEqual(writes.slice(i, i + 500).map(() => undefined));
    }

    const byKey = (node: NodeAddress): WhyStart => ({ key: { schemaId: node.schemaId, key: node.key } });
    const query = (customerId: string, from: WhyStart, to: WhyStart, overrides: Partial<WhyQuery> = {}): WhyQuery => ({
      customerId,
      from,
      to,
      unlinkedTypes: ['tag'],
      maxNodes: 10_000,
      maxIds: 50_000,
      ...overrides,
    });

    test('when several shortest chains exist, then the smallest by vias, then by node keys', async () => {
      const c = await customerWith([
        ['p', [id('cookie', 'k2'), id('cookie', 'k1')]],
        ['q2', [id('cookie', 'k1'), id('cookie', 'k3')]],
        ['q0', [id('cookie', 'k2'), id('cookie', 'k3')]],
        ['q1', [id('cookie', 'k1'), id('cookie', 'k3')]],
        ['r', [id('cookie', 'k3')]],
      ]);
      const found = await store().whyWithTypes(query(c, byKey(member(c, 'p')), byKey(member(c, 'r'))));
      expect(found.missing).toBeUndefined();
      expect(shown(found.missing === undefined ? found.chain : undefined)).toEqual([
        'member/member_id:p',
        'via cookie:k1',
        'member/member_id:q1',
        'via cookie:k3',
        'member/member_id:r',
      ]);
    });

    // Seven nodes in a line, each sharing 5 cookies with the next: 5^6 = 15,625 equal shortest chains, more than a
    // store may enumerate. Each hop's smallest cookie is the last written: the first 1,000 chains Neo4j's
    // allShortestPaths gives (in an order of its own) do not hold the smallest here.
    test('when more than 1,000 shortest chains tie, then still the smallest, both ways and from a where', async () => {
      const hop = (i: number) => ['e', 'd', 'c', 'b', 'a'].map((v) => id('cookie', `h${i}${v}`));
      const c = await customerWith(
        Array.from({ length: 7 }, (_, i): [string, IdPair[]] => [`n${i}`, [...(i > 0 ? hop(i - 1) : []), ...(i < 6 ? hop(i) : [])]]),
      );
      const nodes = (keys: number[]) => keys.map((k) => `member/member_id:n${k}`);
      const chain = (keys: number[], hops: number[]) => nodes(keys).flatMap((n, i) => (i === 0 ? [n] : [`via cookie:h${hops[i - 1] as number}a`, n]));
      const forward = await store().whyWithTypes(query(c, byKey(member(c, 'n0')), byKey(member(c, 'n6'))));
      expect(shown(forward.missing === undefined ? forward.chain : undefined)).toEqual(chain([0, 1, 2, 3, 4, 5, 6], [0, 1, 2, 3, 4, 5]));
      const backward = await store().whyWithTypes(query(c, byKey(member(c, 'n6')), { where: { schemaId: 'member', id: id('member_id', 'n0') } }));
      expect(shown(backward.missing === undefined ? backward.chain : undefined)).toEqual(chain([6, 5, 4, 3, 2, 1, 0], [5, 4, 3, 2, 1, 0]));
    });

    // U+FFFD comes before U+1F600 in code-point order, and after it in UTF-16 code units (0xFFFD > 0xD83D): a store
    // that compared strings as UTF-16 (JavaScript's <, Java's compareTo) would answer the other chains.
    test('when equal chains differ past U+FFFF, then the smallest in code-point order, of vias and of node keys', async () => {
      const c = await customerWith([
        ['p', [id('cookie', 'k\u{1F600}'), id('cookie', 'k\uFFFD')]],
        ['q\u{1F600}', [id('cookie', 'k\u{1F600}'), id('device', 'd')]],
        ['q\uFFFD', [id('cookie', 'k\uFFFD'), id('device', 'd')]],
        ['r\u{1F600}', [id('device', 'd'), id('device', 'e')]],
        ['r\uFFFD', [id('device', 'd'), id('device', 'e')]],
        ['s', [id('device', 'e')]],
      ]);
      const viaFound = await store().whyWithTypes(query(c, byKey(member(c, 'p')), byKey(member(c, 'r\uFFFD'))));
      expect(shown(viaFound.missing === undefined ? viaFound.chain : undefined)).toEqual([
        'member/member_id:p',
        'via cookie:k\uFFFD',
        'member/member_id:q\uFFFD',
        'via device:d',
        'member/member_id:r\uFFFD',
      ]);
      const nodeFound = await store().whyWithTypes(query(c, { where: { id: id('device', 'd') } }, byKey(member(c, 's'))));
      expect(shown(nodeFound.missing === undefined ? nodeFound.chain : undefined)).toEqual(['member/member_id:r\uFFFD', 'via device:e', 'member/member_id:s']);
    });

    test('when a start holds no node, then which one is answered', async () => {
      const c = await customerWith([['a', [id('device', 'd1')]]]);
      expect(await store().whyWithTypes(query(c, byKey(member(c, 'nobody')), byKey(member(c, 'a'))))).toEqual({ missing: 'from' });
      expect(await store().whyWithTypes(query(c, byKey(member(c, 'a')), { where: { id: id('device', 'none') } }))).toEqual({ missing: 'to' });
    });

    test('when the nodes share only an unlinked ID, then no chain; when it is not unlinked, one hop', async () => {
      const c = await customerWith([
        ['a', [id('tag', 't')]],
        ['b', [id('tag', 't')]],
      ]);
      expect(await store().whyWithTypes(query(c, byKey(member(c, 'a')), byKey(member(c, 'b'))))).toEqual({ chain: undefined });
      const linked = await store().whyWithTypes(query(c, byKey(member(c, 'a')), byKey(member(c, 'b')), { unlinkedTypes: [] }));
      expect(shown(linked.missing === undefined ? linked.chain : undefined)).toEqual(['member/member_id:a', 'via tag:t', 'member/member_id:b']);
    });

    test('when a start has more nodes than maxNodes, then component_too_large', async () => {
      const c = await customerWith([
        ['a', [id('device', 'hub')]],
        ['b', [id('device', 'hub')]],
        ['c', [id('device', 'hub')]],
        ['x', [id('cookie', 'x')]],
      ]);
      await expect(store().whyWithTypes(query(c, { where: { id: id('device', 'hub') } }, byKey(member(c, 'x')), { maxNodes: 2 }))).rejects.toThrow(DomainError);
      await expect(store().whyWithTypes(query(c, { where: { id: id('device', 'hub') } }, byKey(member(c, 'x')), { maxNodes: 2 }))).rejects.toMatchObject({
        code: 'component_too_large',
      });
    });

    // A line of 12 nodes, each sharing a cookie with the next: the far ends need the search to read the whole line,
    // neighbours only a few nodes around them.
    const line = (): Array<[string, IdPair[]]> =>
      Array.from({ length: 12 }, (_, i): [string, IdPair[]] => [`n${i}`, [id('cookie', `c${i}`), id('cookie', `c${i + 1}`)]]);

    test('when the chain needs more nodes read than maxNodes, then component_too_large; neighbours in the same person are still answered', async () => {
      const c = await customerWith(line());
      const far = store().whyWithTypes(query(c, byKey(member(c, 'n0')), byKey(member(c, 'n11')), { maxNodes: 5 }));
      await expect(far).rejects.toMatchObject({ code: 'component_too_large' });
      const near = await store().whyWithTypes(query(c, byKey(member(c, 'n4')), byKey(member(c, 'n5')), { maxNodes: 5 }));
      expect(shown(near.missing === undefined ? near.chain : undefined)).toEqual(['member/member_id:n4', 'via cookie:c5', 'member/member_id:n5']);
      const whole = await store().whyWithTypes(query(c, byKey(member(c, 'n0')), byKey(member(c, 'n11'))));
      expect(whole.missing === undefined ? whole.chain?.vias.length : undefined).toBe(11);
    });

    test('when the chain needs more IDs read than maxIds, then component_too_large', async () => {
      const c = await customerWith(line());
      await expect(store().whyWithTypes(query(c, byKey(member(c, 'n0')), byKey(member(c, 'n11')), { maxIds: 6 }))).rejects.toMatchObject({
        code: 'component_too_large',
      });
    });

    test('when a start is an ID held by several nodes, then the chain starts at the holder nearest the other start', async () => {
      const nodes = line().map(([key, ids]): [string, IdPair[]] => [key, key === 'n9' ? [...ids, id('device', 'shared')] : ids]);
      const c = await customerWith([...nodes, ['m', [id('device', 'shared')]]]);
      const found = await store().whyWithTypes(query(c, { where: { id: id('device', 'shared') } }, byKey(member(c, 'n11'))));
      expect(shown(found.missing === undefined ? found.chain : undefined)).toEqual([
        'member/member_id:n9',
        'via cookie:c10',
        'member/member_id:n10',
        'via cookie:c11',
        'member/member_id:n11',
      ]);
    });

    // Two chains from s to where device z: s -email- m -email- tX, and s -email- m' -email- tY, every via an e-mail
    // and the middle nodes keyed by e-mails. A caller who sees no e-mail tells the chains apart by tX and tY alone,
    // so tX's, whatever the hidden values; with the values seen, the smaller e-mail of s decides.
    test('when the vias and keys that differ are masked, then the visible node keys decide, whatever the hidden values', async () => {
      const visible = async (values: { e1: string; e2: string; kA: string; kB: string }) => {
        const c = newCustomer();
        await store().putSchema(c, WHY);
        await store().putSchema(c, CONTACT);
        const contact = (key: string): NodeAddress => ({ customerId: c, schemaId: 'contact', key: id('email', key) });
        const nodes: Array<[NodeAddress, IdPair[]]> = [
          [asChecked(member(c, 's'), WHY, [id('email', 'x')]), [id('email', values.e1), id('email', values.e2)]],
          [asChecked(contact(values.kA), CONTACT, [id('email', 'x')]), [id('email', values.e1), id('email', 'e3')]],
          [asChecked(contact(values.kB), CONTACT, [id('email', 'x')]), [id('email', values.e2), id('email', 'e4')]],
          [asChecked(member(c, 'tX'), WHY, [id('email', 'x'), id('device', 'z')]), [id('email', 'e3'), id('device', 'z')]],
          [asChecked(member(c, 'tY'), WHY, [id('email', 'x'), id('device', 'z')]), [id('email', 'e4'), id('device', 'z')]],
        ];
        for (const [node, ids] of nodes) await store().createNode(seeded(node), ids);
        const ask = (maskedTypes: string[]) => store().whyWithTypes(query(c, byKey(member(c, 's')), { where: { id: id('device', 'z') } }, { maskedTypes }));
        const masked = await ask(['email']);
        const seen = await ask([]);
        return {
          masked: shown(masked.missing === undefined ? masked.chain : undefined, new Set(['email'])),
          seen: shown(seen.missing === undefined ? seen.chain : undefined),
        };
      };
      const one = await visible({ e1: 'a@example.org', e2: 'b@example.org', kA: 'ka@example.org', kB: 'kb@example.org' });
      const swapped = await visible({ e1: 'b@example.org', e2: 'a@example.org', kA: 'kb@example.org', kB: 'ka@example.org' });
      const tX = ['member/member_id:s', 'via email:(hidden)', 'contact/email:(hidden)', 'via email:(hidden)', 'member/member_id:tX'];
      expect(one.masked).toEqual(tX);
      expect(swapped.masked).toEqual(tX);
      // With the values seen, the rule is the smallest via: the chain swaps with the values.
      expect(one.seen).toEqual(['member/member_id:s', 'via email:a@example.org', 'contact/email:ka@example.org', 'via email:e3', 'member/member_id:tX']);
      expect(swapped.seen).toEqual(['member/member_id:s', 'via email:a@example.org', 'contact/email:ka@example.org', 'via email:e4', 'member/member_id:tY']);
    });

    // A hub: 1,100 nodes each hold one shared device and a cookie of their own, which the hub holds too: 1,100 equal
    // shortest chains from the device to the hub, more than Neo4j's statement reads. The smallest cookie is the last
    // node's; with cookies masked, the smallest node key decides, which holds the largest cookie.
    test('when 1,100 chains through a hub tie, then the smallest by vias, or, with the vias masked, by node keys', async () => {
      const c = newCustomer();
      await store().putSchema(c, WHY);
      const count = 1100;
      const key = (i: number) => `f${String(i).padStart(4, '0')}`;
      const own = (i: number) => id('cookie', `own-${String(count - 1 - i).padStart(4, '0')}`);
      await createMany(
        c,
        Array.from({ length: count }, (_, i): [NodeAddress, IdPair[]] => [
          asChecked(member(c, key(i)), WHY, [id('device', 'fan'), own(i)]),
          [id('device', 'fan'), own(i)],
        ]),
      );
      const hubIds = Array.from({ length: count }, (_, i) => own(i));
      await store().createNode(seeded(asChecked(member(c, 'hub'), WHY, hubIds)), hubIds);
      const ask = (maskedTypes: string[]) => store().whyWithTypes(query(c, { where: { id: id('device', 'fan') } }, byKey(member(c, 'hub')), { maskedTypes }));
      const seen = await ask([]);
      expect(shown(seen.missing === undefined ? seen.chain : undefined)).toEqual([
        `member/member_id:${key(count - 1)}`,
        'via cookie:own-0000',
        'member/member_id:hub',
      ]);
      const masked = await ask(['cookie']);
      expect(shown(masked.missing === undefined ? masked.chain : undefined, new Set(['cookie']))).toEqual([
        'member/member_id:f0000',
        'via cookie:(hidden)',
        'member/member_id:hub',
      ]);
    });

    test('when random graphs are asked, then each answer is the smallest of every shortest chain, masked or not', async () => {
      for (let seed = 1; seed <= 12; seed++) {
        const next = random(seed);
        const values = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
        const nodes: Array<[string, IdPair[]]> = [];
        for (let n = 0; n < 14; n++) {
          const ids = new Map<string, IdPair>();
          const count = 1 + Math.floor(next() * 3);
          for (let i = 0; i < count; i++) {
            const x = id(next() < 0.15 ? 'tag' : next() < 0.5 ? 'cookie' : 'device', values[Math.floor(next() * values.length)] as string);
            ids.set(text(x), x);
          }
          nodes.push([`n${String(n).padStart(2, '0')}`, [...ids.values()]]);
        }
        const c = await customerWith(nodes);
        const held = new Map(nodes.map(([key, ids]) => [key, [...ids, id('member_id', key)]]));
        for (let pair = 0; pair < 6; pair++) {
          const from = nodes[Math.floor(next() * nodes.length)]?.[0] as string;
          const to = nodes[Math.floor(next() * nodes.length)]?.[0] as string;
          const found = await store().whyWithTypes(query(c, byKey(member(c, from)), byKey(member(c, to))));
          expect({ seed, from, to, chain: shown(found.missing === undefined ? found.chain : undefined) }).toEqual({
            seed,
            from,
            to,
            chain: shown(expected(held, [from], [to], new Set(['tag']))),
          });
          // Cookies masked: the answer looks as the smallest by what is seen (several chains may, and any of them will do).
          const cookies = new Set(['cookie']);
          const masked = await store().whyWithTypes(query(c, byKey(member(c, from)), byKey(member(c, to)), { maskedTypes: ['cookie'] }));
          expect({ seed, from, to, masked: shown(masked.missing === undefined ? masked.chain : undefined, cookies) }).toEqual({
            seed,
            from,
            to,
            masked: shown(expected(held, [from], [to], new Set(['tag']), cookies), cookies),
          });
        }
      }
    });
  });
}
