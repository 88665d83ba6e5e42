// Imports on SQLite (docs/changes-and-export.md): an export's records written straight into the tables, a batch per
// write transaction, for a customer no other request writes to meanwhile. The row of `imports` (migration 11) marks
// the customer until the import finishes, or is undone: then every row of the customer but its settings, blocklist,
// tokens and id counters is deleted. Called inside the store's write transactions.
import type Database from 'better-sqlite3';
import { DomainError } from '../../domain/errors';
import type { BlockRule } from '../../domain/blocklist';
import type { CustomerSettings, HistoryId, IdPair } from '../../domain/model';
import type { ImportBatch, ImportRefusal } from '../../domain/ports/imports';
import type { DeliveryIdsGiven } from '../../domain/ports/snapshots';
import { present } from '../../domain/invariant';
import { deliveryDocument } from '../delivery-document';
import type { SqliteDeliveries } from './sqlite-deliveries';
import type { SqliteHistory, StoredId } from './sqlite-history';
import type { SqliteSchemas } from './sqlite-schemas';

/** Thrown inside a batch's transaction to undo it, and answered as the refusal it carries. */
export class RefusedBatch extends Error {
  constructor(readonly refusal: ImportRefusal) {
    super('an import batch names what the import did not write');
  }
}

export class SqliteImport {
  private readonly s;

