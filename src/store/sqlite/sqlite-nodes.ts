// The identity graph's writes on SQLite: nodes, the IDs they hold, and erasure, each inside a write transaction
// the store opens (src/store/sqlite/sqlite-store.ts), with its history entry (./sqlite-history.ts) in the same
// transaction. Nodes are rows of `nodes`, IDs rows of `ids`, and `node_ids` says which node holds which ID.
import type Database from 'better-sqlite3';
import { DomainError, isDomainError } from '../../domain/errors';
import {
  type EraseOutcome,
  type EraseRequest,
  type HistoryOp,
  type IdPair,
  type NodeAddress,
  type NodeRef,
  sameId,
  type SeparateRequest,
  type Separation,
  uniqueIds,
  type WriteAudit,
} from '../../domain/model';
import {
  eraseTooLarge,
  holderLimitReached,
  idExists,
  idsShared,
  limitedIds,
  nodeExists,
  nodeIdLimitReached,
  nodeNotFound,
  type SecureTypes,
  separatedNodes,
  separationNotFound,
  sharedKeyImmutable,
  wouldPassIdLimit,
} from '../../domain/refusals';
import type { CheckedNode, NodeWrite } from '../../domain/ports/node-writes';
import { isUniqueViolation, sqliteCode } from './sqlite-errors';
import type { SqliteDeliveries } from './sqlite-deliveries';
import { compareCodePoints } from '../../domain/code-point-order';
import { type NewEntry, redactedKey, type SqliteHistory, type StoredId } from './sqlite-history';
import type { SqliteSchemas } from './sqlite-schemas';
import { PERSON_SEARCH, type SqliteSearch } from './sqlite-search';
import { present } from '../../domain/invariant';

/** A node's row by what names it. */
type NodeKeyParams = [customerId: string, schemaId: string, keyType: string, keyId: string];
/** An ids row by what names it. */
type IdParams = [customerId: string, type: string, value: string];
type NodeRow = { schema_id: string; key_type: string; key_id: string };
type BanRow = Record<'s1' | 't1' | 'i1' | 's2' | 't2' | 'i2', string>;

export class SqliteNodes {
  private readonly s;

