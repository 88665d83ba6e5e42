// Node history on SQLite (extensions §3): each entry is a row of `history` (compact columns the API's entry is built
// from), found by the ids rows of the IDs it names, its key's included, through `history_values`. Called inside the store's write transactions.
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
      'FROM ids i JOIN history_values v ON v.id_pk = i.id_pk JOIN history h ON h.entry_pk = v.entry_pk ' +
      'WHERE i.customer_id = @customer AND i.type = @type AND i.value = @id ' +
      'AND h.schema_id = @schema AND h.key_type = @type AND (h.key_id = @id OR h.new_key_id = @id)';
    this.s = {
      insert: db.prepare(
        'INSERT INTO history (customer_id, schema_id, key_type, key_id, new_key_id, at, request_id, actor, op, added, removed) ' +
          'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      insertValue: db.prepare('INSERT OR IGNORE INTO history_values (id_pk, entry_pk) VALUES (?, ?)'),
      findId: db.prepare('SELECT id_pk FROM ids WHERE customer_id = ? AND type = ? AND value = ?').pluck(),
      // An ID no node holds and no entry names is no longer needed (see migration 5).
      deleteIdIfUnused: db.prepare(
        'DELETE FROM ids WHERE id_pk = @idPk AND NOT EXISTS (SELECT 1 FROM node_ids WHERE id_pk = @idPk) ' +
          'AND NOT EXISTS (SELECT 1 FROM history_values WHERE id_pk = @idPk)',
      ),
      page: db.prepare(`SELECT ${ROW} ${underKey} ORDER BY v.entry_pk DESC LIMIT @limit OFFSET @offset`),
      count: db.prepare(`SELECT COUNT(*) ${underKey}`).pluck(),
      ofKey: db.prepare(`SELECT ${ROW} ${underKey}`),
      mentioning: db.prepare('SELECT entry_pk FROM history_values WHERE id_pk = ?').pluck(),
      forgetValue: db.prepare('DELETE FROM history_values WHERE id_pk = ?'),
      entry: db.prepare(`SELECT ${ROW} FROM history h WHERE h.entry_pk = ?`),
      rewrite: db.prepare('UPDATE history SET key_id = @key_id, new_key_id = @new_key_id, added = @added, removed = @removed WHERE entry_pk = @entry_pk'),
      forgetEntryValue: db.prepare('DELETE FROM history_values WHERE id_pk = ? AND entry_pk = ?'),
      oldest: db.prepare(`SELECT ${ROW} FROM history h ORDER BY h.entry_pk LIMIT CAST(? AS INTEGER)`),
      deleteEntry: db.prepare('DELETE FROM history WHERE entry_pk = ?'),
    };
  }

  /** One row for the entry and one per ID it holds: `idPks`, the ids rows of its key and of every ID it names. */
  append(customerId: string, entry: HistoryEntry, idPks: readonly number[]): void {
    // Positional: binding the eleven parameters by name cost 8–10 µs more a write (measured on a create).
    const c = columns(entry);
    const row = [customerId, c.schema_id, c.key_type, c.key_id, c.new_key_id, c.at, c.request_id, c.actor, c.op, c.added, c.removed];
    const entryPk = Number(this.s.insert.run(...row).lastInsertRowid);
    for (const idPk of idPks) this.s.insertValue.run(idPk, entryPk);
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

  /**
   * Replaces each of `values` (which no node holds any more) by erasedId in every entry of the customer that holds
   * it, and deletes its ids row.
   */
  erase(customerId: string, values: readonly IdPair[]): void {
    const erased = new Set(values.map(valueKey));
    const entryPks = new Set<number>();
    for (const value of values) {
      const idPk = this.s.findId.get(customerId, value.type, value.id) as number | undefined;
      if (idPk === undefined) continue;
      for (const entryPk of this.s.mentioning.all(idPk) as number[]) entryPks.add(entryPk);
      this.s.forgetValue.run(idPk);
      this.s.deleteIdIfUnused.run({ idPk });
    }
    for (const entryPk of entryPks) {
      const row = this.s.entry.get(entryPk) as HistoryRow | undefined;
      const after = row === undefined ? undefined : scrubbed(toEntry(row), erased);
      if (!after) continue;
      const { key_id, new_key_id, added, removed } = columns(after);
      this.s.rewrite.run({ key_id, new_key_id, added, removed, entry_pk: entryPk });
    }
  }

  /** Deletes an ids row that no node holds and no entry names (an erase's deleted nodes leave such rows behind). */
  forgetIdIfUnused(idPk: number): void {
    this.s.deleteIdIfUnused.run({ idPk });
  }

  /** Deletes up to `limit` entries older than `before`, oldest first (entry_pk is commit order), with their value rows. */
  prune(before: string, limit: number): number {
    let deleted = 0;
    const beforeMs = Date.parse(before);
    for (const row of this.s.oldest.all(limit) as HistoryRow[]) {
      if (row.at >= beforeMs) break;
      const idPks = entryValues(toEntry(row)).map((value) => this.s.findId.get(row.customer_id, value.type, value.id) as number | undefined);
      for (const idPk of idPks) if (idPk !== undefined) this.s.forgetEntryValue.run(idPk, row.entry_pk);
      this.s.deleteEntry.run(row.entry_pk);
      for (const idPk of idPks) if (idPk !== undefined) this.s.deleteIdIfUnused.run({ idPk });
      deleted += 1;
    }
    return deleted;
  }
}
