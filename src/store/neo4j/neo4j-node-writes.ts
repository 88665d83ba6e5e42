// How the node writes of ./neo4j-nodes.ts become transactions (./neo4j-transactions.ts): one transaction per single
// write, with its history entry; bulk lines, and single writes that arrive together (./write-gathering.ts), many to
// a transaction (./neo4j-bulk.ts); and, for each, how a retry after a lost commit reply knows that its write went
// through (ifCommitted).
import { type DomainError, isDomainError } from '../../domain/errors';
import { at as atIndex, present } from '../../domain/invariant';
import type { HistoryEntry, IdPair, NodeAddress } from '../../domain/model';
import { nodeExists } from '../../domain/refusals';
import type { MarkedWrite } from './kept-policies';
import { isConstraintViolation } from './driver-errors';
import { applyInBatches, type Refusal } from './neo4j-bulk';
import { appendHistory } from './neo4j-history';
import {
  type ChangeWrite,
  changeNodes,
  type CreateWrite,
  createNodes,
  type DeleteWrite,
  deleteNodes,
  type InsertWrite,
  insertIntoNodes,
  type AppendHistory,
  type JoiningWrite,
  joinsOthers,
  keyOf,
  keyParams,
  nodeWork,
  rekeyInGraph,
  type RunRefusal,
} from './neo4j-nodes';
import { COMMITTED, type IfCommitted, type Write } from './neo4j-transactions';
import type { Query } from './query';
import { SchemaGuards } from './schema-guards';

/**
 * Lines of a bulk request per transaction. A batch holds the locks of all its nodes until it commits, so single
 * writes to those nodes wait that long: larger batches save a little per line but make those writes wait longer
 * (docs/performance.md, "On Neo4j").
 */
const BULK_BATCH_LINES = 100;

/** Thrown inside a bulk batch's transaction to roll it back, carrying what refused it (see writeNodeBatch). */
class LineRefused extends Error {
  constructor(readonly refusal: Refusal | 'unattributed') {
    super('A bulk line was refused.');
  }
}

/**
 * ifCommitted of node writes that end with `last` (a single write, or a bulk batch, which commits only when all
 * its lines were applied): every node write marks its node with the write id, so the node `last` leaves at its
 * address carries it. A delete leaves no node, but its history entry, under the node's key, carries the write id
 * too. The node merely being gone is not enough: another delete or an erase of it may have committed while this
 * one's commit failed, and both would then answer that they deleted it.
 */
function nodeWritten(last: { kind: MarkedWrite['kind'] | 'rekey'; node: NodeAddress }): IfCommitted<void> {
  return async (q, writeId) => {
    if (last.kind === 'deleteNode') {
      const [entry] = await q('history.written-by', { ...keyParams(last.node), write: writeId });
      return entry ? COMMITTED : undefined;
    }
    const [row] = await q<{ lastWrite: string | null }>('node.last-write', keyParams(last.node));
    return row?.lastWrite === writeId ? COMMITTED : undefined;
  };
}

/**
 * One node write as its own transaction; alone in it, the write appends its history entry itself (NodeWork).
 * `committing`: see WriteOptions.
 */
export function writeNode(write: Write, w: MarkedWrite, committing?: () => void): Promise<void> {
  const { work, onConstraintViolation } = nodeWork(w);
  return write(
    async (q, writeId) => {
      await work(q, writeId, new SchemaGuards(), [], true);
    },
    { onConstraintViolation, ifCommitted: nodeWritten(w), committing },
  );
}

/** Store.rekey as its own transaction. */
export function rekey(write: Write, node: NodeAddress, newId: string): Promise<void> {
  const newKey: IdPair = { type: node.key.type, id: newId };
  return write((q, writeId) => rekeyInGraph(q, node, newId, writeId), {
    onConstraintViolation: () => nodeExists(node, newKey),
    // The node carries the mark under its new key.
    ifCommitted: nodeWritten({ kind: 'rekey', node: { ...node, key: newKey } }),
  });
}

/** Store.applyNodeWrites: batches of BULK_BATCH_LINES lines, each one transaction, with refused lines undone alone. */
export function applyNodeWrites(write: Write, writes: MarkedWrite[]): Promise<Array<DomainError | undefined>> {
  return applyInBatches(writes, BULK_BATCH_LINES, (lines) => writeNodeBatch(write, lines));
}

/** Which lines a run may hold together: those of one kind, upserts, updates and ID removals being one (changeNodes). */
const runKind = (w: MarkedWrite) => (w.kind === 'replace' || w.kind === 'removeId' ? 'change' : w.kind);

/**
 * The run of lines from `at` on that createNodes, insertIntoNodes, changeNodes or deleteNodes can apply
 * together: consecutive, of one runKind, each joinsOthers, and up to the first that repeats a node's key among
 * them (it then sees what the run did to that node, as its own line).
 */