  constructor(
    private readonly db: Database.Database,
    private readonly schemas: SqliteSchemas,
    private readonly history: SqliteHistory,
    private readonly deliveries: SqliteDeliveries,
    private readonly reader: SqliteSearch,
  ) {
    this.s = {
      // max_holders: how many nodes hold an ID, counted up to the limit at most (a hot ID may have millions).
      holders: db
        .prepare<[idPk: number, limit: number], number>('SELECT COUNT(*) FROM (SELECT 1 FROM node_ids WHERE id_pk = ? LIMIT CAST(? AS INTEGER))')
        .pluck(),
      findNode: db.prepare<NodeKeyParams, number>('SELECT node_pk FROM nodes WHERE customer_id = ? AND schema_id = ? AND key_type = ? AND key_id = ?').pluck(),
      nodeByPk: db.prepare<[nodePk: number], NodeRow>('SELECT schema_id, key_type, key_id FROM nodes WHERE node_pk = ?'),
      keyIdPk: db
        .prepare<[nodePk: number], number>(
          'SELECT i.id_pk FROM nodes n JOIN ids i ON i.customer_id = n.customer_id AND i.type = n.key_type AND i.value = n.key_id WHERE n.node_pk = ?',
        )
        .pluck(),
      typeOfId: db.prepare<[idPk: number], string>('SELECT type FROM ids WHERE id_pk = ?').pluck(),
      idOfPk: db.prepare<[idPk: number], IdPair>('SELECT type, value AS id FROM ids WHERE id_pk = ?'),
      insertNode: db.prepare<NodeKeyParams>('INSERT INTO nodes (customer_id, schema_id, key_type, key_id) VALUES (?, ?, ?, ?)'),
      rekeyNode: db.prepare<[keyId: string, nodePk: number]>('UPDATE nodes SET key_id = ? WHERE node_pk = ?'),
      deleteNode: db.prepare<[nodePk: number]>('DELETE FROM nodes WHERE node_pk = ?'),
      findId: db.prepare<IdParams, number>('SELECT id_pk FROM ids WHERE customer_id = ? AND type = ? AND value = ?').pluck(),
      insertId: db.prepare<IdParams>('INSERT INTO ids (customer_id, type, value) VALUES (?, ?, ?) ON CONFLICT (customer_id, type, value) DO NOTHING'),
      isHeld: db.prepare<[idPk: number], 1>('SELECT 1 FROM node_ids WHERE id_pk = ? LIMIT 1').pluck(),
      holds: db.prepare<[nodePk: number, idPk: number], 1>('SELECT 1 FROM node_ids WHERE node_pk = ? AND id_pk = ?').pluck(),
      link: db.prepare<[nodePk: number, idPk: number]>('INSERT INTO node_ids (node_pk, id_pk) VALUES (?, ?)'),
      unlink: db.prepare<[nodePk: number, idPk: number]>('DELETE FROM node_ids WHERE node_pk = ? AND id_pk = ?'),
      // What deleting a node removes, in the order history lists it: by type, then value.
      heldIdPksSorted: db
        .prepare<[nodePk: number], number>('SELECT ni.id_pk FROM node_ids ni JOIN ids i ON i.id_pk = ni.id_pk WHERE ni.node_pk = ? ORDER BY i.type, i.value')
        .pluck(),
      // NodeAddress.maxIds: a range of the primary key (node_pk, id_pk), read only by writes that may grow the node;
      // 0.5 µs for a node of 5 IDs, 0.22 ms for one of 10,000 (docs/performance.md, "What one request may cost").
      heldCount: db.prepare<[nodePk: number], number>('SELECT COUNT(*) FROM node_ids WHERE node_pk = ?').pluck(),
      // The nodes this one is separated from that hold the ID: a write adding it is refused. Two index lookups when
      // the node has no ban.
      separatedHolder: db
        .prepare<[nodePk: number, samePk: number, idPk: number], number>(
          'SELECT s.other FROM (SELECT node_b AS other FROM separations WHERE node_a = ? UNION ALL SELECT node_a FROM separations WHERE node_b = ?) s ' +
            'JOIN node_ids ni ON ni.node_pk = s.other AND ni.id_pk = ? LIMIT 1',
        )
        .pluck(),
      hasBans: db
        .prepare<[nodePk: number, samePk: number], 1>('SELECT 1 FROM separations WHERE node_a = ? UNION ALL SELECT 1 FROM separations WHERE node_b = ? LIMIT 1')
        .pluck(),
      sharedIdPks: db
        .prepare<[a: number, b: number], number>(
          'SELECT a.id_pk FROM node_ids a JOIN node_ids b ON b.id_pk = a.id_pk JOIN ids i ON i.id_pk = a.id_pk WHERE a.node_pk = ? AND b.node_pk = ? ORDER BY i.type, i.value',
        )
        .pluck(),
      ban: db.prepare<[customerId: string, nodeA: number, nodeB: number]>(
        'INSERT INTO separations (customer_id, node_a, node_b) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
      ),
      unban: db.prepare<[nodeA: number, nodeB: number]>('DELETE FROM separations WHERE node_a = ? AND node_b = ?'),
      banCount: db.prepare<[customerId: string], number>('SELECT COUNT(*) FROM separations WHERE customer_id = ?').pluck(),
      // Each pair in code-point order (SQLite compares text as UTF-8 bytes, which is code-point order).
      bans: db.prepare<[customerId: string, limit: number, offset: number], BanRow>(
        'WITH p AS (SELECT na.schema_id AS sa, na.key_type AS ta, na.key_id AS ia, nb.schema_id AS sb, nb.key_type AS tb, nb.key_id AS ib ' +
          'FROM separations s JOIN nodes na ON na.node_pk = s.node_a JOIN nodes nb ON nb.node_pk = s.node_b WHERE s.customer_id = ?), ' +
          'o AS (SELECT (sa, ta, ia) < (sb, tb, ib) AS lo, * FROM p) ' +
          'SELECT CASE WHEN lo THEN sa ELSE sb END AS s1, CASE WHEN lo THEN ta ELSE tb END AS t1, CASE WHEN lo THEN ia ELSE ib END AS i1, ' +
          'CASE WHEN lo THEN sb ELSE sa END AS s2, CASE WHEN lo THEN tb ELSE ta END AS t2, CASE WHEN lo THEN ib ELSE ia END AS i2 ' +
          'FROM o ORDER BY s1, t1, i1, s2, t2, i2 LIMIT ? OFFSET ?',
      ),
      nodeIds: db.prepare<[nodePk: number], IdPair>(
        'SELECT i.type, i.value AS id FROM node_ids ni JOIN ids i ON i.id_pk = ni.id_pk WHERE ni.node_pk = ? ORDER BY i.type, i.value',
      ),
    };
  }

