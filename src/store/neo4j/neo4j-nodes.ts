// The identity graph's node writes on Neo4j: what each write does inside a transaction the store opens
// (./neo4j-node-writes.ts makes them transactions; ./neo4j-transactions.ts owns their retries and what a lost
// commit reply means).
import { DomainError, isDomainError } from '../../domain/errors';
import { at as atIndex } from '../../domain/invariant';
import { byTypeThenId } from '../../domain/code-point-order';
import { type HistoryEntry, type IdPair, idKey, type NodeAddress, sameId, uniqueIds } from '../../domain/model';
import {
  holderLimitReached,
  idExists,
  limitedIds,
  nodeExists,
  nodeIdLimitReached,
  nodeNotFound,
  type SecureTypes,
  separatedNodes,
  wouldPassIdLimit,
} from '../../domain/refusals';
import type { MarkedWrite } from './kept-policies';
import { historyEntry, historyOpOf } from '../history';
import { appendHistory, importInProgress, stored as storedEntry } from './neo4j-history';
import type { PolicyRow } from './neo4j-schemas';
import { int, type Query, together } from './query';
import { SchemaGuards } from './schema-guards';

/**
 * The customer's secure types as its schemas declare them now (customer.policy.cypher), for a refusal that names a
 * node no write was checked against (the other node of a separation, the nodes _separate names): one more round
 * trip, on the way to a refusal only.
 */
async function declaredSecureTypes(q: Query, customerId: string): Promise<SecureTypes> {
  const [row] = await q<PolicyRow>('customer.policy', { customer: customerId, schemaId: null });
  return new Set(row?.secureTypes ?? []);
}

/**
 * Which secure types a refusal naming a node hides the key of: those the write was checked against
 * (NodeAddress.expectedTypes), or, for a call checked against none (_separate), those the customer declares now.
 */
export type KeyNaming = 'checked' | 'declared';

const nodeNotFoundAs = async (q: Query, node: NodeAddress, naming: KeyNaming): Promise<DomainError> =>
  naming === 'declared' ? nodeNotFound(node, await declaredSecureTypes(q, node.customerId)) : nodeNotFound(node);

/**
 * What a node write does in its transaction; it pushes the history entries it makes onto `entries`, for the caller
 * to append once its writes are done. `alone`: the write is its transaction's only one, and then appends its entry
 * itself, saving a round trip: a create in its own statement (node.create.cypher), the others sent together with
 * their last statements.
 */
export type NodeWork = (q: Query, writeId: string, guards: SchemaGuards, entries: HistoryEntry[], alone: boolean) => Promise<void>;

/** Distinct IDs, in one canonical order: transactions that lock overlapping Id vertices then lock them in the same order. */
function canonicalIds(ids: IdPair[]): IdPair[] {
  const unique = new Map<string, IdPair>();
  for (const id of ids) unique.set(idKey(id), { type: id.type, id: id.id });
  return [...unique.values()].sort(byTypeThenId);
}

/** A node's key as the statements name it: their parameters for one node, each row of those that take many. */
export const keyOf = (node: NodeAddress) => ({ schema: node.schemaId, keyType: node.key.type, keyId: node.key.id });

export const keyParams = (node: NodeAddress) => ({ customer: node.customerId, ...keyOf(node) });

/**
 * Locks the node for the rest of the transaction (node.lock.cypher), marks it with the write id, and, in the same
 * round trip, runs `read`, which must find the node by its key again and answer its element id: node.lock found
 * the node by its key before it waited for the lock, and a rekey that committed meanwhile has moved the node to
 * another key, where SQLite (one writer at a time) would answer node_not_found. Neo4j runs `read` once node.lock
 * is done, so it reads what is committed now that the lock is held; both are sent at once. Answers the node's
 * element id and `read`'s row; node_not_found when the node is absent, or `read` found another node or none, its key
 * named as `naming` says.
 */
export async function lockAndRead<R extends { node: string }>(
  q: Query,
  node: NodeAddress,
  writeId: string,
  read: () => Promise<R[]>,
  before: Promise<unknown> = Promise.resolve(),
  naming: KeyNaming = 'checked',
): Promise<{ target: string; row: R }> {
  const locked = q<{ node: string }>('node.lock', { ...keyParams(node), write: writeId });
  const reading = read();
  await together(before, locked, reading);
  const [[lock], [row]] = [await locked, await reading];
  if (!lock || row?.node !== lock.node) throw await nodeNotFoundAs(q, node, naming);
  return { target: lock.node, row };
}

