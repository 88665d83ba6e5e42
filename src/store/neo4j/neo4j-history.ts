// Node history and erasure on Neo4j (docs/history-and-erasure.md): (:HistoryEntry) vertices, appended by each write transaction
// (history.append.cypher), and the erase, one transaction that locks what it erases before it reads it again.
import { DomainError } from '../../domain/errors';
import type { EraseOutcome, EraseRequest, HistoryEntry, HistoryPage, IdPair } from '../../domain/model';
import { CHANGE_PAGE_CHARS, type ChangeRead } from '../../domain/ports/changes';
import { entryDocument, entryValues, eraseEntry, scrubbed, valueKey } from '../history';
import { eraseTooLarge } from '../../domain/refusals';
import { compareCodePoints } from '../../domain/code-point-order';
import { int, type Query, together } from './query';
import { LEGACY_KEY_OWNER } from './neo4j-impressions';
import { adoptInBatches, type Write } from './neo4j-transactions';

/** An entry's JSON as history.append.cypher stores it (entryDocument). */
type StoredEntry = Omit<HistoryEntry, 'at' | 'requestId'> & { request_id: string };

/** An entry as history.append.cypher stores it; `redacts`: an erase entry's positions of what it redacted. */
export function stored(entry: HistoryEntry, position: number, redacts?: readonly number[]) {
  const newKey = entry.op === 'rekeying' ? entry.added[0] : undefined;
  return {
    schema: entry.schema,
    keyType: entry.key.type,
    keyId: entry.key.id,
    newKeyId: newKey?.id ?? null,
    position: int(position),
    entry: entryDocument(entry),
    mentions: entryValues(entry).map(valueKey),
    redacts: redacts ? redacts.map(int) : null,
  };
}

export const parsed = (json: string, atMillis: number): HistoryEntry => {
  const { at: _at, request_id, ...rest } = JSON.parse(json) as StoredEntry & { at?: unknown };
  return { at: new Date(atMillis).toISOString(), requestId: request_id, ...rest };
};

/**
 * Appends the entries the write transaction `writeId` made, in order; nothing for none. The last statement of its
 * transaction: it takes the customer's feed positions (history.append.cypher). `redacts`: an erase's, per entry.
 * import_in_progress, for the caller to roll the write back, when another process has begun importing the customer.
 */
export async function appendHistory(
  q: Query,
  customerId: string,
  entries: readonly HistoryEntry[],
  writeId: string,
  redacts?: ReadonlyArray<readonly number[]>,
): Promise<void> {
  if (entries.length === 0) return;
  const [row] = await q<{ importing: boolean }>('history.append', {
    customer: customerId,
    entries: entries.map((e, i) => stored(e, i, redacts?.[i])),
    write: writeId,
  });
  if (row?.importing) throw importInProgress();
}

/** A write that reached a customer another process is importing into (history.append.cypher says how it knows). */
export const importInProgress = (): DomainError => new DomainError('import_in_progress', 'An import of this customer is under way; retry once it has ended.');

/** A page of the customer's change feed (history.changes.cypher). */
export async function changesPage(q: Query, customerId: string, after: number, limit: number): Promise<ChangeRead> {
  const [row] = await q<{
    head: number;
    prunedThrough: number;
    changes: Array<{ seq: number; entry: string; atMillis: number; redacts: number[] | null }>;
    cut: boolean;
  }>('history.changes', { customer: customerId, after: int(after), limit: int(limit), maxChars: int(CHANGE_PAGE_CHARS) });
  return {
    changes: (row?.changes ?? []).map((c) => ({ seq: c.seq, entry: parsed(c.entry, c.atMillis), ...(c.redacts === null ? {} : { redacts: c.redacts }) })),
    head: row?.head ?? 0,
    prunedThrough: row?.prunedThrough ?? 0,
    cut: row?.cut === true,
  };
}

/** The change counters of these customers (history.heads.cypher). */
export async function changeHeads(q: Query, customerIds: readonly string[]): Promise<Map<string, number>> {
  const rows = await q<{ customer: string; head: number }>('history.heads', { customers: customerIds });
  return new Map(rows.map((r) => [r.customer, r.head]));
}