  /** `secure`: the types node_not_found hides the key of, when not those the write was checked against. */
  private nodePk(node: NodeAddress, secure?: () => SecureTypes): number {
    const pk = this.s.findNode.get(node.customerId, node.schemaId, node.key.type, node.key.id);
    if (pk === undefined) throw nodeNotFound(node, secure?.());
    return pk;
  }

  /**
   * The customer's secure types as its schemas declare them now, for a refusal that names a node no write was
   * checked against (the other node of a separation, the nodes _separate names).
   */
  private declaredSecureTypes(customerId: string): SecureTypes {
    return this.schemas.policy(customerId).secureTypes;
  }

  private idPk(customerId: string, id: IdPair): number | undefined {
    return this.s.findId.get(customerId, id.type, id.id);
  }

  /** The ids row of the key of the node `nodePk` (a node always holds its key). */
  private keyIdPk(nodePk: number): number {
    return present(this.s.keyIdPk.get(nodePk), "the ids row of a node's key");
  }

  /** COUNT(*) always answers one row. */
  private count(counted: number | undefined): number {
    return present(counted, 'the row of COUNT(*)');
  }

  /** Insert first: in bulk loads most IDs are new, and then one statement does. */
  private ensureIdPk(customerId: string, id: IdPair): number {
    const inserted = this.s.insertId.run(customerId, id.type, id.id);
    return inserted.changes > 0 ? Number(inserted.lastInsertRowid) : present(this.idPk(customerId, id), 'the ids row just inserted');
  }

  private holds(nodePk: number, customerId: string, id: IdPair): number | undefined {
    const idPk = this.idPk(customerId, id);
    return idPk !== undefined && this.s.holds.get(nodePk, idPk) !== undefined ? idPk : undefined;
  }

  /** The ids row stays: the write's history entry names the ID (erasure and retention delete it; migration 5). */
  private unlink(nodePk: number, idPk: number): void {
    this.s.unlink.run(nodePk, idPk);
  }

  /**
   * The address a write goes to: its check run on the schema and the policy as they are now, inside the write's
   * transaction (writes run one at a time, so what it read holds until the write commits).
   */
  private addressOf(target: CheckedNode): NodeAddress {
    return target.check({ schema: this.schemas.get(target.customerId, target.schemaId), policy: this.schemas.policy(target.customerId) });
  }

  /** Refuses (DomainError) only before its first write: apply runs it without a savepoint of its own. */
  create(target: CheckedNode, ids: IdPair[]): void {
    const node = this.addressOf(target);
    const held = uniqueIds([node.key, ...ids]);
    if (wouldPassIdLimit(node, 0, held.length)) throw nodeIdLimitReached(node);
    this.refuseIfOverHolderLimit(node, held);
    let nodePk: number;
    try {
      nodePk = Number(this.s.insertNode.run(node.customerId, node.schemaId, node.key.type, node.key.id).lastInsertRowid);
    } catch (e) {
      if (isUniqueViolation(e)) throw nodeExists(node);
      // The domain checked the schema, but a concurrent delete may have removed it since.
      if (sqliteCode(e) === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
        throw new DomainError('schema_not_found', `Schema '${node.schemaId}' does not exist.`);
      }
      throw e;
    }
    const idPks = held.map((id) => {
      const idPk = this.ensureIdPk(node.customerId, id);
      this.s.link.run(nodePk, idPk);
      return idPk;
    });
    // `held` starts with the key.
    this.record(node, 'create', idPks, [], { keyPk: idPks[0] });
  }

