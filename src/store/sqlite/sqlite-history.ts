// Node history on SQLite (docs/history-and-erasure.md). An entry is a row of `history` that names IDs by their rows in `ids`
// (id_pk): its key, a rekeying's new key, and the IDs it added and removed. A value's bytes are therefore stored
// once, in `ids`, however many entries name it, and an erase changes that one row (see migration 5): the entries
// that name it then show its type alone, and no lookup by the value finds it. Called inside the store's transactions.
import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { HistoryEntry, HistoryId, HistoryOp, HistoryPage, IdPair, WriteAudit } from '../../domain/model';
import { present } from '../../domain/invariant';
import { codePointLength, entryDocument, erasedId, NO_AUDIT } from '../history';
import { parseStored } from '../stored-json';
import { type Change, CHANGE_PAGE_CHARS, type ChangeRead } from '../../domain/ports/changes';

/** An ID in `added` or `removed`: its id_pk, or [type] where an erase names the type alone. */
export type StoredId = number | [string];

/** An entry to append. */
export interface NewEntry {
  schemaId: string;
  keyType: string;
  keyPk: number;
  /** A rekeying's new key. */
  newKeyPk?: number;
  op: HistoryOp;
  audit: WriteAudit | undefined;
  added: StoredId[];
  removed: StoredId[];
  /** An erase entry's: the entry_pk of the entries it redacted. */
  redacts?: number[];
  /** When it was written, in milliseconds; absent: now. An import keeps the time its entries had. */
  at?: number;
}

export interface HistoryRow {
  entry_pk: number;
  customer_id: string;
  schema_id: string;
  key_pk: number;
  new_key_pk: number | null;
  at: number;
  request_id: string;
  actor: string;
  op: HistoryOp;
  added: string;
  removed: string;
  redacts: string | null;
}

const storedIds = (text: string): StoredId[] => parseStored<StoredId[]>(text);

/** How many rows a page of the change feed reads at a time: a page may end within them (CHANGE_PAGE_CHARS). */
const CHANGE_ROWS_AT_ONCE = 100;

/** The node key an entry was written under, as one string: how an erase groups what it redacts. */
export const redactedKey = (schemaId: string, keyPk: number): string => `${schemaId}\u0000${keyPk}`;

/** A key's entries, bound by name. */
type KeyEntries = { keyPk: number; schema: string };
type IdRow = { id_pk: number; customer_id: string; type: string; value: string };

/** Every id_pk a row names. */
function idPksOf(row: HistoryRow): number[] {
  const pks = new Set<number>([row.key_pk]);
  if (row.new_key_pk !== null) pks.add(row.new_key_pk);
  for (const id of [...storedIds(row.added), ...storedIds(row.removed)]) if (typeof id === 'number') pks.add(id);
  return [...pks];
}

/** The file's feed key (migration 12), written by the first call that finds none: a new file's, or a backup's copy's. */
export function feedKeyOf(db: Database.Database): string {
  const read = db.prepare<[], string>('SELECT key FROM feed_key WHERE id = 1').pluck();
  // Written only when missing: a write waits for the import writer's batch, where a read does not.
  const kept = read.get();
  if (kept !== undefined) return kept;
  db.prepare('INSERT INTO feed_key (id, key) VALUES (1, ?) ON CONFLICT (id) DO NOTHING').run(randomBytes(32).toString('hex'));
  return present(read.get(), 'the row of feed_key');
}

export class SqliteHistory {
  private readonly s;

