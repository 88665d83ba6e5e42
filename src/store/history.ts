// History entries and erasure (docs/history-and-erasure.md) as values: what both stores show (erasedId, NO_AUDIT), and
// how the Neo4j store builds an entry and rewrites it in an erase. (SQLite names IDs by their rows instead, and an
// erase changes the row: ./sqlite/sqlite-history.ts.)
import type { HistoryEntry, HistoryId, HistoryOp, IdPair, NodeAddress, WriteAudit } from '../domain/model';
import type { NodeWrite } from '../domain/ports/node-writes';

/** The audit of a write that names none (a store used directly, as the contract suite does). */
export const NO_AUDIT: WriteAudit = { requestId: '', actor: 'anonymous' };

/** What an erasure leaves of an ID in history: its type. */
export const erasedId = (type: string): HistoryId => ({ type, id: null, erased: true });

/** One string per (type, value), for sets of values. */
export const valueKey = (id: { type: string; id: string | null }): string => JSON.stringify([id.type, id.id]);

/**
 * An entry's JSON as the Neo4j store keeps it (history.append.cypher), the format databases already hold: `at` is
 * kept apart (the server's clock then), so it is left out. It is what a page of the change feed is measured by
 * (CHANGE_PAGE_CHARS), on both stores.
 */
export function entryDocument(entry: HistoryEntry): string {
  const { at: _at, requestId, ...rest } = entry;
  return JSON.stringify({ request_id: requestId, ...rest });
}

/** A text's length as Cypher's size() counts it: in code points, where JavaScript counts UTF-16 units. */
export const codePointLength = (text: string): number => text.length - (text.match(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g)?.length ?? 0);

const shown = (id: IdPair): HistoryId => ({ type: id.type, id: id.id });

/** The entry a write of `node` appends: `key` is the node's key before the write (for a rekeying, the old one). */
export function historyEntry(node: NodeAddress, op: HistoryOp, added: readonly IdPair[], removed: readonly IdPair[], at: string): HistoryEntry {
  const audit = node.audit ?? NO_AUDIT;
  return {
    at,
    requestId: audit.requestId,
    actor: audit.actor,
    op,
    schema: node.schemaId,
    key: shown(node.key),
    added: added.map(shown),
    removed: removed.map(shown),
  };
}

/**
 * The entry an erase appends to a node it changed: the types it took away, never their values; the node's key
 * stays only when its value was not erased.
 */
export function eraseEntry(
  node: { schemaId: string; key: IdPair },
  keyErased: boolean,
  removedTypes: readonly string[],
  audit: WriteAudit,
  at: string,
): HistoryEntry {
  return {
    at,
    requestId: audit.requestId,
    actor: audit.actor,
    op: 'erase',
    schema: node.schemaId,
    key: keyErased ? erasedId(node.key.type) : shown(node.key),
    added: [],
    removed: removedTypes.map(erasedId),
  };
}

/** The op a node write records. */
export function historyOpOf(w: NodeWrite<unknown>): HistoryOp {
  switch (w.kind) {
    case 'create':
    case 'insert':
      return w.kind;
    case 'replace':
      return w.upsert ? 'upsert' : 'update';
    case 'removeId':
    case 'deleteNode':
      return 'delete';
  }
}

/** Every value an entry holds (its key included), once each, erased ones left out: what erasure may have to find. */
export function entryValues(entry: HistoryEntry): IdPair[] {
  const values = new Map<string, IdPair>();
  for (const id of [entry.key, ...entry.added, ...entry.removed]) {
    if (id.id !== null) values.set(valueKey(id), { type: id.type, id: id.id });
  }
  return [...values.values()];
}

/** The entry with every ID whose value is in `erased` (valueKey) replaced by erasedId; undefined when none is. */
export function scrubbed(entry: HistoryEntry, erased: ReadonlySet<string>): HistoryEntry | undefined {
  let changed = false;
  const scrub = (id: HistoryId): HistoryId => {
    if (id.id === null || !erased.has(valueKey(id))) return id;
    changed = true;
    return erasedId(id.type);
  };
  const result = { ...entry, key: scrub(entry.key), added: entry.added.map(scrub), removed: entry.removed.map(scrub) };
  return changed ? result : undefined;
}