  /**
   * Appends the history entry of a write of `node`, in the write's transaction: the IDs it added and removed as their
   * ids rows; the key's row is looked up unless given.
   */
  private record(node: NodeAddress, op: HistoryOp, added: number[], removed: number[], keys: { keyPk?: number; newKeyPk?: number } = {}): void {
    this.history.append(node.customerId, {
      schemaId: node.schemaId,
      keyType: node.key.type,
      keyPk: keys.keyPk ?? present(this.idPk(node.customerId, node.key), "the ids row of the node's key"),
      ...(keys.newKeyPk !== undefined ? { newKeyPk: keys.newKeyPk } : {}),
      op,
      audit: node.audit,
      added,
      removed,
    });
  }

  /** node_id_limit_reached when linking `adding` more IDs would take the node past NodeAddress.maxIds. Inside the write. */
  private refuseIfOverIdLimit(node: NodeAddress, nodePk: number, adding: number): void {
    if (node.maxIds === undefined) return;
    if (wouldPassIdLimit(node, this.count(this.s.heldCount.get(nodePk)), adding)) throw nodeIdLimitReached(node);
  }

  /**
   * holder_limit_reached when one more node holding one of `adding` (IDs the node does not hold) would take it past
   * its type's maxHolders. Inside the write, where writes run one at a time: the count stays true until commit.
   */
  private refuseIfOverHolderLimit(node: NodeAddress, adding: IdPair[]): void {
    for (const { id, maxHolders } of limitedIds(node, adding)) {
      const idPk = this.idPk(node.customerId, id);
      if (idPk !== undefined && this.count(this.s.holders.get(idPk, maxHolders)) >= maxHolders) throw holderLimitReached(id, maxHolders);
    }
  }

  /**
   * separated_nodes when a node this one is separated from holds one of `adding`. Inside the write, where writes
   * run one at a time: what it read stays true until commit.
   */
  private refuseIfSeparated(node: NodeAddress, nodePk: number, adding: IdPair[]): void {
    if (adding.length === 0 || this.s.hasBans.get(nodePk, nodePk) === undefined) return;
    for (const id of adding) {
      const idPk = this.idPk(node.customerId, id);
      const other = idPk === undefined ? undefined : this.s.separatedHolder.get(nodePk, nodePk, idPk);
      if (other !== undefined) throw separatedNodes(node, this.nodeRow(other), this.declaredSecureTypes(node.customerId));
    }
  }

  insert(target: CheckedNode, ids: IdPair[]): void {
    const node = this.addressOf(target);
    const nodePk = this.nodePk(node);
    for (const id of ids) {
      if (this.holds(nodePk, node.customerId, id) !== undefined) throw idExists(node, id);
    }
    const adding = uniqueIds(ids);
    this.refuseIfOverIdLimit(node, nodePk, adding.length);
    this.refuseIfOverHolderLimit(node, adding);
    this.refuseIfSeparated(node, nodePk, adding);
    const idPks = adding.map((id) => {
      const idPk = this.ensureIdPk(node.customerId, id);
      this.s.link.run(nodePk, idPk);
      return idPk;
    });
    this.record(node, 'insert', idPks, []);
  }

  replace(target: CheckedNode, where: IdPair, set: IdPair, upsert: boolean): void {
    const node = this.addressOf(target);
    const nodePk = this.nodePk(node);
    const whereIdPk = this.holds(nodePk, node.customerId, where);
    const setHeld = this.holds(nodePk, node.customerId, set) !== undefined;
    if (whereIdPk === undefined) {
      if (upsert && !setHeld) {
        this.refuseIfOverIdLimit(node, nodePk, 1);
        this.refuseIfOverHolderLimit(node, [set]);
        this.refuseIfSeparated(node, nodePk, [set]);
        const setIdPk = this.ensureIdPk(node.customerId, set);
        this.s.link.run(nodePk, setIdPk);
        this.record(node, 'upsert', [setIdPk], []);
      }
      return;
    }
    if (where.type === set.type && where.id === set.id) return;
    if (setHeld) throw idExists(node, set);
    this.refuseIfOverHolderLimit(node, [set]);
    this.refuseIfSeparated(node, nodePk, [set]);
    this.unlink(nodePk, whereIdPk);
    const setIdPk = this.ensureIdPk(node.customerId, set);
    this.s.link.run(nodePk, setIdPk);
    this.record(node, upsert ? 'upsert' : 'update', [setIdPk], [whereIdPk]);
  }