/**
 * lockAndRead, reading which of `ids` the locked node holds, as a predicate (node.held-among.cypher); node_not_found
 * when absent or moved meanwhile. `before`, already sent (the schema's guard), comes first: its refusal is the one
 * answered.
 */
async function lockHolding(
  q: Query,
  node: NodeAddress,
  writeId: string,
  ids: IdPair[],
  before: Promise<unknown> = Promise.resolve(),
): Promise<{ target: string; holds: (id: IdPair) => boolean; separated: boolean }> {
  const sought = ids.map((id) => ({ type: id.type, id: id.id }));
  // Sent in this order, each without waiting for the one before.
  const locking = lockAndRead(q, node, writeId, () =>
    q<{ node: string; held: IdPair[]; separated: boolean }>('node.held-among', { ...keyParams(node), ids: sought }),
  );
  await together(before, locking);
  const { target, row } = await locking;
  return { target, holds: (id) => row.held.some((h) => sameId(h, id)), separated: row.separated };
}

/**
 * separated_nodes when a node the locked node `target` is separated from holds one of `adding`. Only for a node
 * that has a separation (node.held-among said so): a write to any other node sends no statement for it. Locks
 * those Id vertices until commit (separation.check.cypher), so racing writes to the two nodes check one after the
 * other.
 */
async function refuseIfSeparated(q: Query, node: NodeAddress, target: string, adding: IdPair[], writeId: string): Promise<void> {
  if (adding.length === 0) return;
  const [other] = await q<{ schema: string; keyType: string; keyId: string }>('separation.check', { node: target, ids: canonicalIds(adding), write: writeId });
  if (other)
    throw separatedNodes(node, { schemaId: other.schema, key: { type: other.keyType, id: other.keyId } }, await declaredSecureTypes(q, node.customerId));
}

/**
 * Links `ids`, which the (locked) node does not hold. A write that grows the node passes its address as `growing`:
 * node_id_limit_reached, and nothing linked, when the node would then hold more than NodeAddress.maxIds IDs.
 */
async function link(q: Query, nodeElementId: string, ids: IdPair[], growing?: NodeAddress): Promise<void> {
  if (ids.length === 0) return;
  const maxIds = growing?.maxIds === undefined ? null : int(growing.maxIds);
  const [row] = await q<{ linked: number }>('node.link-ids', { node: nodeElementId, ids: canonicalIds(ids), maxIds });
  if (growing && maxIds !== null && (row?.linked ?? 0) === 0) throw nodeIdLimitReached(growing);
}

/**
 * holder_limit_reached when one more node holding one of `adding` (IDs the node does not hold) would take it past
 * its type's maxHolders. Locks those Id vertices until commit (id.lock-holders.cypher), so concurrent writes
 * count one after the other. Nothing to do, and no statement, for IDs of types without a limit.
 */
async function refuseIfOverHolderLimit(q: Query, node: NodeAddress, adding: IdPair[], writeId: string): Promise<void> {
  const limited = limitedIds(node, adding);
  if (limited.length === 0) return;
  const rows = await q<IdPair & { holders: number }>('id.lock-holders', {
    customer: node.customerId,
    ids: canonicalIds(limited.map((l) => l.id)),
    write: writeId,
  });
  for (const { id, maxHolders } of limited) {
    if ((rows.find((r) => sameId(r, id))?.holders ?? 0) >= maxHolders) throw holderLimitReached(id, maxHolders);
  }
}

async function unlink(q: Query, nodeElementId: string, id: IdPair): Promise<void> {
  await q('node.unlink-id', { node: nodeElementId, type: id.type, value: id.id });
}

/** The IDs an upsert, an update or an ID removal asks its node about (which of them it holds). */
const namedIds = (w: ChangeWrite): IdPair[] => (w.kind === 'removeId' ? [w.id] : [w.where, w.set]);

/**
 * What an upsert, an update or an ID removal does to its node, given which of its namedIds the node holds: the
 * ID it unlinks and the one it links (`grows`: the node ends up holding one ID more), or nothing; id_exists when an
 * update's `set` is held already.
 */