export async function historyPage(q: Query, customerId: string, schemaId: string, key: IdPair, offset: number, limit: number): Promise<HistoryPage> {
  const [row] = await q<{ total: number; page: Array<{ entry: string; atMillis: number }> }>('history.page', {
    customer: customerId,
    schema: schemaId,
    keyType: key.type,
    keyId: key.id,
    offset: int(offset),
    limit: int(limit),
  });
  return { items: (row?.page ?? []).map((e) => parsed(e.entry, e.atMillis)), total: row?.total ?? 0 };
}

interface LockedNode {
  element: string;
  schema: string;
  keyType: string;
  keyId: string;
  held: IdPair[];
}

/** Rounds of traverse-then-lock before an erase gives up on a component that keeps growing under it. */
const LOCK_ROUNDS = 5;

/**
 * The erase of docs/history-and-erasure.md inside one write transaction. The nodes it changes are found, then locked with
 * every ID they hold (erase.lock.cypher), then found again: a write that committed in between is seen, one that
 * comes later waits for the erase. Only then is anything deleted.
 */
export async function eraseInGraph(q: Query, r: EraseRequest, writeId: string): Promise<EraseOutcome> {
  const c = r.customerId;
  const at = new Date().toISOString();
  const [start] = await q<{ source: string; starts: string[] }>('search.start-by-where', {
    customer: c,
    type: r.id.type,
    value: r.id.id,
    schema: null,
    cap: int(r.maxNodes + 1),
  });
  const tooLarge = () => eraseTooLarge(r);
  let nodes: LockedNode[] = [];
  if (start) {
    const find = async (): Promise<string[]> => {
      if (r.scope === 'id') {
        const [again] = await q<{ starts: string[] }>('search.start-by-where', {
          customer: c,
          type: r.id.type,
          value: r.id.id,
          schema: null,
          cap: int(r.maxNodes + 1),
        });
        return again?.starts ?? [];
      }
      const sources = r.unlinkedTypes.includes(r.id.type) ? start.starts : [start.source];
      const [row] = await q<{ visited: number; idsRead: number; nodes: string[] }>('erase.component', {
        sources,
        maxNodes: int(r.maxNodes),
        maxIds: int(r.maxIds),
        unlinkedTypes: r.unlinkedTypes,
      });
      if (!row || row.visited > r.maxNodes || row.idsRead > r.maxIds) throw tooLarge();
      return row.nodes;
    };
    let found = start.starts;
    const locked = new Map<string, LockedNode>();
    for (let round = 1; ; round += 1) {
      if (found.length > r.maxNodes) throw tooLarge();
      const fresh = found.filter((element) => !locked.has(element));
      if (fresh.length === 0) break;
      if (round > LOCK_ROUNDS) throw new DomainError('store_unavailable', 'The component kept changing while the erase locked it; send it again.');
      // Sent together, run in this order: the traversal comes after the locks.
      const lockedNow = q<LockedNode>('erase.lock', { nodes: fresh, write: writeId });
      const foundNow = find();
      await together(lockedNow, foundNow);
      for (const node of await lockedNow) locked.set(node.element, node);
      found = await foundNow;
    }
    // A node locked in an earlier round and no longer found was taken out of the component meanwhile: left alone.
    const current = new Set(found);
    nodes = [...locked.values()].filter((n) => current.has(n.element));
  }
  const keyOf = (n: LockedNode) => ({ schemaId: n.schema, key: { type: n.keyType, id: n.keyId } });
  const entries: HistoryEntry[] = [];
  let erased: IdPair[];
  let outcome: EraseOutcome;
  /** The nodes the erase deletes, and those that only lose the erased ID (scope id). */
  let deleted: LockedNode[];
  let unlinked: LockedNode[] = [];
  if (r.scope === 'id') {
    deleted = nodes.filter((n) => n.keyType === r.id.type && n.keyId === r.id.id);
    unlinked = nodes.filter((n) => !deleted.includes(n));
    for (const n of deleted)
      entries.push(
        eraseEntry(
          keyOf(n),
          true,
          n.held.map((id) => id.type),
          r.audit,
          at,
        ),
      );
    for (const n of unlinked) entries.push(eraseEntry(keyOf(n), false, [r.id.type], r.audit, at));
    erased = [r.id];
    outcome = { nodesDeleted: deleted.length, idsRemoved: unlinked.length };
  } else {
    deleted = nodes;
    const candidates = new Map<string, IdPair>([[valueKey(r.id), r.id]]);
    for (const n of nodes) for (const id of n.held) candidates.set(valueKey(id), id);
    for (const value of await valuesInHistoryOf(q, c, nodes.map(keyOf))) candidates.set(valueKey(value), value);
    // A value another node still holds (a `links: false` ID, such as a shared device) is not this person's alone.
    // Only a `links: false` ID or a value none of the nodes holds can be: every holder of a linking ID of the nodes
    // is in the component (it was traversed whole, and its Id vertices are locked), so those need no look.
    const ids = [...candidates.values()];
    const heldHere = new Set(nodes.flatMap((n) => n.held.filter((id) => !r.unlinkedTypes.includes(id.type)).map(valueKey)));
    const toCheck = ids.filter((id) => !heldHere.has(valueKey(id)));
    const held = toCheck.length > 0 ? await q<IdPair>('erase.still-held', { customer: c, ids: toCheck, erasing: nodes.map((n) => n.element) }) : [];
    const stillHeld = new Set(held.map(valueKey));
    erased = ids.filter((id) => !stillHeld.has(valueKey(id)));
    const erasedKeys = new Set(erased.map(valueKey));
    for (const n of nodes) {
      entries.push(
        eraseEntry(
          keyOf(n),
          erasedKeys.has(valueKey({ type: n.keyType, id: n.keyId })),
          n.held.map((id) => id.type),
          r.audit,
          at,
        ),
      );
    }
    outcome = { nodesDeleted: nodes.length, idsRemoved: 0 };
  }
  // Everything that seeks an index comes before the deletes: a seek in a transaction that has already deleted
  // thousands of vertices costs several times as much (docs/history-and-erasure.md). The writes depend on no
  // answer of each other: they go in one round trip, run in the order sent, with the erase's own history entries.
  const { rewrites, redacted } = await historyRewrites(q, c, erased, writeId);
  // The nodes the entries are for, in their order, by the keys they had before the erase.
  const changed = (r.scope === 'id' ? [...deleted, ...unlinked] : deleted).map(keyOf);
  const redacts = redactsOf(entries, changed, redacted, new Set(erased.map(valueKey)), r.audit, at);
  await together(
    ...(rewrites.length > 0 ? [q('history.rewrite', { rewrites })] : []),
    q('impression.erase', { customer: c, ids: erased }),
    q('impression.erase-keys', { customer: c, ids: [...erased, LEGACY_KEY_OWNER] }),
    q('erase.delete-nodes', { nodes: deleted.map((n) => n.element) }),
    ...(unlinked.length > 0 ? [q('erase.unlink-id', { nodes: unlinked.map((n) => n.element), type: r.id.type, value: r.id.id })] : []),
    appendHistory(q, c, entries, writeId, redacts),
  );
  return outcome;
}