  rekey(target: CheckedNode, newId: string): void {
    const node = this.addressOf(target);
    const nodePk = this.nodePk(node);
    if (newId === node.key.id) return;
    const newKey = { type: node.key.type, id: newId };
    if (this.s.findNode.get(node.customerId, node.schemaId, newKey.type, newKey.id) !== undefined) throw nodeExists(node, newKey);
    const heldNewKey = this.holds(nodePk, node.customerId, newKey);
    if (heldNewKey === undefined) {
      this.refuseIfOverHolderLimit(node, [newKey]);
      this.refuseIfSeparated(node, nodePk, [newKey]);
    }
    this.s.rekeyNode.run(newId, nodePk);
    const oldIdPk = present(this.holds(nodePk, node.customerId, node.key), 'the key the node holds');
    this.unlink(nodePk, oldIdPk);
    const newIdPk = heldNewKey ?? this.ensureIdPk(node.customerId, newKey);
    if (heldNewKey === undefined) this.s.link.run(nodePk, newIdPk);
    this.record(node, 'rekeying', [newIdPk], [oldIdPk], { keyPk: oldIdPk, newKeyPk: newIdPk });
  }

  removeId(target: CheckedNode, id: IdPair): void {
    const node = this.addressOf(target);
    const nodePk = this.nodePk(node);
    const idPk = this.holds(nodePk, node.customerId, id);
    if (idPk === undefined) return;
    this.unlink(nodePk, idPk);
    this.record(node, 'delete', [], [idPk]);
  }

  delete(target: CheckedNode): void {
    const node = this.addressOf(target);
    const nodePk = this.nodePk(node);
    const held = this.s.heldIdPksSorted.all(nodePk);
    const keyPk = present(this.idPk(node.customerId, node.key), "the ids row of the node's key");
    this.s.deleteNode.run(nodePk);
    this.record(node, 'delete', [], held, { keyPk });
  }

  /**
   * One IMMEDIATE transaction for the whole batch and a savepoint per write (better-sqlite3 turns a nested
   * transaction into a savepoint): a refused write is rolled back alone, and the batch pays for one commit.
   * A create needs none: every refusal of a create, its check's included, comes before its first write (create). SQLite copies each
   * page a savepoint changes into a sub-journal, in memory up to 64 KiB and then in a temporary file: with them a
   * bulk load of creates ran at half the rate (300,000 IDs: 55k IDs/s, 102k without). A fault (not a refusal)
   * fails the whole batch either way.
   */
  apply(writes: NodeWrite[]): Array<DomainError | undefined> {
    return writes.map((w) => {
      try {
        if (w.kind === 'create') this.create(w.node, w.ids);
        else this.db.transaction(() => this.applyNow(w))();
        return undefined;
      } catch (e) {
        if (isDomainError(e)) return e;
        throw e;
      }
    });
  }

  private applyNow(w: NodeWrite): void {
    switch (w.kind) {
      case 'create':
        return this.create(w.node, w.ids);
      case 'insert':
        return this.insert(w.node, w.ids);
      case 'replace':
        return this.replace(w.node, w.where, w.set, w.upsert);
      case 'removeId':
        return this.removeId(w.node, w.id);
      case 'deleteNode':
        return this.delete(w.node);
    }
  }

