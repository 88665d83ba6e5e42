// A customer's snapshot on SQLite (docs/changes-and-export.md): every part read in one read transaction, so all of it
// is as of one commit, whatever the writers do meanwhile. A file store reads through a read-only connection of its
// own, opened for the export and closed after it, and the writers never wait for it (WAL: the reader keeps its view,
// and the WAL keeps what a checkpoint would otherwise reuse until the export ends). The rows come through iterators
// in index order (nodes, impressions) or SQLite's own sort (history), a page at a time.
import type BetterSqlite3 from 'better-sqlite3';
import { byTypeThenId } from '../../domain/code-point-order';
import type { DeliveryIdsGiven, ImpressionTally, KeyHistory, Snapshot, SnapshotNode, SnapshotOptions, SnapshotPart } from '../../domain/ports/snapshots';
import { present } from '../../domain/invariant';
import { erasedId } from '../history';
import { parseRow, type DeliveryRaw } from './sqlite-deliveries';
import { type HistoryRow, SqliteHistory } from './sqlite-history';
import { SqliteSchemas } from './sqlite-schemas';

/** Records a part holds at most. */
const PAGE = 1000;

type HeldRow = [nodePk: number, schemaId: string, keyType: string, keyId: string, type: string, value: string];
type TallyRow = { id_type: string; id_value: string; delivery_id: number; day: string; count: number };
type KeyedHistoryRow = HistoryRow & { key_type: string; key_erased: number; key_value: string };
type BanRow = { s1: string; t1: string; i1: string; s2: string; t2: string; i2: string };

/** The statements of a snapshot, on the connection it reads through. */
function statements(db: BetterSqlite3.Database) {
  return {
    // The newest position given, or what retention deleted of the customer's when that is newer (see changesAfter).
    position: db
      .prepare<[customerId: string], number>(
        "SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'history'), 0), coalesce((SELECT through FROM history_pruned WHERE customer_id = ?), 0))",
      )
      .pluck(),
    // Each node's IDs (its key among them), nodes in the order of the (customer_id, schema_id, key_type, key_id) index
    // (BINARY collation: code-point order), each node's IDs together: one pass, no sort. Raw rows: node_pk,
    // schema_id, key_type, key_id, type, value.
    nodes: db
      .prepare<[customerId: string], HeldRow>(
        'SELECT n.node_pk, n.schema_id, n.key_type, n.key_id, i.type, i.value FROM nodes n JOIN node_ids ni ON ni.node_pk = n.node_pk ' +
          'JOIN ids i ON i.id_pk = ni.id_pk WHERE n.customer_id = ? ORDER BY n.schema_id, n.key_type, n.key_id',
      )
      .raw(),
    // Each pair in code-point order, as listSeparations answers them (sqlite-nodes.ts).
    bans: db.prepare<[customerId: string], BanRow>(
      'WITH p AS (SELECT na.schema_id AS sa, na.key_type AS ta, na.key_id AS ia, nb.schema_id AS sb, nb.key_type AS tb, nb.key_id AS ib ' +
        'FROM separations s JOIN nodes na ON na.node_pk = s.node_a JOIN nodes nb ON nb.node_pk = s.node_b WHERE s.customer_id = ?), ' +
        'o AS (SELECT (sa, ta, ia) < (sb, tb, ib) AS lo, * FROM p) ' +
        'SELECT CASE WHEN lo THEN sa ELSE sb END AS s1, CASE WHEN lo THEN ta ELSE tb END AS t1, CASE WHEN lo THEN ia ELSE ib END AS i1, ' +
        'CASE WHEN lo THEN sb ELSE sa END AS s2, CASE WHEN lo THEN tb ELSE ta END AS t2, CASE WHEN lo THEN ib ELSE ia END AS i2 ' +
        'FROM o ORDER BY s1, t1, i1, s2, t2, i2',
    ),
    given: db.prepare<[customerId: string], { name: keyof DeliveryIdsGiven; last: number }>('SELECT name, last FROM delivery_sequences WHERE customer_id = ?'),
    deliveries: db
      .prepare<[customerId: string], DeliveryRaw>(
        'SELECT d.document, c.delivery_count, c.iphone_count, c.android_count FROM deliveries d JOIN delivery_counts c USING (customer_id, delivery_id) ' +
          'WHERE d.customer_id = ? ORDER BY d.delivery_id',
      )
      .raw(),
    // In primary-key order; a deleted delivery's counts, which a sweep deletes later, are left out.
    tallies: db.prepare<[customerId: string], TallyRow>(
      'SELECT ic.id_type, ic.id_value, ic.delivery_id, ic.day, ic.count FROM impression_counts ic ' +
        'WHERE ic.customer_id = ? AND EXISTS (SELECT 1 FROM deliveries d WHERE d.customer_id = ic.customer_id AND d.delivery_id = ic.delivery_id) ' +
        'ORDER BY ic.id_type, ic.id_value, ic.delivery_id, ic.day',
    ),
    // Every entry by the key it was written under, keys in the nodes' order; an erased key (its row moved to the
    // customer '') after its type's others, all of a schema and type together, entries oldest first.
    history: db.prepare<[customerId: string], KeyedHistoryRow>(
      'SELECT h.entry_pk, h.customer_id, h.schema_id, h.key_pk, h.new_key_pk, h.at, h.request_id, h.actor, h.op, h.added, h.removed, h.redacts, ' +
        "h.key_type, k.customer_id = '' AS key_erased, k.value AS key_value " +
        'FROM history h JOIN ids k ON k.id_pk = h.key_pk WHERE h.customer_id = ? ' +
        "ORDER BY h.schema_id, h.key_type, key_erased, CASE WHEN k.customer_id = '' THEN '' ELSE k.value END, h.entry_pk",
    ),
  };
}

