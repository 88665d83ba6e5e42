// The import's half of the store contract (docs/changes-and-export.md), as plain store calls: beginImport,
// importBatch, finishImport, abandonImport and unfinishedImports, read back through openSnapshot. Every store runs it
// (`describeImportContract(name, openStore)`); each test works on customers of its own.
import type { HistoryEntry } from '../../src/domain/model';
import type { ImportBatch } from '../../src/domain/ports/imports';
import type { Snapshot, SnapshotPart } from '../../src/domain/ports/snapshots';
import type { TestStore as Store } from '../helpers/store';
import { buildDraft, buildMessage } from '../helpers/deliveries';
import { seeded } from '../helpers/seeded';
import { compareCodePoints } from '../../src/domain/code-point-order';
import { id, member, MEMBER, newCustomer, SHOP, shop, useStore } from './contract';
import { eraseRequest } from './history-contract';

/** Every part of a snapshot, by kind, the pages of one kind joined; the snapshot closed. */
async function read(open: Promise<Snapshot>) {
  const snapshot = await open;
  const parts: SnapshotPart[] = [];
  try {
    for await (const part of snapshot.parts) parts.push(part);
  } finally {
    await snapshot.close();
  }
  const all = <K extends SnapshotPart['kind']>(kind: K) => parts.filter((p): p is Extract<SnapshotPart, { kind: K }> => p.kind === kind);
  return {
    position: snapshot.position,
    settings: all('settings').map((p) => p.settings),
    blocklist: all('blocklist').map((p) => p.rules),
    schemas: all('schemas').flatMap((p) => p.schemas),
    nodes: all('nodes').flatMap((p) => p.nodes),
    separations: all('separations').flatMap((p) => p.separations),
    deliveryIds: all('deliveryIds').map((p) => p.given),
    deliveries: all('deliveries').flatMap((p) => p.deliveries),
    impressions: all('impressions').flatMap((p) => p.tallies),
    history: all('history').flatMap((p) => p.keys),
  };
}
type Read = Awaited<ReturnType<typeof read>>;

/** What a snapshot read holds, as batches of an import: `cut` records at most in each. */
function batchesOf(r: Read, cut: number): ImportBatch[] {
  const batches: ImportBatch[] = [];
  const empty = (): ImportBatch => ({ schemas: [], nodes: [], separations: [], deliveries: [], impressions: [], history: [] });
  let batch = empty();
  let size = 0;
  const add = (put: (b: ImportBatch) => void) => {
    put(batch);
    size += 1;
    if (size === cut) {
      batches.push(batch);
      batch = empty();
      size = 0;
    }
  };
  for (const s of r.schemas) add((b) => b.schemas.push(s));
  for (const n of r.nodes) add((b) => b.nodes.push(n));
  for (const s of r.separations) add((b) => b.separations.push(s));
  for (const given of r.deliveryIds) add((b) => (b.deliveryIds = given));
  for (const d of r.deliveries) add((b) => b.deliveries.push(d));
  for (const t of r.impressions) add((b) => b.impressions.push(t));
  for (const h of r.history) add((b) => b.history.push(h));
  batches.push(batch);
  return batches;
}

