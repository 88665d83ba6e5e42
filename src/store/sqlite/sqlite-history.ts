// Node history on SQLite (extensions §3): each entry is a row of `history` (compact columns the API's entry is built
// from), found by value, its key's included, through `history_values`. Called inside the store's write transactions.
import type Database from 'better-sqlite3';
import type { HistoryEntry, HistoryId, HistoryOp, HistoryPage, IdPair } from '../../domain/model';
import { entryValues, erasedId, scrubbed, valueKey } from '../history';

interface HistoryRow {
  entry_pk: number;
  customer_id: string;
  schema_id: string;
  key_type: string;
  key_id: string | null;
  at: number;
  request_id: string;
  actor: string;
  op: HistoryOp;
  added: string;
  removed: string;
}

/** added and removed as stored: [type, value] pairs, value null once erased. */
const packIds = (ids: HistoryId[]): string => JSON.stringify(ids.map((id) => [id.type, id.id]));
const unpackIds = (text: string): HistoryId[] =>
  (JSON.parse(text) as Array<[string, string | null]>).map(([type, id]) => (id === null ? erasedId(type) : { type, id }));

/** The row's columns that an entry sets (all but entry_pk and customer_id). */
function columns(entry: HistoryEntry) {
  return {
    schema_id: entry.schema,
    key_type: entry.key.type,
    key_id: entry.key.id,
    // A rekeying is found under its new key too.
    new_key_id: entry.op === 'rekeying' ? (entry.added[0]?.id ?? null) : null,
    at: Date.parse(entry.at),
    request_id: entry.request_id,
    actor: entry.actor,
    op: entry.op,
    added: packIds(entry.added),
    removed: packIds(entry.removed),
  };
}

const toEntry = (row: HistoryRow): HistoryEntry => ({
  at: new Date(row.at).toISOString(),
  request_id: row.request_id,
  actor: row.actor,
  op: row.op,
  schema: row.schema_id,
  key: row.key_id === null ? erasedId(row.key_type) : { type: row.key_type, id: row.key_id },
  added: unpackIds(row.added),
  removed: unpackIds(row.removed),
});

const ROW = 'h.entry_pk, h.customer_id, h.schema_id, h.key_type, h.key_id, h.at, h.request_id, h.actor, h.op, h.added, h.removed';

export class SqliteHistory {
  private readonly s;

  constructor(db: Database.Database) {
    // A key's entries: the entries that hold its value (history_values) and have it as their key or new key.
    const underKey =
      'FROM history_values v JOIN history h ON h.entry_pk = v.entry_pk ' +
      'WHERE v.customer_id = @customer AND v.type = @type AND v.value = @id ' +
      'AND h.schema_id = @schema AND h.key_type = @type AND (h.key_id = @id OR h.new_key_id = @id)';
    this.s = {
      insert: db.prepare(
        'INSERT INTO history (customer_id, schema_id, key_type, key_id, new_key_id, at, request_id, actor, op, added, removed) ' +
          'VALUES (@customer_id, @schema_id, @key_type, @key_id, @new_key_id, @at, @request_id, @actor, @op, @added, @removed)',
      ),
      insertValue: db.prepare('INSERT OR IGNORE INTO history_values (customer_id, type, value, entry_pk) VALUES (?, ?, ?, ?)'),
      page: db.prepare(`SELECT ${ROW} ${underKey} ORDER BY v.entry_pk DESC LIMIT @limit OFFSET @offset`),
      count: db.prepare(`SELECT COUNT(*) ${underKey}`).pluck(),
      ofKey: db.prepare(`SELECT ${ROW} ${underKey}`),
      mentioning: db.prepare('SELECT entry_pk FROM history_values WHERE customer_id = ? AND type = ? AND value = ?').pluck(),
      forgetValue: db.prepare('DELETE FROM history_values WHERE customer_id = ? AND type = ? AND value = ?'),
      entry: db.prepare(`SELECT ${ROW} FROM history h WHERE h.entry_pk = ?`),
      rewrite: db.prepare('UPDATE history SET key_id = @key_id, new_key_id = @new_key_id, added = @added, removed = @removed WHERE entry_pk = @entry_pk'),
      forgetEntryValue: db.prepare('DELETE FROM history_values WHERE customer_id = ? AND type = ? AND value = ? AND entry_pk = ?'),
      oldest: db.prepare(`SELECT ${ROW} FROM history h ORDER BY h.entry_pk LIMIT CAST(? AS INTEGER)`),
      deleteEntry: db.prepare('DELETE FROM history WHERE entry_pk = ?'),
    };
  }

  /** One row for the entry and one per value it holds (the key included). */
  append(customerId: string, entry: HistoryEntry): void {
    const entryPk = Number(this.s.insert.run({ customer_id: customerId, ...columns(entry) }).lastInsertRowid);
    for (const value of entryValues(entry)) this.s.insertValue.run(customerId, value.type, value.id, entryPk);
  }

  page(customerId: string, schemaId: string, key: IdPair, offset: number, limit: number): HistoryPage {
    const params = { customer: customerId, schema: schemaId, type: key.type, id: key.id };
    const items = (this.s.page.all({ ...params, limit, offset }) as HistoryRow[]).map(toEntry);
    return { items, total: this.s.count.get(params) as number };
  }

  /** The entries found under a key, in no particular order. */
  ofKey(customerId: string, schemaId: string, key: IdPair): HistoryEntry[] {
    return (this.s.ofKey.all({ customer: customerId, schema: schemaId, type: key.type, id: key.id }) as HistoryRow[]).map(toEntry);
  }

  /** Replaces each of `values` by erasedId in every entry of the customer that holds it. */
  erase(customerId: string, values: readonly IdPair[]): void {
    const erased = new Set(values.map(valueKey));
    const entryPks = new Set<number>();
    for (const value of values) {
      for (const entryPk of this.s.mentioning.all(customerId, value.type, value.id) as number[]) entryPks.add(entryPk);
      this.s.forgetValue.run(customerId, value.type, value.id);
    }
    for (const entryPk of entryPks) {
      const row = this.s.entry.get(entryPk) as HistoryRow | undefined;
      const after = row === undefined ? undefined : scrubbed(toEntry(row), erased);
      if (!after) continue;
      const { key_id, new_key_id, added, removed } = columns(after);
      this.s.rewrite.run({ key_id, new_key_id, added, removed, entry_pk: entryPk });
    }
  }

  /** Deletes up to `limit` entries older than `before`, oldest first (entry_pk is commit order), with their value rows. */
  prune(before: string, limit: number): number {
    let deleted = 0;
    const beforeMs = Date.parse(before);
    for (const row of this.s.oldest.all(limit) as HistoryRow[]) {
      if (row.at >= beforeMs) break;
      for (const value of entryValues(toEntry(row))) {
        this.s.forgetEntryValue.run(row.customer_id, value.type, value.id, row.entry_pk);
      }
      this.s.deleteEntry.run(row.entry_pk);
      deleted += 1;
    }
    return deleted;
  }
}