function changeOf(w: ChangeWrite, holds: (id: IdPair) => boolean): Change {
  if (w.kind === 'removeId') return holds(w.id) ? { unlink: w.id } : {};
  if (!holds(w.where)) return w.upsert && !holds(w.set) ? { link: w.set, grows: true } : {};
  if (sameId(w.where, w.set)) return {};
  if (holds(w.set)) throw idExists(w.node, w.set);
  return { unlink: w.where, link: w.set };
}

type Change = { unlink?: IdPair; link?: IdPair; grows?: boolean };

/** The history entry of a change that did something, none for one that did nothing. */
const changeEntries = (w: ChangeWrite, { link, unlink }: Change, at: string): HistoryEntry[] =>
  link || unlink ? [historyEntry(w.node, historyOpOf(w), link ? [link] : [], unlink ? [unlink] : [], at)] : [];

/**
 * What a node write does in its transaction, and the conflict a uniqueness violation means for it. The writes
 * that may add IDs start with their schema's guard (./schema-guards.ts), before any other lock.
 */
export function nodeWork(w: MarkedWrite): { work: NodeWork; onConstraintViolation?: () => DomainError } {
  /**
   * The write's last statements (`last`, already sent) and its history entries (`made`). Alone in its transaction,
   * the write appends them itself, sent before the answers to `last` come back (together), one round trip for all;
   * a refusal among `last` then rolls them back with the rest. Otherwise the caller appends them with the other
   * entries of its transaction, once its writes are done.
   */
  const finish = async (q: Query, writeId: string, entries: HistoryEntry[], alone: boolean, made: HistoryEntry[], ...last: Array<Promise<unknown>>) => {
    if (alone) return together(...last, appendHistory(q, w.node.customerId, made, writeId));
    await together(...last);
    entries.push(...made);
  };
  const entry = (added: IdPair[], removed: IdPair[]) => [historyEntry(w.node, historyOpOf(w), added, removed, new Date().toISOString())];
  switch (w.kind) {
    case 'create':
      return {
        work: async (q, writeId, guards, entries, alone) => {
          const ids = canonicalIds([w.node.key, ...w.ids]);
          if (wouldPassIdLimit(w.node, 0, ids.length)) {
            // A changed schema is answered first, as createNodes and SQLite answer it.
            await guards.refuseIfSchemaChanged(q, w.node, writeId);
            throw nodeIdLimitReached(w.node);
          }
          // In the order given, the key first (as SQLite records it), not the locking order.
          const entry = historyEntry(w.node, 'create', uniqueIds([w.node.key, ...w.ids]), [], new Date().toISOString());
          const history = alone ? [storedEntry(entry, 0)] : [];
          // Sent at once, run in this order: a refusal of the guard, then of the holder limits, is the one answered
          // (the transaction is rolled back with the create).
          const checked = [guards.refuseIfSchemaChanged(q, w.node, writeId), refuseIfOverHolderLimit(q, w.node, ids, writeId)];
          const creating = q<{ importing: boolean }>('node.create', { ...keyParams(w.node), ids, write: writeId, history });
          await together(...checked, creating);
          const [made] = await creating;
          if (made?.importing) throw importInProgress();
          // The domain checked the schema, but a concurrent removal may have happened since.
          if (!made) throw new DomainError('schema_not_found', `Schema '${w.node.schemaId}' does not exist.`);
          if (!alone) entries.push(entry);
        },
        onConstraintViolation: () => nodeExists(w.node),
      };
    case 'insert':
      return {
        work: async (q, writeId, guards, entries, alone) => {
          const { target, holds, separated } = await lockHolding(q, w.node, writeId, w.ids, guards.refuseIfSchemaChanged(q, w.node, writeId));
          const alreadyHeld = w.ids.find(holds);
          if (alreadyHeld) throw idExists(w.node, alreadyHeld);
          await refuseIfOverHolderLimit(q, w.node, w.ids, writeId);
          if (separated) await refuseIfSeparated(q, w.node, target, w.ids, writeId);
          await finish(q, writeId, entries, alone, entry(uniqueIds(w.ids), []), link(q, target, w.ids, w.node));
        },
      };
    case 'replace':
    case 'removeId':
      return {
        work: async (q, writeId, guards, entries, alone) => {
          // An ID removal adds none: no guard, but a read of the kept policy it was checked against, if it was.
          const guarded = w.kind === 'replace' ? guards.refuseIfSchemaChanged(q, w.node, writeId) : guards.refuseIfPolicyChanged(q, w.node);
          const { target, holds, separated } = await lockHolding(q, w.node, writeId, namedIds(w), guarded);
          const change = changeOf(w, holds);
          if (change.link) await refuseIfOverHolderLimit(q, w.node, [change.link], writeId);
          if (change.link && separated) await refuseIfSeparated(q, w.node, target, [change.link], writeId);
          // The unlink is sent first, and Neo4j runs a transaction's statements in the order sent.
          await finish(
            q,
            writeId,
            entries,
            alone,
            changeEntries(w, change, new Date().toISOString()),
            ...(change.unlink ? [unlink(q, target, change.unlink)] : []),
            ...(change.link ? [link(q, target, [change.link], change.grows ? w.node : undefined)] : []),
          );
        },
      };
    case 'deleteNode':
      return {
        work: async (q, writeId, guards, entries, alone) => {
          const { target, row } = await lockAndRead(
            q,
            w.node,
            writeId,
            () => q<{ node: string; ids: IdPair[] }>('node.ids', keyParams(w.node)),
            guards.refuseIfPolicyChanged(q, w.node),
          );
          await finish(q, writeId, entries, alone, entry([], [...row.ids].sort(byTypeThenId)), q('node.delete', { node: target }));
        },
      };
  }
}