/** The node key an entry was written under, as one string. */
const keyString = (schema: string, key: { type: string; id: string | null }) => JSON.stringify([schema, key.type, key.id]);

/**
 * The `redacts` of each erase entry (docs/changes-and-export.md): the positions of the redacted entries written under
 * its node's key. Redacted entries under a key the erase appended nothing to get an erase entry of their own,
 * appended to `entries` in the order of their keys.
 */
function redactsOf(
  entries: HistoryEntry[],
  changed: ReadonlyArray<{ schemaId: string; key: IdPair }>,
  redacted: ReadonlyArray<RedactedEntry>,
  erased: ReadonlySet<string>,
  audit: EraseRequest['audit'],
  at: string,
): number[][] {
  const byKey = new Map<string, { schema: string; key: IdPair; seqs: number[] }>();
  for (const r of redacted) {
    const k = keyString(r.schema, r.key);
    const group = byKey.get(k) ?? { schema: r.schema, key: r.key, seqs: [] };
    group.seqs.push(r.seq);
    byKey.set(k, group);
  }
  const redacts = changed.map((node) => {
    const k = keyString(node.schemaId, node.key);
    const group = byKey.get(k);
    byKey.delete(k);
    return group?.seqs ?? [];
  });
  const unmatched = [...byKey.values()].sort((a, b) => compareKeys(a, b));
  for (const group of unmatched) {
    entries.push(eraseEntry({ schemaId: group.schema, key: group.key }, erased.has(valueKey(group.key)), [], audit, at));
    redacts.push(group.seqs);
  }
  return redacts.map((seqs) => [...seqs].sort((a, b) => a - b));
}