  constructor(db: Database.Database) {
    this.s = {
      insert: db.prepare<
        [
          customerId: string,
          schemaId: string,
          keyType: string,
          keyPk: number,
          newKeyPk: number | null,
          at: number,
          requestId: string,
          actor: string,
          op: HistoryOp,
          added: string,
          removed: string,
          redacts: string | null,
        ]
      >(
        'INSERT INTO history (customer_id, schema_id, key_type, key_pk, new_key_pk, at, request_id, actor, op, added, removed, redacts) ' +
          'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      tookAway: db.prepare<[entryPk: number, idPk: number]>('UPDATE ids SET last_entry = ? WHERE id_pk = ?'),
      findId: db
        .prepare<[customerId: string, type: string, value: string], number>('SELECT id_pk FROM ids WHERE customer_id = ? AND type = ? AND value = ?')
        .pluck(),
      // The largest entry_pk ever given (AUTOINCREMENT keeps it when retention deleted the entry).
      lastEntry: db.prepare<[], number>("SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'history'), 0)").pluck(),
      // The customer's feed, through history_by_customer.
      changes: db.prepare<[customerId: string, after: number, limit: number], HistoryRow>(
        'SELECT entry_pk, customer_id, schema_id, key_pk, new_key_pk, at, request_id, actor, op, added, removed, redacts FROM history WHERE customer_id = ? AND entry_pk > ? ORDER BY entry_pk LIMIT ?',
      ),
      // Every entry of the customer, for an erase's redacts: the ids they name are in JSON, which no index reaches.
      ofCustomer: db.prepare<[customerId: string], HistoryRow>(
        'SELECT entry_pk, customer_id, schema_id, key_pk, new_key_pk, at, request_id, actor, op, added, removed, redacts FROM history WHERE customer_id = ?',
      ),
      keyErased: db.prepare<[idPk: number], number>("SELECT customer_id = '' FROM ids WHERE id_pk = ?").pluck(),
      // An importing customer's entries are not in the feed until the import finishes (changesAfter).
      hasChangeAfter: db
        .prepare<{ customer: string; after: number }, number>(
          'SELECT 1 FROM history WHERE customer_id = @customer AND entry_pk > @after AND NOT EXISTS (SELECT 1 FROM imports WHERE customer_id = @customer) LIMIT 1',
        )
        .pluck(),
      importing: db.prepare<[customerId: string], number>('SELECT 1 FROM imports WHERE customer_id = ?').pluck(),
      firstOfCustomer: db.prepare<[customerId: string], number | null>('SELECT min(entry_pk) FROM history WHERE customer_id = ?').pluck(),
      prunedThrough: db.prepare<[customerId: string], number>('SELECT through FROM history_pruned WHERE customer_id = ?').pluck(),
      recordPruned: db.prepare<[customerId: string, through: number]>(
        'INSERT INTO history_pruned (customer_id, through) VALUES (?, ?) ON CONFLICT (customer_id) DO UPDATE SET through = max(through, excluded.through)',
      ),
      // A key's entries: its own, and the rekeyings onto it (each through its index, history_by_key and
      // history_by_new_key).
      // LIMIT -1: all of them (an erase of a person reads a key's whole history).
      page: db.prepare<KeyEntries & { limit: number; offset: number }, HistoryRow>(
        'SELECT entry_pk, customer_id, schema_id, key_pk, new_key_pk, at, request_id, actor, op, added, removed, redacts FROM history ' +
          'WHERE (key_pk = @keyPk OR new_key_pk = @keyPk) AND schema_id = @schema ORDER BY entry_pk DESC LIMIT @limit OFFSET @offset',
      ),
      count: db.prepare<KeyEntries, number>('SELECT COUNT(*) FROM history WHERE (key_pk = @keyPk OR new_key_pk = @keyPk) AND schema_id = @schema').pluck(),
      // The IDs a page names, in one statement; customer '' marks an erased one.
      idsByPk: db.prepare<[idPks: string], IdRow>('SELECT id_pk, customer_id, type, value FROM ids WHERE id_pk IN (SELECT value FROM json_each(?))'),
      erase: db.prepare<{ idPk: number; lastEntry: number }>(
        "UPDATE ids SET customer_id = '', value = CAST(id_pk AS TEXT), last_entry = @lastEntry WHERE id_pk = @idPk",
      ),
      // Only before the first entry of an import under way: its entries are not in the feed yet, and go whole if the
      // import is abandoned; and prune's deleteErased counts on every entry up to the last it deleted being gone (the
      // erased ids rows an import's entries name would go otherwise). Retention waits for the import meanwhile.
      oldest: db.prepare<[limit: number], HistoryRow>(
        'SELECT entry_pk, customer_id, schema_id, key_pk, new_key_pk, at, request_id, actor, op, added, removed, redacts FROM history ' +
          'WHERE entry_pk < coalesce((SELECT min(entry_pk) FROM history WHERE customer_id IN (SELECT customer_id FROM imports)), 9223372036854775807) ' +
          'ORDER BY entry_pk LIMIT CAST(? AS INTEGER)',
      ),
      deleteEntry: db.prepare<[entryPk: number]>('DELETE FROM history WHERE entry_pk = ?'),
      // No node holds it, and every entry that names it is gone (those up to last_entry: see migration 5).
      deleteIdIfUnused: db.prepare<{ idPk: number; prunedThrough: number }>(
        'DELETE FROM ids WHERE id_pk = @idPk AND last_entry <= @prunedThrough AND NOT EXISTS (SELECT 1 FROM node_ids WHERE id_pk = @idPk)',
      ),
      // Erased IDs: no entry after the erase names them (a new write of the value makes a new row).
      deleteErased: db.prepare<[prunedThrough: number]>("DELETE FROM ids WHERE customer_id = '' AND last_entry <= ?"),
    };
  }

  /** The customers entries were appended for since the last call: what a commit tells the feed's waiting calls. */
  takeAppended(): Set<string> {
    const appended = this.appended;
    this.appended = new Set();
    return appended;
  }

  private appended = new Set<string>();

  /** Appends an entry; the IDs it removes remember it (last_entry). Answers its entry_pk. */
  append(customerId: string, e: NewEntry): number {
    this.appended.add(customerId);
    return this.appendImported(customerId, e);
  }

  /**
   * Appends an entry an import writes: as append, but no waiting call of the feed is told, since the feed shows the
   * customer's entries only once the import finishes (changesAfter), which tells them itself.
   */
  appendImported(customerId: string, e: NewEntry): number {
    const audit = e.audit ?? NO_AUDIT;
    const entryPk = Number(
      // Positional: binding the eleven parameters by name cost 8–10 µs more a write (measured on a create).
      this.s.insert.run(
        customerId,
        e.schemaId,
        e.keyType,
        e.keyPk,
        e.newKeyPk ?? null,
        e.at ?? Date.now(),
        audit.requestId,
        audit.actor,
        e.op,
        JSON.stringify(e.added),
        JSON.stringify(e.removed),
        e.redacts ? JSON.stringify(e.redacts) : null,
      ).lastInsertRowid,
    );
    for (const id of e.removed) if (typeof id === 'number') this.s.tookAway.run(entryPk, id);
    return entryPk;
  }

  /** The ids rows an erase took from nodes (or deleted nodes held) remember the erase's last entry. */
  tookAway(idPks: Iterable<number>, entryPk: number): void {
    for (const idPk of idPks) this.s.tookAway.run(entryPk, idPk);
  }

  /**
   * The customer's entries after `after`, oldest first, up to `limit` and CHANGE_PAGE_CHARS of their JSON
   * (entryDocument, as Neo4j measures it); head: the newest entry_pk given to any customer. Read CHANGE_ROWS_AT_ONCE
   * rows at a time, so that rows past the page's end are not read.
   */
  changesAfter(customerId: string, after: number, limit: number): ChangeRead {
    if (this.s.importing.get(customerId) !== undefined) return this.whileImporting(customerId);
    const changes: Change[] = [];
    let chars = 0;
    let last = after;
    let cut = false;
    read: for (;;) {
      const rows = this.s.changes.all(customerId, last, Math.min(CHANGE_ROWS_AT_ONCE, limit - changes.length));
      const entries = this.entries(rows);
      for (const [i, row] of rows.entries()) {
        const entry = present(entries[i], 'the entry of a row');
        chars += codePointLength(entryDocument(entry));
        if (changes.length > 0 && chars > CHANGE_PAGE_CHARS) {
          cut = true;
          break read;
        }
        changes.push({ seq: row.entry_pk, entry, ...(row.redacts === null ? {} : { redacts: parseStored<number[]>(row.redacts) }) });
        last = row.entry_pk;
      }
      if (rows.length < CHANGE_ROWS_AT_ONCE || changes.length === limit) break;
    }
    return {
      changes,
      head: this.lastEntryPk(),
      prunedThrough: this.s.prunedThrough.get(customerId) ?? 0,
      cut,
    };
  }

  /**
   * The feed of a customer an import is writing to: none of its entries yet (they come at once when it finishes, and
   * go whole when it is abandoned), and a head before the first of them, so that no cursor given meanwhile is past
   * one. The customer was empty when the import began: every entry it has is the import's.
   */
  private whileImporting(customerId: string): ChangeRead {
    const first = this.s.firstOfCustomer.get(customerId) ?? null;
    return {
      changes: [],
      head: first === null ? this.lastEntryPk() : first - 1,
      prunedThrough: this.s.prunedThrough.get(customerId) ?? 0,
      cut: false,
    };
  }

  /**
   * The customer's entries that name any of `idPks`, by the node key they were written under (schema and key_pk):
   * what an erase of those IDs redacts. It reads every entry of the customer.
   */
  naming(customerId: string, idPks: ReadonlySet<number>): Map<string, { schemaId: string; keyPk: number; entryPks: number[] }> {
    const groups = new Map<string, { schemaId: string; keyPk: number; entryPks: number[] }>();
    if (idPks.size === 0) return groups;
    for (const row of this.s.ofCustomer.iterate(customerId)) {
      // An entry whose key an earlier erase took is under no key any more (as on Neo4j, where it has none left).
      if (!idPksOf(row).some((pk) => idPks.has(pk)) || this.s.keyErased.get(row.key_pk) === 1) continue;
      const key = redactedKey(row.schema_id, row.key_pk);
      const group = groups.get(key) ?? { schemaId: row.schema_id, keyPk: row.key_pk, entryPks: [] };
      group.entryPks.push(row.entry_pk);
      groups.set(key, group);
    }
    return groups;
  }

  /** Whether the customer has an entry after `after`. */
  hasChangeAfter(customerId: string, after: number): boolean {
    return this.s.hasChangeAfter.get({ customer: customerId, after }) !== undefined;
  }

  /** The newest entry_pk given (0 when none). */
  lastEntryPk(): number {
    return present(this.s.lastEntry.get(), 'the row of max(entry_pk)');
  }

  page(customerId: string, schemaId: string, key: IdPair, offset: number, limit: number): HistoryPage {
    const keyPk = this.s.findId.get(customerId, key.type, key.id);
    if (keyPk === undefined) return { items: [], total: 0 };
    const rows = this.s.page.all({ keyPk, schema: schemaId, limit, offset });
    return { items: this.entries(rows), total: present(this.s.count.get({ keyPk, schema: schemaId }), 'the row of COUNT(*)') };
  }

  /**
   * Every ID (id_pk) the history of these node keys names, and of the keys they were rekeyed from: what an erase of
   * a person takes out of history, with what the nodes hold.
   */
  namedByKeys(keys: ReadonlyArray<{ schemaId: string; keyPk: number }>): Set<number> {
    const named = new Set<number>();
    const seen = new Set<string>();
    const pending = [...keys];
    for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
      const seenKey = `${next.schemaId}\u0000${next.keyPk}`;
      if (seen.has(seenKey)) continue;
      seen.add(seenKey);
      for (const row of this.s.page.all({ keyPk: next.keyPk, schema: next.schemaId, limit: -1, offset: 0 })) {
        for (const idPk of idPksOf(row)) named.add(idPk);
        // A rekeying onto this key names the key the node had before: its entries are the same node's.
        if (row.op === 'rekeying' && row.new_key_pk === next.keyPk) pending.push({ schemaId: row.schema_id, keyPk: row.key_pk });
      }
    }
    return named;
  }