export type CreateWrite = Extract<MarkedWrite, { kind: 'create' }>;
export type InsertWrite = Extract<MarkedWrite, { kind: 'insert' }>;
export type DeleteWrite = Extract<MarkedWrite, { kind: 'deleteNode' }>;
/** An upsert, an update or an ID removal: each makes its node hold one ID more, one less, or one for another. */
export type ChangeWrite = Extract<MarkedWrite, { kind: 'replace' | 'removeId' }>;
/** The writes of a bulk batch that run together with others of their kind (runs of lines). */
export type JoiningWrite = CreateWrite | InsertWrite | DeleteWrite | ChangeWrite;

/**
 * Whether a write may join others of its kind in one statement each step (createNodes, insertIntoNodes,
 * changeNodes, deleteNodes): it adds no ID of a type with `max_holders`, whose holders each write counts under a
 * lock of its own (refuseIfOverHolderLimit). Every kind of node write but a rekey (not a bulk line) may.
 */
export function joinsOthers(w: MarkedWrite): w is JoiningWrite {
  switch (w.kind) {
    case 'create':
      return limitedIds(w.node, [w.node.key, ...w.ids]).length === 0;
    case 'insert':
      return limitedIds(w.node, w.ids).length === 0;
    case 'replace':
      return limitedIds(w.node, [w.set]).length === 0;
    default:
      return true;
  }
}

/** A line refused among a run of lines (`at`, its index in the run), and why. */
export type RunRefusal = { at: number; error: DomainError };

/**
 * Given to the last run of a transaction: appends the history entries of the transaction (the run's pushed onto them
 * first). The run sends it right after its changes, without waiting for their answers: one round trip for all (the
 * links of nodes with a separation come after it, linkSeparated). A refusal answered after it rolls the entries back
 * with the rest.
 */
export type AppendHistory = () => Promise<void>;

/**
 * The schema guards of each line of a run that may add IDs (all, unless `adds` says otherwise), and the read of the
 * kept policy the others were checked against (SchemaGuards.refuseIfPolicyChanged), in order: the lines before the
 * first line refused, and that refusal.
 */
async function guardRun<W extends { node: NodeAddress }>(q: Query, run: readonly W[], writeId: string, guards: SchemaGuards, adds = (_w: W) => true) {
  // Every line's guard asked at once (a schema's statement sent once, in line order): one round trip for all.
  const checks = await Promise.allSettled(
    run.map((w) => (adds(w) ? guards.refuseIfSchemaChanged(q, w.node, writeId) : guards.refuseIfPolicyChanged(q, w.node))),
  );
  const passed: W[] = [];
  for (const [at, w] of run.entries()) {
    const check = atIndex(checks, at);
    if (check.status === 'rejected') {
      if (!isDomainError(check.reason)) throw check.reason;
      return { passed, refused: { at, error: check.reason } };
    }
    passed.push(w);
  }
  return { passed, refused: undefined };
}

