// The port of exports (docs/changes-and-export.md): a customer's whole state, read as of one position of its change
// feed, in the order an export lists it. A store reads it in pages, so that what it holds at once does not grow with
// the customer, and from one consistent view: every node write up to the position, and none after it.
import type { BlockRule } from '../blocklist';
import type { CustomerSettings, HistoryEntry, HistoryId, IdPair, SchemaRecord, Separation } from '../model';
import type { Delivery } from './deliveries';

/** A node as an export lists it: its IDs without its key, in code-point order of type, then id. */
export interface SnapshotNode {
  schemaId: string;
  key: IdPair;
  ids: IdPair[];
}

/** The last delivery, condition and message ids the customer was given (0: none), deleted deliveries' included. */
export interface DeliveryIdsGiven {
  delivery: number;
  condition: number;
  message: number;
}

/** What one delivery's caps counted against one ID (as it was recorded), per calendar day, days in order. */
export interface ImpressionTally {
  deliveryId: number;
  id: IdPair;
  days: Array<{ day: string; count: number }>;
}

/**
 * The entries written under one node key (a rekeying under the key it left), oldest first. Entries whose key an
 * erase took are under one key per schema and type, `{type, id: null, erased: true}`, after that type's other keys.
 */
export interface KeyHistory {
  schemaId: string;
  key: HistoryId;
  entries: HistoryEntry[];
}

/** One part of a snapshot, in the order a store yields them; the kinds that can be many come in pages. */
export type SnapshotPart =
  | { kind: 'settings'; settings: CustomerSettings }
  | { kind: 'blocklist'; rules: BlockRule[] }
  | { kind: 'schemas'; schemas: SchemaRecord[] }
  | { kind: 'nodes'; nodes: SnapshotNode[] }
  | { kind: 'separations'; separations: Separation[] }
  | { kind: 'deliveryIds'; given: DeliveryIdsGiven }
  | { kind: 'deliveries'; deliveries: Delivery[] }
  | { kind: 'impressions'; tallies: ImpressionTally[] }
  | { kind: 'history'; keys: KeyHistory[] };

export interface SnapshotOptions {
  /** Whether the history parts come at the end. */
  history: boolean;
}

/** An open view of one customer's state. */
export interface Snapshot {
  /** The newest position of the change feed the view includes: every change up to it, none after it. */
  position: number;
  /**
   * Settings, blocklist, schemas (code-point order of their ids), nodes (code-point order of schema, key type, key
   * id), separations (as listSeparations orders them), the delivery ids given, deliveries (by id), impression
   * tallies (by ID in code-point order, then delivery) and, with `history`, each key's entries (keys in the nodes'
   * order). Read as the caller pulls them: a caller that stops pulling holds the view open.
   */
  parts: AsyncIterable<SnapshotPart>;
  /** Ends the view; call it whether the parts were read to the end or not. */
  close(): Promise<void>;
}

export interface SnapshotStore {
  /** Opens a view of the customer's state, as of one position of its change feed. Tokens are never part of it. */
  openSnapshot(customerId: string, options: SnapshotOptions): Promise<Snapshot>;
}