function runFrom(lines: readonly MarkedWrite[], at: number): JoiningWrite[] {
  const run: JoiningWrite[] = [];
  const keys = new Set<string>();
  const first = lines[at];
  for (const w of lines.slice(at)) {
    if (!joinsOthers(w) || first === undefined || runKind(w) !== runKind(first)) break;
    const key = JSON.stringify(keyOf(w.node));
    if (keys.has(key)) break;
    keys.add(key);
    run.push(w);
  }
  return run;
}

const isCreate = (w: JoiningWrite): w is CreateWrite => w.kind === 'create';
const isInsert = (w: JoiningWrite): w is InsertWrite => w.kind === 'insert';
const isChange = (w: JoiningWrite): w is ChangeWrite => w.kind === 'replace' || w.kind === 'removeId';
const isDelete = (w: JoiningWrite): w is DeleteWrite => w.kind === 'deleteNode';

/** The run as the writes of one kind, which runFrom makes it. */
function allOf<W extends JoiningWrite>(run: JoiningWrite[], is: (w: JoiningWrite) => w is W): W[] {
  if (!run.every(is)) throw new Error('Invariant broken: a run of node writes mixes kinds.');
  return run;
}

/**
 * Applies a run of runFrom (all of one runKind) in the transaction: the first line refused, if one is (its index
 * in the run). `appendHistory`: for the transaction's last run, sent with its last statement.
 */
function applyRun(
  q: Query,
  run: JoiningWrite[],
  writeId: string,
  guards: SchemaGuards,
  entries: HistoryEntry[],
  appendHistory?: AppendHistory,
): Promise<RunRefusal | undefined> {
  switch (run[0]?.kind) {
    case 'create':
      return createNodes(q, allOf(run, isCreate), writeId, guards, entries, appendHistory);
    case 'insert':
      return insertIntoNodes(q, allOf(run, isInsert), writeId, guards, entries, appendHistory);
    case 'replace':
    case 'removeId':
      return changeNodes(q, allOf(run, isChange), writeId, guards, entries, appendHistory);
    default:
      return deleteNodes(q, allOf(run, isDelete), writeId, guards, entries, appendHistory);
  }
}

/**
 * Runs `lines` in order in one transaction with one write id (RunBatch of ./neo4j-bulk.ts). A line refused with
 * a DomainError, or by a uniqueness constraint (node_exists), rolls the whole transaction back and is answered
 * as a Refusal. `limitMs`: the store's call limit unless given; `committing`: see WriteOptions.
 */
export async function writeNodeBatch(
  write: Write,
  lines: MarkedWrite[],
  limitMs?: number,
  committing?: () => void,
): Promise<Refusal | 'unattributed' | undefined> {
  const steps = lines.map((w) => nodeWork(w));
  const alone = steps.length === 1 ? steps[0] : undefined;
  try {
    await write(
      async (q, writeId) => {
        const guards = new SchemaGuards();
        const entries: HistoryEntry[] = [];
        const customer = lines[0]?.node.customerId ?? '';
        let appended = false;
        // All lines' entries in one statement: the batch commits them all or none.
        const appendAll = () => {
          appended = true;
          return appendHistory(q, customer, entries, writeId);
        };
        for (let at = 0; at < lines.length;) {
          const run = runFrom(lines, at);
          if (run.length > 1) {
            let refused;
            try {
              refused = await applyRun(q, run, writeId, guards, entries, at + run.length === lines.length ? appendAll : undefined);
            } catch (e) {
              // A key taken since node.create-many read it: the constraint names no line (the lines then run alone).
              if (isConstraintViolation(e)) throw new LineRefused('unattributed');
              throw e;
            }
            if (refused) throw new LineRefused({ at: at + refused.at, error: refused.error });
            at += run.length;
            continue;
          }
          const step = atIndex(steps, at);
          try {
            await step.work(q, writeId, guards, entries, false);
          } catch (e) {
            const error = isDomainError(e) ? e : step.onConstraintViolation && isConstraintViolation(e) ? step.onConstraintViolation() : undefined;
            // Anything else (a deadlock the driver retries, a vertex deleted meanwhile, the store gone) is not the line's.
            if (error === undefined) throw e;
            throw new LineRefused({ at, error });
          }
          at += 1;
        }
        if (!appended) await appendAll();
      },
      {
        // A uniqueness violation found only at commit is the line's when it is alone, and names no line otherwise.
        onConstraintViolation: () => {
          const error = alone?.onConstraintViolation?.();
          return new LineRefused(error ? { at: 0, error } : 'unattributed');
        },
        ifCommitted: nodeWritten(present(lines.at(-1), 'the last line of a batch')),
        limitMs,
        committing,
      },
    );
    return undefined;
  } catch (e) {
    if (e instanceof LineRefused) return e.refusal;
    throw e;
  }
}