/** The first in line order of `refusals` (undefined entries: lines not refused). */
const firstRefusal = (...refusals: Array<RunRefusal | undefined>): RunRefusal | undefined =>
  refusals.reduce<RunRefusal | undefined>((first, r) => (r && (!first || r.at < first.at) ? r : first), undefined);

/**
 * Consecutive creates of one customer's bulk batch (each joinsOthers, their keys distinct) in one statement
 * (node.create-many.cypher) instead of one each, with what each create checks first, in line order. Pushes
 * their history entries onto `entries`. Answers the first line refused (its index among `creates`) and its
 * error, when one is: the caller's transaction is then rolled back, and the lines before it run again.
 */
export async function createNodes(
  q: Query,
  creates: readonly CreateWrite[],
  writeId: string,
  guards: SchemaGuards,
  entries: HistoryEntry[],
  appendHistory?: AppendHistory,
): Promise<RunRefusal | undefined> {
  const rows: Array<{ line: number; schema: string; keyType: string; keyId: string; ids: IdPair[] }> = [];
  let overLimit: RunRefusal | undefined;
  for (const [at, w] of creates.entries()) {
    const ids = canonicalIds([w.node.key, ...w.ids]);
    if (wouldPassIdLimit(w.node, 0, ids.length)) {
      overLimit = { at, error: nodeIdLimitReached(w.node) };
      break;
    }
    rows.push({ line: at, ...keyOf(w.node), ids });
  }
  const customer = creates[0]?.node.customerId;
  const write = (line: number) => atIndex(creates, line);
  // The guards, the creates and the history, sent at once, run in this order, one round trip: a line refused by what
  // they answer rolls the transaction back, and what the creates did with it.
  const guarding = guardRun(q, creates, writeId, guards);
  const creating =
    rows.length === 0 ? Promise.resolve([]) : q<{ line: number; taken: boolean; made: boolean }>('node.create-many', { customer, nodes: rows, write: writeId });
  const now = new Date().toISOString();
  // The key first, then the IDs in the order given, as a single create records them (and SQLite).
  for (const { node, ids } of creates) entries.push(historyEntry(node, 'create', uniqueIds([node.key, ...ids]), [], now));
  await together(guarding, creating, overLimit === undefined ? appendHistory?.() : undefined);
  const refused = firstRefusal((await guarding).refused, overLimit);
  const answered = await creating;
  const taken = answered.filter((row) => row.taken && (refused === undefined || row.line < refused.at)).map((row) => row.line);
  if (taken.length > 0) {
    const at = Math.min(...taken);
    const { node } = write(at);
    return { at, error: nodeExists(node) };
  }
  // A line refused by its own checks is refused whatever the lines before it do: those run again without it.
  if (refused) return refused;
  const made = new Set(answered.filter((row) => row.made).map((row) => row.line));
  // The domain checked each schema, but a concurrent removal may have happened since.
  const unmade = rows.find((row) => !made.has(row.line));
  if (unmade) return { at: unmade.line, error: new DomainError('schema_not_found', `Schema '${write(unmade.line).node.schemaId}' does not exist.`) };
  return undefined;
}

/** Each line's key, as node.lock-many and the reads sent with it name it (its line: its index in the run). */
type LineKey = { line: number } & ReturnType<typeof keyOf>;

/**
 * lockAndRead for the lines of a run (one customer's): locks their nodes in line order (node.lock-many) and sends
 * `read` of their keys with it, after `before` (the run's guards, already sent) and before what `after` sends: one
 * round trip. `read` must find each node by its key again and answer its element id. Answers `read`'s rows, by line,
 * of the nodes still at their keys once locked; a line missing is node_not_found, as lockAndRead answers it.
 */
async function lockAndReadMany<R extends { line: number; node: string }>(
  q: Query,
  run: ReadonlyArray<{ node: NodeAddress }>,
  writeId: string,
  read: (keys: LineKey[]) => Promise<R[]>,
  before: Promise<unknown> = Promise.resolve(),
  after?: () => Promise<unknown>,
): Promise<Map<number, R>> {
  const keys = run.map(({ node }, line) => ({ line, ...keyOf(node) }));
  const locking = q<{ line: number; node: string }>('node.lock-many', { customer: run[0]?.node.customerId, keys, write: writeId });
  const reading = read(keys);
  await together(before, locking, reading, after?.());
  const locked = new Map((await locking).map((row) => [row.line, row.node]));
  return new Map((await reading).filter((row) => locked.get(row.line) === row.node).map((row) => [row.line, row]));
}