  /** Store.separate: the shared IDs leave the side named, then the ban is stored; both nodes' history records it. */
  separate(r: SeparateRequest): { idsRemoved: number } {
    const declared = () => this.declaredSecureTypes(r.customerId);
    const a = this.nodePk({ customerId: r.customerId, ...r.a }, declared);
    const b = this.nodePk({ customerId: r.customerId, ...r.b }, declared);
    const shared = this.s.sharedIdPks.all(a, b);
    if (shared.length > 0 && r.removeSharedFrom === 'none') throw idsShared(r.a, r.b);
    const [from, fromPk] = r.removeSharedFrom === 'b' ? [r.b, b] : [r.a, a];
    const fromKeyPk = this.keyIdPk(fromPk);
    if (shared.includes(fromKeyPk)) throw sharedKeyImmutable(from);
    for (const idPk of shared) this.unlink(fromPk, idPk);
    this.s.ban.run(r.customerId, Math.min(a, b), Math.max(a, b));
    this.recordBan(r.customerId, r.a, 'separate', r.audit, r.removeSharedFrom === 'a' ? shared : []);
    this.recordBan(r.customerId, r.b, 'separate', r.audit, r.removeSharedFrom === 'b' ? shared : []);
    return { idsRemoved: shared.length };
  }

  unseparate(customerId: string, ra: NodeRef, rb: NodeRef, audit: WriteAudit): void {
    const declared = () => this.declaredSecureTypes(customerId);
    const a = this.nodePk({ customerId, ...ra }, declared);
    const b = this.nodePk({ customerId, ...rb }, declared);
    if (this.s.unban.run(Math.min(a, b), Math.max(a, b)).changes === 0) throw separationNotFound(ra, rb);
    this.recordBan(customerId, ra, 'unseparate', audit, []);
    this.recordBan(customerId, rb, 'unseparate', audit, []);
  }

  private recordBan(customerId: string, n: NodeRef, op: HistoryOp, audit: WriteAudit, removed: number[]): void {
    this.record({ customerId, ...n, audit }, op, [], removed);
  }

  separations(customerId: string, offset: number, limit: number): { items: Separation[]; total: number } {
    const rows = this.s.bans.all(customerId, limit, offset);
    return {
      items: rows.map((r) => ({ a: { schemaId: r.s1, key: { type: r.t1, id: r.i1 } }, b: { schemaId: r.s2, key: { type: r.t2, id: r.i2 } } })),
      total: this.count(this.s.banCount.get(customerId)),
    };
  }

  /** The IDs the node holds, in type then value order; undefined when there is no such node. */
  ids(node: NodeAddress): IdPair[] | undefined {
    const pk = this.s.findNode.get(node.customerId, node.schemaId, node.key.type, node.key.id);
    return pk === undefined ? undefined : this.s.nodeIds.all(pk);
  }