  constructor(
    db: Database.Database,
    private readonly schemas: SqliteSchemas,
    private readonly history: SqliteHistory,
    private readonly deliveries: SqliteDeliveries,
  ) {
    this.s = {
      marked: db.prepare<[customerId: string], 1>('SELECT 1 FROM imports WHERE customer_id = ?').pluck(),
      // What makes a customer not empty: anything an import would write, history included (undoing an import
      // deletes the customer's history).
      holdsAnything: db
        .prepare<{ customer: string }, 1>(
          'SELECT 1 WHERE EXISTS (SELECT 1 FROM schemas WHERE customer_id = @customer) OR EXISTS (SELECT 1 FROM nodes WHERE customer_id = @customer) ' +
            'OR EXISTS (SELECT 1 FROM separations WHERE customer_id = @customer) OR EXISTS (SELECT 1 FROM deliveries WHERE customer_id = @customer) ' +
            'OR EXISTS (SELECT 1 FROM history WHERE customer_id = @customer)',
        )
        .pluck(),
      mark: db.prepare<[customerId: string, at: number]>('INSERT INTO imports (customer_id, touched_at) VALUES (?, ?)'),
      touch: db.prepare<[at: number, customerId: string]>('UPDATE imports SET touched_at = ? WHERE customer_id = ?'),
      unmark: db.prepare<[customerId: string]>('DELETE FROM imports WHERE customer_id = ?'),
      idle: db.prepare<[before: number], string>('SELECT customer_id FROM imports WHERE touched_at <= ? ORDER BY customer_id').pluck(),
      // The rows an import makes are read back by their rowid (run()'s lastInsertRowid), not by RETURNING, which cost
      // more than the insert itself: an import of a million IDs took half as long again with it.
      insertNode: db.prepare<[customerId: string, schemaId: string, keyType: string, keyId: string]>(
        'INSERT INTO nodes (customer_id, schema_id, key_type, key_id) VALUES (?, ?, ?, ?)',
      ),
      // The row of an ID: made when missing, else found. Two statements where one upsert (DO UPDATE, so that
      // RETURNING answers an existing row too) would do: that one rewrites the row it finds, and an import finds
      // most of its IDs a second time, in the history of the keys that hold them.
      newId: db.prepare<[customerId: string, type: string, value: string]>(
        'INSERT INTO ids (customer_id, type, value) VALUES (?, ?, ?) ON CONFLICT (customer_id, type, value) DO NOTHING',
      ),
      findId: db
        .prepare<[customerId: string, type: string, value: string], number>('SELECT id_pk FROM ids WHERE customer_id = ? AND type = ? AND value = ?')
        .pluck(),
      // An erased key's row: made in the customer, then moved out of it as an erase moves one (sqlite-history.ts).
      erasedPk: db
        .prepare<[type: string], number>("INSERT INTO ids (customer_id, type, value) VALUES ('', ?, 'importing ' || hex(randomblob(16))) RETURNING id_pk")
        .pluck(),
      hold: db.prepare<[nodePk: number, idPk: number]>('INSERT INTO node_ids (node_pk, id_pk) VALUES (?, ?)'),
      findNode: db
        .prepare<[customerId: string, schemaId: string, keyType: string, keyId: string], number>(
          'SELECT node_pk FROM nodes WHERE customer_id = ? AND schema_id = ? AND key_type = ? AND key_id = ?',
        )
        .pluck(),
      ban: db.prepare<[customerId: string, nodeA: number, nodeB: number]>(
        'INSERT INTO separations (customer_id, node_a, node_b) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
      ),
      given: db.prepare<[customerId: string, name: keyof DeliveryIdsGiven, last: number]>(
        'INSERT INTO delivery_sequences (customer_id, name, last) VALUES (?, ?, ?) ON CONFLICT (customer_id, name) DO UPDATE SET last = max(last, excluded.last)',
      ),
      insertDelivery: db.prepare<[customerId: string, deliveryId: number, conditionId: number, document: string]>(
        'INSERT INTO deliveries (customer_id, delivery_id, condition_id, document) VALUES (?, ?, ?, ?)',
      ),
      insertCounts: db.prepare<[customerId: string, deliveryId: number, deliveryCount: number, iphoneCount: number, androidCount: number]>(
        'INSERT INTO delivery_counts (customer_id, delivery_id, delivery_count, iphone_count, android_count) VALUES (?, ?, ?, ?, ?)',
      ),
      insertImpressions: db.prepare<[customerId: string, idType: string, idValue: string, deliveryId: number, day: string, count: number]>(
        'INSERT INTO impression_counts (customer_id, id_type, id_value, delivery_id, day, count) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      undo: [
        'DELETE FROM separations WHERE customer_id = @customer',
        'DELETE FROM node_ids WHERE node_pk IN (SELECT node_pk FROM nodes WHERE customer_id = @customer)',
        'DELETE FROM nodes WHERE customer_id = @customer',
        "DELETE FROM ids WHERE customer_id = '' AND id_pk IN (SELECT key_pk FROM history WHERE customer_id = @customer)",
        'DELETE FROM history WHERE customer_id = @customer',
        'DELETE FROM ids WHERE customer_id = @customer',
        'DELETE FROM schema_id_types WHERE customer_id = @customer',
        'DELETE FROM schemas WHERE customer_id = @customer',
        'DELETE FROM delivery_counts WHERE customer_id = @customer',
        'DELETE FROM deliveries WHERE customer_id = @customer',
        'DELETE FROM impression_counts WHERE customer_id = @customer',
        'DELETE FROM impression_keys WHERE customer_id = @customer',
        'DELETE FROM imports WHERE customer_id = @customer',
      ].map((sql) => db.prepare<{ customer: string }>(sql)),
    };
  }

  begin(customerId: string): void {
    if (this.s.marked.get(customerId) !== undefined) throw importInProgress();
    if (this.s.holdsAnything.get({ customer: customerId }) !== undefined) {
      throw new DomainError('customer_not_empty', 'The customer holds schemas, nodes, separations, deliveries or history: an import needs an empty customer.');
    }
    this.s.mark.run(customerId, Date.now());
  }