/** What node.held-many answers of a line whose node node.lock-many locked, still at its key. */
type Holding = { node: string; held: IdPair[]; separated: boolean };

/**
 * lockHolding for the lines of a run (one customer's), with lockAndReadMany: which of `idsOf` each node holds
 * (node.held-many).
 */
function lockHoldingMany<W extends { node: NodeAddress }>(
  q: Query,
  run: readonly W[],
  writeId: string,
  idsOf: (w: W) => IdPair[],
  before: Promise<unknown>,
  after?: () => Promise<unknown>,
): Promise<Map<number, Holding>> {
  const held = (keys: LineKey[]) =>
    q<Holding & { line: number }>('node.held-many', {
      customer: run[0]?.node.customerId,
      rows: keys.map((key) => ({ ...key, ids: idsOf(atIndex(run, key.line)).map((id) => ({ type: id.type, id: id.id })) })),
    });
  return lockAndReadMany(q, run, writeId, held, before, after);
}

/** A line of node.link-many: its node's key, the IDs it links, and the most IDs the node may then hold (null: no limit). */
type LinkRow = LineKey & { ids: IdPair[]; maxIds: unknown };

const linkRow = (line: number, node: NodeAddress, ids: IdPair[], maxIds: number | undefined): LinkRow => ({
  line,
  ...keyOf(node),
  ids: ids.map((id) => ({ type: id.type, id: id.id })),
  maxIds: maxIds === undefined ? null : int(maxIds),
});

/** What node.link-many answers of a line whose node is at its key: whether it fitted, and whether it was linked. */
type Linked = { line: number; fits: boolean; linked: boolean };

/** node.link-many of a customer's nodes; with `skipSeparated`, a node that has a separation links nothing. */
const linkMany = (q: Query, customer: string | undefined, rows: LinkRow[], skipSeparated: boolean) =>
  rows.length === 0 ? Promise.resolve([]) : q<Linked>('node.link-many', { customer, rows, skipSeparated });

/** node_id_limit_reached of the first line in line order that did not fit, if one did not. */
function firstOver(linked: readonly Linked[], nodeOf: (line: number) => NodeAddress): RunRefusal | undefined {
  const over = linked.filter((row) => !row.fits).map((row) => row.line);
  if (over.length === 0) return undefined;
  const at = Math.min(...over);
  return { at, error: nodeIdLimitReached(nodeOf(at)) };
}

/**
 * The lines of a run whose nodes have a separation, linked last and one at a time in line order: each line's
 * separation.check (refuseIfSeparated) sees what the lines before it linked, so one batch cannot give an ID to both
 * nodes of a ban. The first line refused, if one is; the lines after it are left alone.
 */
async function linkSeparated(
  q: Query,
  customer: string | undefined,
  lines: Array<{ row: LinkRow; node: NodeAddress; target: string }>,
  writeId: string,
): Promise<RunRefusal | undefined> {
  for (const { row, node, target } of [...lines].sort((x, y) => x.row.line - y.row.line)) {
    try {
      await refuseIfSeparated(q, node, target, row.ids, writeId);
    } catch (e) {
      if (!isDomainError(e)) throw e;
      return { at: row.line, error: e };
    }
    const over = firstOver(await linkMany(q, customer, [row], false), () => node);
    if (over) return over;
  }
  return undefined;
}

/**
 * Consecutive inserts of one customer's bulk batch (each joinsOthers, their keys distinct), each step one
 * statement for all of them, and every step sent at once (one round trip), as what an insert links does not depend
 * on what its node holds: the guards, lock the nodes (node.lock-many), read what they hold (node.held-many), link
 * (node.link-many, finding each node again by its key), and the history when this is the transaction's last run.
 * Each line is then refused as the single insert would refuse it, and a refusal rolls back what was linked with the
 * rest of the transaction. The lines' refusals do not depend on each other (distinct nodes), so the first in line
 * order is answered, as createNodes does. A node with a separation links nothing in that round trip, and is linked
 * after, once separation.check has let it (linkSeparated).
 */
