// Node history on SQLite (extensions §3): each entry is a row of `history` (its JSON as the API shows it), found by
// key through `history_keys` and by value through `history_values`. Called inside the store's write transactions.
import type Database from 'better-sqlite3';
import type { HistoryEntry, HistoryPage, IdPair } from '../../domain/model';
import { entryKeys, entryValues, scrubbed, valueKey } from '../history';

export class SqliteHistory {
  private readonly s;

  constructor(db: Database.Database) {
    this.s = {
      insert: db.prepare('INSERT INTO history (customer_id, at, entry) VALUES (?, ?, ?)'),
      insertKey: db.prepare('INSERT OR IGNORE INTO history_keys (customer_id, schema_id, key_type, key_id, entry_pk) VALUES (?, ?, ?, ?, ?)'),
      insertValue: db.prepare('INSERT OR IGNORE INTO history_values (customer_id, type, value, entry_pk) VALUES (?, ?, ?, ?)'),
      page: db.prepare(
        'SELECT h.entry FROM history_keys k JOIN history h ON h.entry_pk = k.entry_pk ' +
          'WHERE k.customer_id = ? AND k.schema_id = ? AND k.key_type = ? AND k.key_id = ? ORDER BY k.entry_pk DESC LIMIT ? OFFSET ?',
      ).pluck(),
      count: db.prepare('SELECT COUNT(*) FROM history_keys WHERE customer_id = ? AND schema_id = ? AND key_type = ? AND key_id = ?').pluck(),
      ofKey: db.prepare(
        'SELECT h.entry FROM history_keys k JOIN history h ON h.entry_pk = k.entry_pk ' +
          'WHERE k.customer_id = ? AND k.schema_id = ? AND k.key_type = ? AND k.key_id = ?',
      ).pluck(),
      mentioning: db.prepare('SELECT entry_pk FROM history_values WHERE customer_id = ? AND type = ? AND value = ?').pluck(),
      forgetValue: db.prepare('DELETE FROM history_values WHERE customer_id = ? AND type = ? AND value = ?'),
      entry: db.prepare('SELECT customer_id, entry FROM history WHERE entry_pk = ?'),
      rewrite: db.prepare('UPDATE history SET entry = ? WHERE entry_pk = ?'),
      forgetKey: db.prepare('DELETE FROM history_keys WHERE customer_id = ? AND schema_id = ? AND key_type = ? AND key_id = ? AND entry_pk = ?'),
      forgetEntryValue: db.prepare('DELETE FROM history_values WHERE customer_id = ? AND type = ? AND value = ? AND entry_pk = ?'),
      oldest: db.prepare('SELECT entry_pk, customer_id, at, entry FROM history ORDER BY entry_pk LIMIT CAST(? AS INTEGER)'),
      deleteEntry: db.prepare('DELETE FROM history WHERE entry_pk = ?'),
    };
  }

  append(customerId: string, entry: HistoryEntry): void {
    const entryPk = Number(this.s.insert.run(customerId, entry.at, JSON.stringify(entry)).lastInsertRowid);
    for (const key of entryKeys(entry)) this.s.insertKey.run(customerId, entry.schema, key.type, key.id, entryPk);
    for (const value of entryValues(entry)) this.s.insertValue.run(customerId, value.type, value.id, entryPk);
  }

  page(customerId: string, schemaId: string, key: IdPair, offset: number, limit: number): HistoryPage {
    const items = (this.s.page.all(customerId, schemaId, key.type, key.id, limit, offset) as string[]).map((e) => JSON.parse(e) as HistoryEntry);
    return { items, total: this.s.count.get(customerId, schemaId, key.type, key.id) as number };
  }

  /** The entries found under a key, in no particular order. */
  ofKey(customerId: string, schemaId: string, key: IdPair): HistoryEntry[] {
    return (this.s.ofKey.all(customerId, schemaId, key.type, key.id) as string[]).map((e) => JSON.parse(e) as HistoryEntry);
  }

  /** Replaces each of `values` by erasedId in every entry of the customer that holds it; answers nothing else. */
  erase(customerId: string, values: readonly IdPair[]): void {
    const erased = new Set(values.map(valueKey));
    const entryPks = new Set<number>();
    for (const value of values) {
      for (const entryPk of this.s.mentioning.all(customerId, value.type, value.id) as number[]) entryPks.add(entryPk);
      this.s.forgetValue.run(customerId, value.type, value.id);
    }
    for (const entryPk of entryPks) {
      const row = this.s.entry.get(entryPk) as { customer_id: string; entry: string } | undefined;
      if (!row) continue;
      const before = JSON.parse(row.entry) as HistoryEntry;
      const after = scrubbed(before, erased);
      if (!after) continue;
      const kept = new Set(entryKeys(after).map(valueKey));
      for (const key of entryKeys(before)) {
        if (!kept.has(valueKey(key))) this.s.forgetKey.run(customerId, before.schema, key.type, key.id, entryPk);
      }
      this.s.rewrite.run(JSON.stringify(after), entryPk);
    }
  }

  /** Deletes up to `limit` entries older than `before`, oldest first (entry_pk is commit order), with their index rows. */
  prune(before: string, limit: number): number {
    let deleted = 0;
    for (const row of this.s.oldest.all(limit) as Array<{ entry_pk: number; customer_id: string; at: string; entry: string }>) {
      if (row.at >= before) break;
      const entry = JSON.parse(row.entry) as HistoryEntry;
      for (const key of entryKeys(entry)) this.s.forgetKey.run(row.customer_id, entry.schema, key.type, key.id, row.entry_pk);
      for (const value of entryValues(entry)) this.s.forgetEntryValue.run(row.customer_id, value.type, value.id, row.entry_pk);
      this.s.deleteEntry.run(row.entry_pk);
      deleted += 1;
    }
    return deleted;
  }
}