  /** Store.erase, in one write transaction (the store checkpoints the WAL after it). */
  erase(r: EraseRequest): EraseOutcome {
    const c = r.customerId;
    const holders = this.reader.holdersOf(c, r.id);
    // The erased ID's row may be there with no holder: history still names it.
    const idPk = this.idPk(c, r.id);
    /** The ids rows the erase takes from nodes, or that deleted nodes held. */
    const freed = new Set<number>();
    /** A node's erase entry: the IDs it lost, the erased ones by their row (which will show the type alone), others by type. */
    const eraseEntry = (node: { schemaId: string; key: IdPair; keyPk: number }, lost: number[], erased: ReadonlySet<number>): NewEntry => ({
      schemaId: node.schemaId,
      keyType: node.key.type,
      keyPk: node.keyPk,
      op: 'erase',
      audit: r.audit,
      added: [],
      removed: lost.map((pk): StoredId => (erased.has(pk) ? pk : [present(this.s.typeOfId.get(pk), 'the ids row a node held')])),
    });
    const deleteNodeRow = (nodePk: number): number[] => {
      const held = this.s.heldIdPksSorted.all(nodePk);
      for (const pk of held) freed.add(pk);
      this.s.deleteNode.run(nodePk);
      return held;
    };
    const finish = (erased: ReadonlySet<number>, entries: NewEntry[]) => {
      // Each erase entry redacts the entries written under its node's key that named an erased ID; those under a
      // key it appends nothing to get an erase entry of their own, in the order of their keys
      // (docs/changes-and-export.md).
      const groups = this.history.naming(c, erased);
      for (const entry of entries) {
        const key = redactedKey(entry.schemaId, entry.keyPk);
        entry.redacts = groups.get(key)?.entryPks ?? [];
        groups.delete(key);
      }
      const others = [...groups.values()].map((g) => ({ ...g, key: present(this.s.idOfPk.get(g.keyPk), 'the ids row of a key history names') }));
      others.sort((a, b) => compareCodePoints(a.schemaId, b.schemaId) || compareCodePoints(a.key.type, b.key.type) || compareCodePoints(a.key.id, b.key.id));
      for (const g of others) {
        entries.push({ schemaId: g.schemaId, keyType: g.key.type, keyPk: g.keyPk, op: 'erase', audit: r.audit, added: [], removed: [], redacts: g.entryPks });
      }
      let lastEntry = this.history.lastEntryPk();
      for (const entry of entries) lastEntry = this.history.append(c, entry);
      this.history.tookAway(freed, lastEntry);
      this.history.erase(erased, lastEntry);
    };
    if (r.scope === 'id') {
      if (holders.length > r.maxNodes) throw eraseTooLarge(r);
      const erased = new Set(idPk === undefined ? [] : [idPk]);
      const entries: NewEntry[] = [];
      let nodesDeleted = 0;
      for (const nodePk of holders) {
        const node = { ...this.nodeRow(nodePk), keyPk: this.keyIdPk(nodePk) };
        if (sameId(node.key, r.id)) {
          entries.push(eraseEntry(node, deleteNodeRow(nodePk), erased));
          nodesDeleted += 1;
        } else {
          const heldPk = present(idPk, 'the ids row of an ID a node holds');
          this.unlink(nodePk, heldPk);
          freed.add(heldPk);
          entries.push(eraseEntry(node, [heldPk], erased));
        }
      }
      finish(erased, entries);
      this.deliveries.eraseImpressions(c, [r.id]);
      return { nodesDeleted, idsRemoved: holders.length - nodesDeleted };
    }
    // scope person: every node of the component, found as a search with step ALL from every holder finds them.
    const component = holders.length === 0 ? [] : [...this.personOf(holders, r)];
    const nodes = component.map((nodePk) => ({ nodePk, ...this.nodeRow(nodePk), keyPk: this.keyIdPk(nodePk) }));
    // What the person's nodes hold, and every ID their history (followed back through rekeyings) ever named.
    const candidates = this.history.namedByKeys(nodes.map((n) => ({ schemaId: n.schemaId, keyPk: n.keyPk })));
    if (idPk !== undefined) candidates.add(idPk);
    const deleted = nodes.map((node) => ({ node, lost: deleteNodeRow(node.nodePk) }));
    for (const { lost } of deleted) for (const pk of lost) candidates.add(pk);
    // A value another node still holds (a `links: false` ID, such as a shared device) is not this person's alone.
    const erased = new Set([...candidates].filter((pk) => this.s.isHeld.get(pk) === undefined));
    // Impressions go with the values: read before finish() turns the rows into tombstones. The ID given counts too
    // when no row names it (impressions recorded against an ID no node ever held).
    const erasedValues = [...erased].map((pk) => present(this.s.idOfPk.get(pk), 'an erased ids row'));
    if (idPk === undefined) erasedValues.push(r.id);
    this.deliveries.eraseImpressions(c, erasedValues);
    finish(
      erased,
      deleted.map(({ node, lost }) => eraseEntry(node, lost, erased)),
    );
    return { nodesDeleted: nodes.length, idsRemoved: 0 };
  }

  /** The nodes a search with step ALL reaches from `holders`; eraseTooLarge past the request's bounds. */
  private personOf(holders: number[], r: EraseRequest): Set<number> {
    try {
      return this.reader.traverse(holders, { ...PERSON_SEARCH, ...r }).nodes;
    } catch (e) {
      throw isDomainError(e) && e.code === 'component_too_large' ? eraseTooLarge(r) : e;
    }
  }

  private nodeRow(nodePk: number): { schemaId: string; key: IdPair } {
    const row = present(this.s.nodeByPk.get(nodePk), 'the node a row names');
    return { schemaId: row.schema_id, key: { type: row.key_type, id: row.key_id } };
  }
}