const compareKeys = (a: { schema: string; key: IdPair }, b: { schema: string; key: IdPair }): number =>
  compareCodePoints(a.schema, b.schema) || compareCodePoints(a.key.type, b.key.type) || compareCodePoints(a.key.id, b.key.id);

/** An entry an erase rewrote: its position and the key it was written under. */
interface RedactedEntry {
  seq: number;
  schema: string;
  key: IdPair;
}

/** Every value named by the history of these keys, and of the keys they were rekeyed from. */
async function valuesInHistoryOf(q: Query, customerId: string, keys: Array<{ schemaId: string; key: IdPair }>): Promise<IdPair[]> {
  const values = new Map<string, IdPair>();
  const seen = new Set<string>();
  let next = keys;
  while (next.length > 0) {
    const batch = next.filter((k) => !seen.has(JSON.stringify([k.schemaId, k.key.type, k.key.id])));
    for (const k of batch) seen.add(JSON.stringify([k.schemaId, k.key.type, k.key.id]));
    next = [];
    if (batch.length === 0) break;
    const rows = await q<{ entry: string }>('history.of-keys', {
      customer: customerId,
      keys: batch.map((k) => ({ schema: k.schemaId, keyType: k.key.type, keyId: k.key.id })),
    });
    for (const row of rows) {
      const entry = parsed(row.entry, 0);
      for (const value of entryValues(entry)) values.set(valueKey(value), value);
      // A rekeying onto one of these keys names the key the node had before: its entries are the same node's.
      if (entry.op === 'rekeying' && entry.key.id !== null) next.push({ schemaId: entry.schema, key: { type: entry.key.type, id: entry.key.id } });
    }
  }
  return [...values.values()];
}

/**
 * The rewrites (history.rewrite.cypher) that replace each of `values` by erasedId in every entry of the customer
 * that holds it, locked before it is read.
 */
async function historyRewrites(q: Query, customerId: string, values: readonly IdPair[], writeId: string) {
  const rewrites: Array<{ element: string; entry: string; keyId: string | null; newKeyId: string | null; mentions: string[] }> = [];
  const redacted: RedactedEntry[] = [];
  if (values.length === 0) return { rewrites, redacted };
  const erased = new Set(values.map(valueKey));
  // Each entry is locked before it is read, in the same statement: one round trip, and the JSON read once.
  const rows = await q<{ element: string; entry: string; seq: number | null }>('history.mentioning', {
    customer: customerId,
    mentions: [...erased],
    write: writeId,
  });
  for (const row of rows) {
    const before = parsed(row.entry, 0);
    const after = scrubbed(before, erased);
    if (!after) continue;
    const s = stored(after, 0);
    rewrites.push({ element: row.element, entry: s.entry, keyId: s.keyId, newKeyId: s.newKeyId, mentions: s.mentions });
    if (row.seq !== null && before.key.id !== null) redacted.push({ seq: row.seq, schema: before.schema, key: { type: before.key.type, id: before.key.id } });
  }
  return { rewrites, redacted };
}

export async function pruneHistory(q: Query, before: string, limit: number, writeId: string): Promise<number> {
  const [row] = await q<{ deleted: number }>('history.prune', { beforeMillis: int(Date.parse(before)), limit: int(limit), write: writeId });
  return row?.deleted ?? 0;
}

/** Start-up: gives the entries written before the change feed their positions (history.adopt-seq.cypher). */
export function adoptPositions(write: Write): Promise<number> {
  return adoptInBatches(write, 'history.adopt-seq', ADOPT_MENTIONS_BATCH);
}

/** Entries given their MENTIONS in one start-up transaction (history.adopt-mentions.cypher). */
export const ADOPT_MENTIONS_BATCH = 10_000;

/**
 * Start-up: gives the entries that earlier versions wrote without MENTIONS one per value they name
 * (adoptInBatches).
 */
export function adoptMentions(write: Write): Promise<number> {
  return adoptInBatches(write, 'history.adopt-mentions', ADOPT_MENTIONS_BATCH);
}
