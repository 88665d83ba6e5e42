// The change feed's half of the store contract (docs/changes-and-export.md), as plain store calls: changesAfter and
// waitForChange. Every store runs it (`describeChangesContract(name, openStore)`); each test works on customers of
// its own, since a shared store (Neo4j) keeps what other tests wrote. Positions are the store's own numbers: the
// contract asserts only how they order and what they hold.
import type { HistoryEntry } from '../../src/domain/model';
import { CHANGE_PAGE_CHARS } from '../../src/domain/ports/changes';
import { codePointLength, entryDocument } from '../../src/store/history';
import type { TestStore as Store } from '../helpers/store';
import { seeded } from '../helpers/seeded';
import { id, member, MEMBER, newCustomer, useStore } from './contract';

const keyOf = (e: HistoryEntry) => e.key.id;

export function describeChangesContract(name: string, openStore: () => Promise<Store>): void {
  describe(`Store contract, change feed: ${name}`, () => {
    const store = useStore(openStore);

    async function customer(): Promise<string> {
      const c = newCustomer();
      await store().putSchema(c, MEMBER);
      return c;
    }
    /** Every change of the customer, read in pages of `limit`. */
    async function all(c: string, limit = 1000) {
      const changes = [];
      for (let after = 0; ;) {
        const read = await store().changesAfter(c, after, limit);
        changes.push(...read.changes);
        const last = read.changes.at(-1);
        if (!last || read.changes.length < limit) return changes;
        after = last.seq;
      }
    }

    test('the feed key is 32 random bytes as hex, the same on every call', async () => {
      const key = await store().feedKey();
      expect(key).toMatch(/^[0-9a-f]{64}$/);
      expect(await Promise.all([store().feedKey(), store().feedKey()])).toEqual([key, key]);
    });

    test('when a customer has written nothing, then no change, and a head from which every later change comes', async () => {
      const c = await customer();
      const empty = await store().changesAfter(c, 0, 10);
      expect(empty.changes).toEqual([]);
      expect(empty.prunedThrough).toBe(0);
      await store().createNode(seeded(member(c, 'm1')), []);
      const later = await store().changesAfter(c, empty.head, 10);
      expect(later.changes.map((ch) => keyOf(ch.entry))).toEqual(['m1']);
      expect(later.head).toBeGreaterThanOrEqual(later.changes[0]?.seq ?? Infinity);
    });

    test("when writes of several customers interleave, then each customer's feed holds its own, in the order they were answered, with rising positions", async () => {
      const [a, b] = [await customer(), await customer()];
      for (let i = 0; i < 5; i += 1) {
        await store().createNode(seeded(member(a, `a${i}`)), [id('device', `da${i}`)]);
        await store().createNode(seeded(member(b, `b${i}`)), []);
      }
      const ofA = await all(a, 2);
      expect(ofA.map((ch) => keyOf(ch.entry))).toEqual(['a0', 'a1', 'a2', 'a3', 'a4']);
      const seqs = ofA.map((ch) => ch.seq);
      expect([...seqs].sort((x, y) => x - y)).toEqual(seqs);
      expect(new Set(seqs).size).toBe(seqs.length);
      expect((await all(b)).map((ch) => keyOf(ch.entry))).toEqual(['b0', 'b1', 'b2', 'b3', 'b4']);
      // A page starts after the position given.
      expect((await store().changesAfter(a, seqs[2] as number, 10)).changes.map((ch) => keyOf(ch.entry))).toEqual(['a3', 'a4']);
    });

    test('when many writes race, then the feed holds each once, and each node its history in order', async () => {
      const c = await customer();
      const keys = Array.from({ length: 6 }, (_, i) => `r${i}`);
      await Promise.all(keys.map((k) => store().createNode(seeded(member(c, k)), [])));
      await Promise.all(keys.flatMap((k) => Array.from({ length: 5 }, (_, j) => store().insertIds(seeded(member(c, k)), [id('device', `${k}-${j}`)]))));
      const changes = await all(c, 4);
      expect(changes).toHaveLength(6 * 6);
      for (const k of keys) {
        const history = (await store().nodeHistory(c, 'member', id('member_id', k), 0, 100)).items;
        expect(changes.filter((ch) => keyOf(ch.entry) === k).map((ch) => ch.entry)).toEqual([...history].reverse());
      }
    });

    test('when a write is refused, then it leaves no change', async () => {
      const c = await customer();
      await store().createNode(seeded(member(c, 'm1')), []);
      await expect(store().createNode(seeded(member(c, 'm1')), [])).rejects.toMatchObject({ code: 'node_exists' });
      expect((await all(c)).map((ch) => ch.entry.op)).toEqual(['create']);
    });

    test('when an ID is erased, then its erase entries carry the positions of the entries that named it, per node key', async () => {
      const c = await customer();
      await store().createNode(seeded(member(c, 'ann')), [id('email', 'ann@example.com')]);
      await store().createNode(seeded(member(c, 'bob')), [id('email', 'ann@example.com')]);
      await store().removeId(seeded(member(c, 'bob')), id('email', 'ann@example.com'));
      await store().createNode(seeded(member(c, 'cid')), [id('device', 'other')]);
      const before = await all(c);
      const audit = { requestId: 'r', actor: 'admin' };
      await store().erase({ customerId: c, id: id('email', 'ann@example.com'), scope: 'id', unlinkedTypes: [], maxNodes: 100, maxIds: 100, audit });
      const after = await all(c);
      const erases = after.slice(before.length);
      const seqOf = (k: string) => before.filter((ch) => keyOf(ch.entry) === k).map((ch) => ch.seq);
      expect(erases.map((ch) => [ch.entry.op, keyOf(ch.entry), ch.redacts])).toEqual([
        ['erase', 'ann', seqOf('ann')],
        ['erase', 'bob', seqOf('bob')],
      ]);
      expect(JSON.stringify(after)).not.toContain('ann@example.com');
    });

    test('when a call waits past the newest position, then a commit wakes it, and an aborted wait ends', async () => {
      const c = await customer();
      const { head } = await store().changesAfter(c, 0, 1);
      const controller = new AbortController();
      const woken = store().waitForChange(c, head, controller.signal);
      await store().createNode(seeded(member(c, 'm1')), []);
      await woken;
      expect((await store().changesAfter(c, head, 10)).changes.map((ch) => keyOf(ch.entry))).toEqual(['m1']);
      const { head: now } = await store().changesAfter(c, 0, 1);
      const stopped = new AbortController();
      const waiting = store().waitForChange(c, now, stopped.signal);
      stopped.abort();
      await expect(waiting).resolves.toBeUndefined();
      controller.abort();
    });

    test('when entries are large, then a page ends before the entry that would pass CHANGE_PAGE_CHARS, holds one that passes them alone, says it was cut, and the pages hold every entry once, in order', async () => {
      const c = await customer();
      const long = (n: number, i: number) => id('cookie', `${n}-${i}-${'x'.repeat(1000)}`);
      // About 200,000 characters an entry; one of about 1,100,000, past CHANGE_PAGE_CHARS alone.
      const sizes = [200, 200, 200, 200, 200, 200, 1050, 200, 200, 200];
      for (const [n, count] of sizes.entries())
        await store().createNode(
          seeded(member(c, `k${n}`)),
          Array.from({ length: count }, (_, i) => long(n, i)),
        );
      const chars = (e: HistoryEntry) => codePointLength(entryDocument(e));

      const pages: Array<{ keys: string[]; chars: number[]; cut: boolean }> = [];
      for (let after = 0; ;) {
        const read = await store().changesAfter(c, after, 1000);
        if (read.changes.length === 0) break;
        pages.push({ keys: read.changes.map((ch) => keyOf(ch.entry) ?? ''), chars: read.changes.map((ch) => chars(ch.entry)), cut: read.cut });
        after = read.changes.at(-1)?.seq ?? after;
      }
      expect(pages.flatMap((p) => p.keys)).toEqual(sizes.map((_, n) => `k${n}`));
      const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
      pages.forEach((page, i) => {
        if (page.keys.length > 1) expect(sum(page.chars)).toBeLessThanOrEqual(CHANGE_PAGE_CHARS);
        const next = pages[i + 1];
        // Cut: the next page's first entry would have passed the budget; not cut: it is the last page.
        if (next) expect([page.cut, sum(page.chars) + (next.chars[0] ?? 0) > CHANGE_PAGE_CHARS]).toEqual([true, true]);
        else expect(page.cut).toBe(false);
      });
      expect(pages.find((p) => p.keys.includes('k6'))?.keys).toEqual(['k6']);
      // `limit` before the budget: not cut.
      await expect(store().changesAfter(c, 0, 2)).resolves.toMatchObject({
        cut: false,
        changes: [{ entry: { key: { id: 'k0' } } }, { entry: { key: { id: 'k1' } } }],
      });
    });
  });
}