/** Up to PAGE of `rows`, taken from an iterator that stays open between pages. */
function* pages<T>(rows: Iterable<T>, size = PAGE): Generator<T[]> {
  let page: T[] = [];
  for (const row of rows) {
    page.push(row);
    if (page.length === size) {
      yield page;
      page = [];
    }
  }
  if (page.length > 0) yield page;
}

/**
 * The snapshot read through `db` inside the read transaction the caller holds: its position, read first (the first
 * read fixes the transaction's view), and its parts.
 */
export function snapshotOf(db: BetterSqlite3.Database, customerId: string, options: SnapshotOptions): { position: number; parts: Generator<SnapshotPart> } {
  const s = statements(db);
  return { position: present(s.position.get(customerId), 'the row of the head'), parts: snapshotParts(db, s, customerId, options) };
}

function* snapshotParts(db: BetterSqlite3.Database, s: ReturnType<typeof statements>, customerId: string, options: SnapshotOptions): Generator<SnapshotPart> {
  const schemas = new SqliteSchemas(db);
  const policy = schemas.policy(customerId);
  yield { kind: 'settings', settings: policy.settings };
  yield { kind: 'blocklist', rules: policy.blockRules };
  yield { kind: 'schemas', schemas: schemas.list(customerId) };
  for (const page of pages(nodesOf(s.nodes.iterate(customerId)))) yield { kind: 'nodes', nodes: page };
  for (const page of pages(s.bans.iterate(customerId))) {
    yield {
      kind: 'separations',
      separations: page.map((r) => ({ a: { schemaId: r.s1, key: { type: r.t1, id: r.i1 } }, b: { schemaId: r.s2, key: { type: r.t2, id: r.i2 } } })),
    };
  }
  const given: DeliveryIdsGiven = { delivery: 0, condition: 0, message: 0 };
  for (const row of s.given.all(customerId)) given[row.name] = row.last;
  yield { kind: 'deliveryIds', given };
  for (const page of pages(s.deliveries.iterate(customerId), 100)) yield { kind: 'deliveries', deliveries: page.map(parseRow) };
  for (const page of pages(tallies(s.tallies.iterate(customerId)))) yield { kind: 'impressions', tallies: page };
  if (options.history) {
    const history = new SqliteHistory(db);
    for (const page of pages(keyHistories(s.history.iterate(customerId)), 100)) {
      const entries = history.entries(page.flatMap((k) => k.rows));
      let next = 0;
      yield {
        kind: 'history',
        keys: page.map((k): KeyHistory => {
          const shown = entries.slice(next, next + k.rows.length);
          next += k.rows.length;
          return { schemaId: k.schemaId, key: k.key, entries: shown };
        }),
      };
    }
  }
}