export function describeImportContract(name: string, openStore: () => Promise<Store>): void {
  describe(`Store contract, imports: ${name}`, () => {
    const store = useStore(openStore);
    const AUDIT = { requestId: 'req-src', actor: 'token:t-src' };

    /** A customer with two schemas, nodes, a ban, a rekeying, a deleted node, an erased key and value, and deliveries. */
    async function source(): Promise<string> {
      const c = newCustomer();
      await store().putSchema(c, MEMBER);
      await store().putSchema(c, SHOP);
      const withAudit = <T extends object>(n: T) => ({ ...n, audit: AUDIT });
      await store().createNode(seeded(withAudit(member(c, 'ann'))), [id('device', 'd1'), id('email', 'ann@example.com'), id('cookie', 'k1')]);
      await store().createNode(seeded(withAudit(member(c, '\u{10000}'))), [id('device', '\uE000')]);
      await store().createNode(seeded(withAudit(member(c, 'bob'))), [id('device', 'd2')]);
      await store().createNode(seeded(withAudit(shop(c, 's1'))), [id('device', 'd1')]);
      await store().createNode(seeded(withAudit(member(c, 'gone'))), [id('cookie', 'k9')]);
      await store().deleteNode(seeded(withAudit(member(c, 'gone'))));
      await store().createNode(seeded(withAudit(member(c, 'old'))), [id('cookie', 'k3')]);
      await store().rekey(seeded(withAudit(member(c, 'old'))), 'new');
      await store().createNode(seeded(withAudit(member(c, 'eve'))), [id('cookie', 'k4')]);
      await store().erase(eraseRequest(c, id('member_id', 'eve'), 'id'));
      await store().erase(eraseRequest(c, id('cookie', 'k1'), 'id'));
      await store().separate({
        customerId: c,
        a: { schemaId: 'member', key: id('member_id', 'bob') },
        b: { schemaId: 'member', key: id('member_id', 'ann') },
        removeSharedFrom: 'none',
        audit: AUDIT,
      });
      await store().createDelivery(c, buildDraft({ name: 'first' }));
      await store().createDelivery(c, buildDraft({ name: 'second', message: [buildMessage(), buildMessage({ title: 'two' })] }));
      const third = await store().createDelivery(c, buildDraft({ name: 'third' }));
      await store().deleteDelivery(c, third.deliveryId);
      return c;
    }

    /** Imports `from`'s snapshot into a new customer, in batches of `cut` records; answers the new customer. */
    async function imported(from: Read, cut: number): Promise<string> {
      const c = newCustomer();
      await store().beginImport(c);
      for (const batch of batchesOf(from, cut)) await expect(store().importBatch(c, batch)).resolves.toBeUndefined();
      await store().finishImport(c, { requireToken: true, timezone: 'Asia/Tokyo' }, [
        { type: 'cookie', values: ['blocked'], ignoreCase: false, confusables: false },
      ]);
      return c;
    }

    /** A read without what differs between two customers' snapshots: the position, and the settings and rules, set apart. */
    const comparable = ({ position: _p, settings: _s, blocklist: _b, ...rest }: Read) => rest;

    test('when a snapshot is imported into an empty customer, in one batch or in many, then the new customer snapshots exactly as the source does', async () => {
      const read_ = await read(store().openSnapshot(await source(), { history: true }));
      const [first, second] = read_.deliveries;
      if (!first || !second) throw new Error('the source has two deliveries');
      // What caps counted, by ID then delivery, days in order.
      const from = {
        ...read_,
        impressions: [
          {
            deliveryId: first.deliveryId,
            id: id('device', 'd1'),
            days: [
              { day: '2026-03-01', count: 2 },
              { day: '2026-03-02', count: 1 },
            ],
          },
          { deliveryId: second.deliveryId, id: id('device', 'd1'), days: [{ day: '2026-03-01', count: 1 }] },
          { deliveryId: first.deliveryId, id: id('member_id', 'bob'), days: [{ day: '2026-03-05', count: 4 }] },
        ],
      };
      expect(from.nodes.map((n) => n.key.id)).toEqual(['ann', 'bob', 'new', '\u{10000}', 's1']);
      expect(from.history.some((h) => h.key.id === null)).toBe(true);
      for (const cut of [1000, 3]) {
        const c = await imported(from, cut);
        const to = await read(store().openSnapshot(c, { history: true }));
        expect(comparable(to)).toEqual(comparable(from));
        expect(to.settings).toEqual([{ requireToken: true, timezone: 'Asia/Tokyo' }]);
        expect(to.blocklist).toEqual([[{ type: 'cookie', values: ['blocked'], ignoreCase: false, confusables: false }]]);
        await expect(store().unfinishedImports(0)).resolves.not.toContain(c);
      }
    });

    test('when an imported customer is written to, then its nodes link, its history goes on after the imported entries, and its next delivery id follows the ones it was given', async () => {
      const from = await read(store().openSnapshot(await source(), { history: true }));
      const c = await imported(from, 1000);
      const imported_ = await store().changesAfter(c, 0, 1000);
      const entries: HistoryEntry[] = from.history.flatMap((h) => h.entries);
      expect(imported_.changes.map((ch) => ch.entry)).toEqual(entries);
      await store().createNode(seeded(member(c, 'zed')), [id('device', 'd2')]);
      const after = await store().changesAfter(c, imported_.changes.at(-1)?.seq ?? 0, 10);
      expect(after.changes.map((ch) => ch.entry.key.id)).toEqual(['zed']);
      await expect(store().getNodeIds(member(c, 'zed'))).resolves.toEqual([id('device', 'd2'), id('member_id', 'zed')]);
      const next = await store().createDelivery(c, buildDraft({ name: 'fourth' }));
      expect(next.deliveryId).toBe((from.deliveryIds[0]?.delivery ?? 0) + 1);
    });

    test('customerIds lists every customer that holds anything, in code-point order: one whose deliveries were all deleted too, since the ids it was given stay given', async () => {
      const c = await source();
      const gone = newCustomer();
      const made = await store().createDelivery(gone, buildDraft({ name: 'only' }));
      await store().deleteDelivery(gone, made.deliveryId);
      const listed = await store().customerIds();
      expect(listed).toEqual(expect.arrayContaining([c, gone]));
      expect(listed).toEqual([...listed].sort(compareCodePoints));
    });

    test('when a customer has a schema, a node or a delivery, then beginImport is customer_not_empty; settings alone do not count; a second begin is import_in_progress', async () => {
      const withSchema = newCustomer();
      await store().putSchema(withSchema, MEMBER);
      await expect(store().beginImport(withSchema)).rejects.toMatchObject({ code: 'customer_not_empty' });
      const withDelivery = newCustomer();
      await store().createDelivery(withDelivery, buildDraft());
      await expect(store().beginImport(withDelivery)).rejects.toMatchObject({ code: 'customer_not_empty' });
      const withSettings = newCustomer();
      await store().putSettings(withSettings, { requireToken: true, timezone: 'UTC' });
      await store().beginImport(withSettings);
      await expect(store().beginImport(withSettings)).rejects.toMatchObject({ code: 'import_in_progress' });
      await expect(store().unfinishedImports(0)).resolves.toContain(withSettings);
      // Just begun: not what an interrupted process left.
      await expect(store().unfinishedImports(60_000)).resolves.not.toContain(withSettings);
      await store().abandonImport(withSettings);
    });

    test('when a batch names a ban of a node the import did not write, then it is refused with the ban named and none of the batch is written', async () => {
      const c = newCustomer();
      await store().beginImport(c);
      await store().importBatch(c, { schemas: [MEMBER], nodes: [], separations: [], deliveries: [], impressions: [], history: [] });
      const refusal = await store().importBatch(c, {
        schemas: [],
        nodes: [
          { schemaId: 'member', key: id('member_id', 'ann'), ids: [] },
          { schemaId: 'member', key: id('member_id', 'bob'), ids: [] },
        ],
        separations: [
          { a: { schemaId: 'member', key: id('member_id', 'ann') }, b: { schemaId: 'member', key: id('member_id', 'bob') } },
          { a: { schemaId: 'member', key: id('member_id', 'ann') }, b: { schemaId: 'member', key: id('member_id', 'nobody') } },
        ],
        deliveries: [],
        impressions: [],
        history: [],
      });
      expect(refusal).toEqual({ separation: 1 });
      await expect(store().getNodeIds(member(c, 'ann'))).resolves.toBeUndefined();
      await store().abandonImport(c);
    });

    test('when an import is abandoned, then everything it wrote is gone, the settings and rules the customer had stay, and it is no longer marked', async () => {
      const from = await read(store().openSnapshot(await source(), { history: true }));
      const c = newCustomer();
      await store().putSettings(c, { requireToken: true, timezone: 'Europe/Paris' });
      await store().beginImport(c);
      for (const batch of batchesOf(from, 4)) await store().importBatch(c, batch);
      await expect(store().unfinishedImports(0)).resolves.toContain(c);
      await store().abandonImport(c);
      await expect(store().unfinishedImports(0)).resolves.not.toContain(c);
      const left = await read(store().openSnapshot(c, { history: true }));
      expect(comparable(left)).toEqual({
        schemas: [],
        nodes: [],
        separations: [],
        // Ids once given stay given: none is given out twice to one customer.
        deliveryIds: from.deliveryIds,
        deliveries: [],
        impressions: [],
        history: [],
      });
      expect(left.settings).toEqual([{ requireToken: true, timezone: 'Europe/Paris' }]);
      await expect(store().changesAfter(c, 0, 10)).resolves.toMatchObject({ changes: [] });
      // Empty again: it may be imported anew.
      await store().beginImport(c);
      await store().abandonImport(c);
    });

    test('when an import finished before an abandon of it came, then the abandon changes nothing', async () => {
      const from = await read(store().openSnapshot(await source(), { history: true }));
      const c = await imported(from, 1000);
      const before = await read(store().openSnapshot(c, { history: true }));
      await store().abandonImport(c);
      await expect(read(store().openSnapshot(c, { history: true }))).resolves.toEqual(before);
    });

    // Retention runs beside imports, and an export's entries keep their times: some may be past it.
    test('when an import is under way, then the feed shows none of its entries, wakes no waiting call for them, and a cursor given meanwhile reads them all once it finishes', async () => {
      const from = await read(store().openSnapshot(await source(), { history: true }));
      const c = newCustomer();
      await store().beginImport(c);
      const [first, ...rest] = batchesOf(from, 3);
      await expect(store().importBatch(c, first as ImportBatch)).resolves.toBeUndefined();
      const before = await store().changesAfter(c, 0, 1000);
      expect(before.changes).toEqual([]);
      const given = Math.max(before.head, before.prunedThrough);
      const waiting = new AbortController();
      let woken = false;
      const wait = store()
        .waitForChange(c, given, waiting.signal)
        .then(() => (woken = !waiting.signal.aborted));
      for (const batch of rest) await expect(store().importBatch(c, batch)).resolves.toBeUndefined();
      expect((await store().changesAfter(c, given, 1000)).changes).toEqual([]);
      expect(await Promise.race([wait.then(() => woken), new Promise((resolve) => setImmediate(resolve, 'waiting'))])).toBe('waiting');
      await store().finishImport(c, { requireToken: false, timezone: 'UTC' }, []);
      await wait;
      expect(woken).toBe(true);
      const after = await store().changesAfter(c, given, 1000);
      const entries = from.history.reduce((n, h) => n + h.entries.length, 0);
      expect(after.changes).toHaveLength(entries);
    });

    test('when retention deletes every entry it may while an import is under way and another customer writes after it, then the imported customer reads whole once it finishes', async () => {
      const from = await read(store().openSnapshot(await source(), { history: true }));
      const c = newCustomer();
      await store().beginImport(c);
      for (const batch of batchesOf(from, 1000)) await expect(store().importBatch(c, batch)).resolves.toBeUndefined();
      const other = newCustomer();
      await store().putSchema(other, MEMBER);
      await store().createNode(seeded(member(other, 'later')), []);
      while ((await store().pruneHistory(new Date(Date.now() + 60_000).toISOString(), 10_000)) > 0);
      await store().finishImport(c, { requireToken: false, timezone: 'UTC' }, []);
      expect(comparable(await read(store().openSnapshot(c, { history: true })))).toEqual(comparable(from));
      expect((await store().changesAfter(c, 0, 1000)).changes).toHaveLength(from.history.reduce((n, h) => n + h.entries.length, 0));
    });

    test("when retention runs while an import is under way, then it leaves the import's entries, and once the import is abandoned the feed goes on where it stood: no cursor it gives is past its head, and the next write is read after it", async () => {
      const from = await read(store().openSnapshot(await source(), { history: true }));
      const long = Date.UTC(2001, 0, 1);
      const old = { ...from, history: from.history.map((h) => ({ ...h, entries: h.entries.map((e, n) => ({ ...e, at: new Date(long + n).toISOString() })) })) };
      const c = newCustomer();
      const stood = await store().changesAfter(c, 0, 10);
      await store().beginImport(c);
      for (const batch of batchesOf(old, 1000)) await expect(store().importBatch(c, batch)).resolves.toBeUndefined();
      const pruned = await store().pruneHistory('2002-01-01T00:00:00.000Z', 10_000);
      expect(pruned).toBe(0);
      await store().abandonImport(c);

      const left = await store().changesAfter(c, 0, 10);
      expect(left.changes).toEqual([]);
      expect(left.prunedThrough).toBe(stood.prunedThrough);
      expect(left.prunedThrough).toBeLessThanOrEqual(left.head);
      await store().putSchema(c, MEMBER);
      await store().createNode(seeded(member(c, 'next')), []);
      const next = await store().changesAfter(c, Math.max(left.head, stood.head), 10);
      expect(next.changes.map((ch) => ch.entry.key.id)).toEqual(['next']);
    });
  });
}
