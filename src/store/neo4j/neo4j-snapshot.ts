// A customer's snapshot on Neo4j (docs/changes-and-export.md). Neo4j reads what is committed when each statement
// runs, without a snapshot, so the export holds the write lock of the customer's change counter for as long as it
// reads (export.begin.cypher): no node write of the customer commits meanwhile (each takes that lock last), and the
// export is the state as of the counter's value. Its other statements stream their rows, in code-point order,
// through the driver, which fetches more as the export writes them out; the transaction is rolled back at the end.
import { byTypeThenId } from '../../domain/code-point-order';
import type { HistoryEntry, IdPair } from '../../domain/model';
import type { DeliveryIdsGiven, ImpressionTally, KeyHistory, Snapshot, SnapshotNode, SnapshotOptions, SnapshotPart } from '../../domain/ports/snapshots';
import { erasedId } from '../history';
import type { Neo4jDeliveries } from './neo4j-deliveries';
import { parsed } from './neo4j-history';
import type { Neo4jSchemas } from './neo4j-schemas';
import { separationsInGraph } from './neo4j-separations';
import type { HeldTransaction } from './neo4j-transactions';

/** Records a part holds at most. */
const PAGE = 1000;

/** Up to `size` of `rows` at a time. */
async function* pages<T>(rows: AsyncIterable<T>, size = PAGE): AsyncGenerator<T[]> {
  let page: T[] = [];
  for await (const row of rows) {
    page.push(row);
    if (page.length === size) {
      yield page;
      page = [];
    }
  }
  if (page.length > 0) yield page;
}

/** Every separation and delivery at once (a slice bound Cypher takes as a 32-bit integer): a customer has few. */
const ALL = 1_000_000_000;

/** Opens the snapshot in `held`, whose end() closes it. */
export async function snapshotInGraph(
  held: HeldTransaction,
  parts: { schemas: Neo4jSchemas; deliveries: Neo4jDeliveries },
  customerId: string,
  options: SnapshotOptions,
): Promise<Snapshot> {
  try {
    const [begun] = await held.q<{ position: number; given: Array<{ name: keyof DeliveryIdsGiven; last: number }> }>('export.begin', {
      customer: customerId,
      write: held.writeId,
    });
    const given: DeliveryIdsGiven = { delivery: 0, condition: 0, message: 0 };
    for (const g of begun?.given ?? []) given[g.name] = g.last;
    return { position: begun?.position ?? 0, parts: snapshotParts(held, parts, customerId, options, given), close: () => held.end() };
  } catch (e) {
    await held.end();
    throw e;
  }
}

async function* snapshotParts(
  held: HeldTransaction,
  { schemas, deliveries }: { schemas: Neo4jSchemas; deliveries: Neo4jDeliveries },
  customerId: string,
  options: SnapshotOptions,
  given: DeliveryIdsGiven,
): AsyncGenerator<SnapshotPart, void, undefined> {
  const { q } = held;
  const { policy } = schemas.policyOf(customerId, await schemas.policyRow(q, { customerId, schemaId: null }));
  yield { kind: 'settings', settings: policy.settings };
  yield { kind: 'blocklist', rules: policy.blockRules };
  yield { kind: 'schemas', schemas: await schemas.list(q, customerId) };
  const nodes = held.rows<{ schema: string; keyType: string; keyId: string; ids: Array<[string, string]> }>('export.nodes', { customer: customerId });
  for await (const page of pages(nodes)) {
    yield {
      kind: 'nodes',
      nodes: page.map((n): SnapshotNode => ({
        schemaId: n.schema,
        key: { type: n.keyType, id: n.keyId },
        ids: n.ids
          .filter(([type, id]) => type !== n.keyType || id !== n.keyId)
          .map(([type, id]): IdPair => ({ type, id }))
          .sort(byTypeThenId),
      })),
    };
  }
  const { items: separations } = await separationsInGraph(q, customerId, 0, ALL);
  for (let i = 0; i < separations.length; i += PAGE) yield { kind: 'separations', separations: separations.slice(i, i + PAGE) };
  yield { kind: 'deliveryIds', given };
  const { items } = await deliveries.list(q, customerId, 0, ALL);
  for (let i = 0; i < items.length; i += 100) yield { kind: 'deliveries', deliveries: items.slice(i, i + 100) };
  const counted = held.rows<{ type: string; value: string; deliveryId: number; day: string; count: number }>('export.impressions', { customer: customerId });
  for await (const page of pages(tallies(counted))) yield { kind: 'impressions', tallies: page };
  if (!options.history) return;
  const entries = held.rows<{ schema: string; keyType: string; keyId: string | null; entry: string; atMillis: number }>('export.history', {
    customer: customerId,
  });
  for await (const page of pages(keyHistories(entries), 100)) yield { kind: 'history', keys: page };
}

/** Consecutive rows of one ID and delivery as one tally. */
async function* tallies(rows: AsyncIterable<{ type: string; value: string; deliveryId: number; day: string; count: number }>): AsyncGenerator<ImpressionTally> {
  let open: ImpressionTally | undefined;
  for await (const r of rows) {
    if (!open || open.deliveryId !== r.deliveryId || open.id.type !== r.type || open.id.id !== r.value) {
      if (open) yield open;
      open = { deliveryId: r.deliveryId, id: { type: r.type, id: r.value }, days: [] };
    }
    open.days.push({ day: r.day, count: r.count });
  }
  if (open) yield open;
}

/** Consecutive entries of one key (or of one schema's erased keys of a type) as one group. */
async function* keyHistories(
  rows: AsyncIterable<{ schema: string; keyType: string; keyId: string | null; entry: string; atMillis: number }>,
): AsyncGenerator<KeyHistory> {
  let open: { schemaId: string; key: KeyHistory['key']; entries: HistoryEntry[] } | undefined;
  for await (const r of rows) {
    const key = r.keyId === null ? erasedId(r.keyType) : { type: r.keyType, id: r.keyId };
    if (!open || open.schemaId !== r.schema || open.key.type !== key.type || open.key.id !== key.id) {
      if (open) yield open;
      open = { schemaId: r.schema, key, entries: [] };
    }
    open.entries.push(parsed(r.entry, r.atMillis));
  }
  if (open) yield open;
}