  /** The entries as the API shows them, their IDs read from `ids` in one statement. */
  entries(rows: HistoryRow[]): HistoryEntry[] {
    const pks = [...new Set(rows.flatMap(idPksOf))];
    const found = this.s.idsByPk.all(JSON.stringify(pks));
    const ids = new Map(found.map((r): [number, HistoryId] => [r.id_pk, r.customer_id === '' ? erasedId(r.type) : { type: r.type, id: r.value }]));
    const shown = (id: StoredId): HistoryId => (typeof id === 'number' ? present(ids.get(id), 'an ids row history names') : erasedId(id[0]));
    return rows.map((row) => ({
      at: new Date(row.at).toISOString(),
      requestId: row.request_id,
      actor: row.actor,
      op: row.op,
      schema: row.schema_id,
      key: shown(row.key_pk),
      added: storedIds(row.added).map(shown),
      removed: storedIds(row.removed).map(shown),
    }));
  }

  /**
   * Erases IDs no node holds any more: each row keeps its type, leaves the customer and loses its value, so every
   * entry that names it shows {type, id: null, erased: true} and no lookup finds it. `lastEntry`: the erase's.
   */
  erase(idPks: Iterable<number>, lastEntry: number): void {
    for (const idPk of idPks) this.s.erase.run({ idPk, lastEntry });
  }

  /**
   * Deletes up to `limit` entries older than `before`, oldest first (entry_pk is commit order), and the ids rows no
   * node holds whose last entry went with them.
   */
  prune(before: string, limit: number): number {
    const beforeMs = Date.parse(before);
    let deleted = 0;
    let prunedThrough = 0;
    for (const row of this.s.oldest.all(limit)) {
      if (row.at >= beforeMs) break;
      this.s.deleteEntry.run(row.entry_pk);
      this.s.recordPruned.run(row.customer_id, row.entry_pk);
      for (const idPk of idPksOf(row)) this.s.deleteIdIfUnused.run({ idPk, prunedThrough: row.entry_pk });
      prunedThrough = row.entry_pk;
      deleted += 1;
    }
    if (deleted > 0) this.s.deleteErased.run(prunedThrough);
    return deleted;
  }
}
