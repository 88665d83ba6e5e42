// The port of imports (docs/changes-and-export.md): an export written into an empty customer, in batches, by
// the domain (../import.ts), which has checked every record as the write it stands for would be checked. No other
// writer touches an importing customer (the service answers its other requests 503 import_in_progress), so a store
// writes a batch as directly as it can. An import that fails, or that a crash interrupts, is undone: a mark kept in the
// store says which customer is importing until the import ends.
import type { BlockRule } from '../blocklist';
import type { CustomerSettings, SchemaRecord, Separation } from '../model';
import type { Delivery } from './deliveries';
import type { DeliveryIdsGiven, ImpressionTally, KeyHistory, SnapshotNode } from './snapshots';

/** Records of an export to write, in its order: a batch's records come after those of the batches before it. */
export interface ImportBatch {
  schemas: SchemaRecord[];
  /** Each in a schema of this import, with types it declares; keys distinct across the import. */
  nodes: SnapshotNode[];
  /** Each between two nodes of this import (of this batch or an earlier one). */
  separations: Separation[];
  /** At most once per import, before its deliveries. */
  deliveryIds?: DeliveryIdsGiven;
  /** With their ids and counts as exported; ids distinct. */
  deliveries: Delivery[];
  /** Of deliveries of this import. */
  impressions: ImpressionTally[];
  /** The entries are written as they are (time, request id, actor); each gets a new position in the feed, in order. */
  history: KeyHistory[];
}

/** What importBatch found a batch's records name that is not there. */
export interface ImportRefusal {
  /** The index in batch.separations of a ban naming a node this import did not write. */
  separation: number;
}

/** How a store takes an import's batches. */
export interface ImportBatching {
  /**
   * The records a batch should carry at most, IDs and history entries counted one each: what the store writes
   * fastest per record in one transaction.
   */
  weight: number;
  /**
   * How many batches of nodes and history alone it writes at once, each all or nothing, committed in any order. A
   * batch with anything else (schemas, separations, deliveries and their ids and impressions, which name records of
   * other batches) is written alone: after every batch before it, and before any after it.
   */
  atOnce: number;
}

export interface ImportStore {
  importBatching(): Promise<ImportBatching>;
  /**
   * Marks the customer as importing; customer_not_empty when it has a schema, node, separation or delivery (its
   * settings, blocklist and tokens may be there: they are kept, or replaced when the import finishes), and
   * import_in_progress when it is marked already.
   */
  beginImport(customerId: string): Promise<void>;
  /**
   * Writes the batch, all of it or (a refusal, or an error) none of it; the mark records when. Called in the export's
   * order, with up to importBatching().atOnce batches under way: a batch's history entries take the feed positions
   * after those of the batches called before it.
   */
  importBatch(customerId: string, batch: ImportBatch): Promise<ImportRefusal | undefined>;
  /** Writes the settings and blocklist the export had, and removes the mark, in one transaction. */
  finishImport(customerId: string, settings: CustomerSettings, blockRules: BlockRule[]): Promise<void>;
  /**
   * Deletes what the import wrote (the customer was empty: every schema, node, separation, delivery, impression and
   * history entry of the customer) and the mark; its settings, blocklist and tokens stay as they were.
   */
  abandonImport(customerId: string): Promise<void>;
  /**
   * The customers marked as importing whose import wrote nothing for `idleMs` or more (since it began or since its
   * last batch): imports an interrupted process left, which the service abandons.
   */
  unfinishedImports(idleMs: number): Promise<string[]>;
}