export async function insertIntoNodes(
  q: Query,
  inserts: readonly InsertWrite[],
  writeId: string,
  guards: SchemaGuards,
  entries: HistoryEntry[],
  appendHistory?: AppendHistory,
): Promise<RunRefusal | undefined> {
  const write = (line: number) => atIndex(inserts, line);
  const customer = inserts[0]?.node.customerId;
  const rows = inserts.map((w, line) => linkRow(line, w.node, canonicalIds(w.ids), w.node.maxIds));
  const now = new Date().toISOString();
  for (const { node, ids } of inserts) entries.push(historyEntry(node, 'insert', uniqueIds(ids), [], now));
  const guarding = guardRun(q, inserts, writeId, guards);
  let linking: Promise<Linked[]> = Promise.resolve([]);
  const found = await lockHoldingMany(
    q,
    inserts,
    writeId,
    (w) => w.ids,
    guarding,
    () => {
      linking = linkMany(q, customer, rows, true);
      return together(linking, appendHistory?.());
    },
  );
  const { passed, refused } = await guarding;
  const missing = passed.findIndex((_, line) => !found.has(line));
  const notFound = missing < 0 ? undefined : { at: missing, error: nodeNotFound(write(missing).node) };
  const checked = [...found].filter(([line]) => line < passed.length);
  let exists: RunRefusal | undefined;
  for (const [line, { held }] of checked) {
    // The first ID the node holds in request order, as the single insert names it.
    const first = write(line).ids.find((id) => held.some((h) => sameId(h, id)));
    if (first && (!exists || line < exists.at)) exists = { at: line, error: idExists(write(line).node, first) };
  }
  const linked = new Map((await linking).map((row) => [row.line, row]));
  const over = firstOver(
    checked.flatMap(([line]) => {
      const row = linked.get(line);
      return row?.linked ? [row] : [];
    }),
    (line) => write(line).node,
  );
  const refusal = firstRefusal(refused, notFound, exists, over);
  const separated = checked.filter(([line, row]) => row.separated && (refusal === undefined || line < refusal.at));
  return firstRefusal(
    refusal,
    await linkSeparated(
      q,
      customer,
      separated.map(([line, row]) => ({ row: atIndex(rows, line), node: write(line).node, target: row.node })),
      writeId,
    ),
  );
}

/**
 * Consecutive upserts, updates and ID removals of one customer's bulk batch (each joinsOthers, their keys
 * distinct), each step one statement for all of them: lock the nodes (node.lock-many), read again which of the
 * IDs they name each holds (node.held-many), unlink (node.unlink-many), link (node.link-many). Each line does what
 * its single write does, and is refused as it would be (changeOf); the first refusal in line order is answered,
 * as insertIntoNodes does. All unlinks come before all links: a line's ID unlinked from one node and linked to
 * another by a later line is then a new Id vertex, where line by line it was the same one, the same graph.
 */
export async function changeNodes(
  q: Query,
  changes: readonly ChangeWrite[],
  writeId: string,
  guards: SchemaGuards,
  entries: HistoryEntry[],
  appendHistory?: AppendHistory,
): Promise<RunRefusal | undefined> {
  const write = (line: number) => atIndex(changes, line);
  const guarding = guardRun(q, changes, writeId, guards, (w) => w.kind === 'replace');
  const found = await lockHoldingMany(q, changes, writeId, namedIds, guarding);
  const { passed, refused } = await guarding;
  const missing = passed.findIndex((_, line) => !found.has(line));
  const notFound = missing < 0 ? undefined : { at: missing, error: nodeNotFound(write(missing).node) };
  const planned: Array<{ line: number; node: string; change: Change }> = [];
  let exists: RunRefusal | undefined;
  for (const line of passed.keys()) {
    const row = found.get(line);
    if (!row) continue;
    try {
      planned.push({ line, node: row.node, change: changeOf(write(line), (id) => row.held.some((h) => sameId(h, id))) });
    } catch (e) {
      if (!isDomainError(e)) throw e;
      if (!exists || line < exists.at) exists = { at: line, error: e };
    }
  }
  const before = firstRefusal(refused, notFound, exists);
  if (before) return before;
  const customer = changes[0]?.node.customerId;
  const unlinks = planned.flatMap(({ node, change: { unlink } }) => (unlink ? [{ node, type: unlink.type, id: unlink.id }] : []));
  const links = planned.flatMap(({ line, node, change: { link, grows } }) => {
    const { maxIds } = write(line).node;
    return link ? [{ node, row: linkRow(line, write(line).node, [link], grows ? maxIds : undefined), separated: found.get(line)?.separated === true }] : [];
  });
  // Sent at once, run in this order: all unlinks, all links but those of nodes with a separation, the history.
  const unlinking = unlinks.length > 0 ? q('node.unlink-many', { rows: unlinks }) : Promise.resolve([]);
  const fitting = linkMany(
    q,
    customer,
    links.filter((l) => !l.separated).map((l) => l.row),
    false,
  );
  const now = new Date().toISOString();
  for (const { line, change } of planned) entries.push(...changeEntries(write(line), change, now));
  await together(unlinking, fitting, appendHistory?.());
  const over = firstOver(await fitting, (line) => write(line).node);
  const separated = links.filter((l) => l.separated && (over === undefined || l.row.line < over.at));
  return firstRefusal(
    over,
    await linkSeparated(
      q,
      customer,
      separated.map(({ node, row }) => ({ row, node: write(row.line).node, target: node })),
      writeId,
    ),
  );
}