  /** The batch, in export order; throws RefusedBatch, which undoes the transaction, for a ban of a node not written. */
  batch(c: string, batch: ImportBatch): void {
    if (this.s.marked.get(c) === undefined) throw new DomainError('import_in_progress', 'No import of this customer is under way.');
    for (const schema of batch.schemas) this.schemas.put(c, schema);
    for (const node of batch.nodes) {
      const pk = Number(this.s.insertNode.run(c, node.schemaId, node.key.type, node.key.id).lastInsertRowid);
      for (const held of [node.key, ...node.ids]) this.s.hold.run(pk, this.idPk(c, held));
    }
    batch.separations.forEach((ban, index) => {
      const a = this.s.findNode.get(c, ban.a.schemaId, ban.a.key.type, ban.a.key.id);
      const b = this.s.findNode.get(c, ban.b.schemaId, ban.b.key.type, ban.b.key.id);
      if (a === undefined || b === undefined || a === b) throw new RefusedBatch({ separation: index });
      this.s.ban.run(c, Math.min(a, b), Math.max(a, b));
    });
    if (batch.deliveryIds) for (const name of ['delivery', 'condition', 'message'] as const) this.s.given.run(c, name, batch.deliveryIds[name]);
    for (const d of batch.deliveries) {
      this.s.insertDelivery.run(c, d.deliveryId, d.condition.conditionId, deliveryDocument(d));
      this.s.insertCounts.run(c, d.deliveryId, d.condition.deliveryCount, d.condition.iphoneDeliveryCount, d.condition.androidDeliveryCount);
    }
    if (batch.deliveries.length > 0) this.deliveries.forget(c);
    for (const t of batch.impressions) for (const { day, count } of t.days) this.s.insertImpressions.run(c, t.id.type, t.id.id, t.deliveryId, day, count);
    for (const key of batch.history) {
      // One row for the erased keys of a schema and type: they are one group, and stay one.
      const keyPk = key.key.id === null ? this.s.erasedPk.get(key.key.type) : this.namedIdPk(c, { type: key.key.type, id: key.key.id });
      const pk = present(keyPk, 'the id_pk RETURNING answers');
      let last = 0;
      for (const e of key.entries) {
        const newKey = e.op === 'rekeying' ? e.added[0] : undefined;
        last = this.history.appendImported(c, {
          schemaId: key.schemaId,
          keyType: key.key.type,
          keyPk: pk,
          ...(newKey && newKey.id !== null ? { newKeyPk: this.namedIdPk(c, { type: newKey.type, id: newKey.id }) } : {}),
          op: e.op,
          audit: { requestId: e.requestId, actor: e.actor },
          added: e.added.map((x) => this.storedId(c, x)),
          removed: e.removed.map((x) => this.storedId(c, x)),
          at: Date.parse(e.at),
        });
      }
      if (key.key.id === null) this.history.erase([pk], last);
    }
    this.s.touch.run(Date.now(), c);
  }

  finish(customerId: string, settings: CustomerSettings, blockRules: BlockRule[]): void {
    if (this.s.marked.get(customerId) === undefined) throw new DomainError('import_in_progress', 'No import of this customer is under way.');
    this.schemas.putSettings(customerId, settings);
    this.schemas.putBlocklist(customerId, blockRules);
    this.s.unmark.run(customerId);
  }

  /** Deletes what the import wrote; a customer not marked (its import finished after all) is left as it is. */
  abandon(customerId: string): void {
    if (this.s.marked.get(customerId) === undefined) return;
    for (const statement of this.s.undo) statement.run({ customer: customerId });
    this.schemas.forget(customerId);
    this.deliveries.forget(customerId);
  }

  unfinished(idleMs: number): string[] {
    return this.s.idle.all(Date.now() - idleMs);
  }

  /** The row of an ID a node holds: most are new to an import, so it is made first, and found when it was there. */
  private idPk(customerId: string, id: IdPair): number {
    const made = this.s.newId.run(customerId, id.type, id.id);
    const pk = made.changes === 1 ? Number(made.lastInsertRowid) : this.s.findId.get(customerId, id.type, id.id);
    return present(pk, 'the row of an ID, made or found');
  }

  /** The row of an ID history names: most are held by the nodes written before, so it is found first. */
  private namedIdPk(customerId: string, id: IdPair): number {
    return this.s.findId.get(customerId, id.type, id.id) ?? this.idPk(customerId, id);
  }

  /** An ID as an entry stores it: its row, or [type] where the value was erased. */
  private storedId(customerId: string, id: HistoryId): StoredId {
    return id.id === null ? [id.type] : this.namedIdPk(customerId, { type: id.type, id: id.id });
  }
}

const importInProgress = () => new DomainError('import_in_progress', 'An import of this customer is under way; retry once it has ended.');