/** Consecutive rows of one node as the node, its IDs but its key in code-point order. */
function* nodesOf(rows: Iterable<HeldRow>): Generator<SnapshotNode> {
  let open: { pk: number; node: SnapshotNode } | undefined;
  const done = (node: SnapshotNode) => ({ ...node, ids: node.ids.sort(byTypeThenId) });
  for (const [pk, schemaId, keyType, keyId, type, value] of rows) {
    if (open?.pk !== pk) {
      if (open) yield done(open.node);
      open = { pk, node: { schemaId, key: { type: keyType, id: keyId }, ids: [] } };
    }
    if (type !== keyType || value !== keyId) open.node.ids.push({ type, id: value });
  }
  if (open) yield done(open.node);
}

/** Consecutive rows of one ID and delivery as one tally. */
function* tallies(rows: Iterable<TallyRow>): Generator<ImpressionTally> {
  let open: ImpressionTally | undefined;
  for (const r of rows) {
    if (!open || open.deliveryId !== r.delivery_id || open.id.type !== r.id_type || open.id.id !== r.id_value) {
      if (open) yield open;
      open = { deliveryId: r.delivery_id, id: { type: r.id_type, id: r.id_value }, days: [] };
    }
    open.days.push({ day: r.day, count: r.count });
  }
  if (open) yield open;
}

/** Consecutive rows of one key (or of one schema's erased keys of a type) as one group. */
function* keyHistories(rows: Iterable<KeyedHistoryRow>): Generator<{ schemaId: string; key: KeyHistory['key']; rows: HistoryRow[] }> {
  let open: { schemaId: string; key: KeyHistory['key']; rows: HistoryRow[] } | undefined;
  for (const r of rows) {
    const key = r.key_erased === 1 ? erasedId(r.key_type) : { type: r.key_type, id: r.key_value };
    if (!open || open.schemaId !== r.schema_id || open.key.type !== key.type || open.key.id !== key.id) {
      if (open) yield open;
      open = { schemaId: r.schema_id, key, rows: [] };
    }
    open.rows.push(r);
  }
  if (open) yield open;
}

/**
 * The snapshot of a store on a file: a read-only connection of its own (`open`), in one read transaction, closed
 * by close().
 */
export function fileSnapshot(open: () => BetterSqlite3.Database, customerId: string, options: SnapshotOptions): Snapshot {
  const db = open();
  const close = () => {
    if (db.open && db.inTransaction) db.exec('ROLLBACK');
    if (db.open) db.close();
  };
  try {
    db.exec('BEGIN');
    const { position, parts } = snapshotOf(db, customerId, options);
    return {
      position,
      parts: (async function* () {
        try {
          yield* parts;
        } finally {
          parts.return(undefined);
        }
      })(),
      close: async () => {
        parts.return(undefined);
        close();
      },
    };
  } catch (e) {
    close();
    throw e;
  }
}

/** The snapshot of a store in memory: read whole at once, on the store's one connection, in one turn no write can enter. */
export function memorySnapshot(db: BetterSqlite3.Database, customerId: string, options: SnapshotOptions): Snapshot {
  const read = db.transaction(() => {
    const { position, parts } = snapshotOf(db, customerId, options);
    return { position, parts: [...parts] };
  })();
  return {
    position: read.position,
    parts: (async function* () {
      yield* read.parts;
    })(),
    close: async () => undefined,
  };
}