/**
 * Consecutive deletes of one customer's bulk batch (their keys distinct): lock the nodes (node.lock-many) and read
 * again what each holds (node.ids-many) in one round trip, with the read of the policy each was checked against when
 * that was a kept one (SchemaGuards.refuseIfPolicyChanged), then delete them (node.delete-many), with `appendHistory`
 * when given. A node missing, or moved by a rekey while its lock was awaited, refuses its line (node_not_found), the
 * first such in line order.
 */
export async function deleteNodes(
  q: Query,
  deletes: readonly DeleteWrite[],
  writeId: string,
  guards: SchemaGuards,
  entries: HistoryEntry[],
  appendHistory?: AppendHistory,
): Promise<RunRefusal | undefined> {
  const ids = (keys: LineKey[]) => q<{ line: number; node: string; ids: IdPair[] }>('node.ids-many', { customer: deletes[0]?.node.customerId, rows: keys });
  const guarding = guardRun(q, deletes, writeId, guards, () => false);
  const held = await lockAndReadMany(q, deletes, writeId, ids, guarding);
  const { passed, refused } = await guarding;
  const missing = passed.findIndex((_, line) => !held.has(line));
  if (missing >= 0) return { at: missing, error: nodeNotFound(atIndex(deletes, missing).node) };
  if (refused) return refused;
  const now = new Date().toISOString();
  for (const [line, { node }] of deletes.entries()) entries.push(historyEntry(node, 'delete', [], [...(held.get(line)?.ids ?? [])].sort(byTypeThenId), now));
  await together(q('node.delete-many', { nodes: [...held.values()].map((row) => row.node) }), appendHistory?.());
  return undefined;
}

/** Store.rekey inside its write transaction `writeId`. */
export async function rekeyInGraph(q: Query, node: NodeAddress, newId: string, writeId: string): Promise<void> {
  const newKey: IdPair = { type: node.key.type, id: newId };
  // The new key is an ID the node may come to hold: checked against the schema as other writes adding IDs are.
  const { target, holds, separated } = await lockHolding(q, node, writeId, [node.key, newKey], new SchemaGuards().refuseIfSchemaChanged(q, node, writeId));
  if (newId === node.key.id) return;
  const [taken] = await q('node.find', keyParams({ ...node, key: newKey }));
  if (taken) throw nodeExists(node, newKey);
  if (!holds(newKey)) await refuseIfOverHolderLimit(q, node, [newKey], writeId);
  if (!holds(newKey) && separated) await refuseIfSeparated(q, node, target, [newKey], writeId);
  // A concurrent create or rekey onto the same key fails here on the key constraint (node_exists).
  await q('node.rekey', { node: target, keyId: newId });
  if (holds(node.key)) await unlink(q, target, node.key);
  if (!holds(newKey)) await link(q, target, [newKey]);
  await appendHistory(q, node.customerId, [historyEntry(node, 'rekeying', [newKey], [node.key], new Date().toISOString())], writeId);
}

/** The IDs the node holds, in type then value order; undefined when there is no such node. */
export async function nodeIds(q: Query, node: NodeAddress): Promise<IdPair[] | undefined> {
  const [row] = await q<{ ids: IdPair[] }>('node.ids', keyParams(node));
  return row ? [...row.ids].sort(byTypeThenId) : undefined;
}
