// Imports (docs/changes-and-export.md): an export written into an empty customer. The HTTP layer hands over each line
// with its shape checked as its write's body would be; this checks what a write would check beyond its shape (the
// types a schema declares, a node's size, ids given out, the order that makes an export one) and that the lines
// are one whole export, batches them to the store (./ports/imports.ts), and undoes everything when a line is refused,
// the body ends without its end line, or the client goes away. The customer answers its other requests with
// import_in_progress meanwhile (isImporting: in this process, and in the others that share the store once they have
// read its marks), and an import a crash interrupted is undone at the next start (abandonUnfinished).
import { type BlockRule, checkRules } from './blocklist';
import { compareCodePoints } from './code-point-order';
import { DomainError, isDomainError } from './errors';
import { type CustomerSettings, DEFAULT_SETTINGS, idKey, type IdTypeDeclaration, type SchemaRecord, type Separation, sameTypeOptions } from './model';
import type { Delivery } from './ports/deliveries';
import type { ImportBatch, ImportStore } from './ports/imports';
import type { DeliveryIdsGiven, ImpressionTally, KeyHistory, SnapshotNode, SnapshotPart } from './ports/snapshots';
import { ianaTimeZone } from './timezone';
import { type Caller, requireAdmin } from './tokens';

/** One line of an export, as the domain has it. */
export type ImportRecord =
  | { kind: 'export'; format: number }
  | { kind: 'settings'; settings: CustomerSettings }
  | { kind: 'blocklist'; rules: BlockRule[] }
  | { kind: 'schema'; schema: SchemaRecord }
  | { kind: 'node'; node: SnapshotNode }
  | { kind: 'separation'; separation: Separation }
  | { kind: 'deliveryIds'; given: DeliveryIdsGiven }
  | { kind: 'delivery'; delivery: Delivery }
  | { kind: 'impressions'; tally: ImpressionTally }
  | { kind: 'history'; history: KeyHistory }
  | { kind: 'end'; lines: number };

/** A batch the checks made, with the line of each of its separations. */
type TakenBatch = ReturnType<ImportChecks['take']>;

/**
 * Whether a batch holds records that name records of other batches, or that other batches' records name: schemas
 * (nodes name them), separations (they name nodes), delivery ids, deliveries and impression counts. Such a batch is
 * written alone.
 */
const namesOtherBatches = (batch: ImportBatch): boolean =>
  batch.schemas.length > 0 || batch.separations.length > 0 || batch.deliveryIds !== undefined || batch.deliveries.length > 0 || batch.impressions.length > 0;

/**
 * An import's batches being written, in the export's order: up to `atOnce` batches of nodes and history at a time,
 * and every other batch alone (namesOtherBatches). A failed batch stops the import; the earliest one's failure is what
 * it answers, since it names the earliest line.
 */
class BatchWrites {
  private readonly underWay = new Set<Promise<void>>();
  private failure: { index: number; reason: Error } | undefined;
  private started = 0;
  private aloneUnderWay = false;

  constructor(
    private readonly atOnce: number,
    private readonly write: (taken: TakenBatch) => Promise<void>,
  ) {}

  /** Starts writing `taken` as soon as it may; throws the earliest failure of a batch before it. */
  async add(taken: TakenBatch): Promise<void> {
    const alone = namesOtherBatches(taken.batch);
    await this.drain(alone || this.aloneUnderWay ? 0 : this.atOnce - 1);
    const index = this.started++;
    const writing: Promise<void> = this.write(taken).then(
      () => {
        this.underWay.delete(writing);
      },
      (e: unknown) => {
        this.underWay.delete(writing);
        const reason = e instanceof Error ? e : new Error(String(e));
        if (this.failure === undefined || index < this.failure.index) this.failure = { index, reason };
      },
    );
    this.underWay.add(writing);
    this.aloneUnderWay = alone;
  }

  /** Waits for every batch under way; answers the earliest failure, if any. */
  async ended(): Promise<Error | undefined> {
    while (this.underWay.size > 0) await Promise.race(this.underWay);
    return this.failure?.reason;
  }

  private async drain(left: number): Promise<void> {
    while (this.underWay.size > left) await Promise.race(this.underWay);
    if (this.failure !== undefined) throw this.failure.reason;
  }
}

/**
 * A line of the body: its number (from 1), and its record, with the size of its text when it was read as text (what
 * IMPORT_BATCH_BYTES counts), or the refusal of its shape.
 */
export type ImportLine = { number: number; record: ImportRecord; bytes?: number } | { number: number; refused: DomainError };

/**
 * A batch is handed to the store once its lines hold this many bytes, whatever their weight: a line weighs what the
 * store writes of it (IDs, entries, days), and some weigh little for their size (a history entry of long texts,
 * impressions without days), so that weight alone would not bound the memory of a batch.
 */
export const IMPORT_BATCH_BYTES = 8 * 1024 * 1024;

export interface ImportCounts {
  schemas: number;
  nodes: number;
  /** IDs the nodes hold, keys included. */
  ids: number;
  separations: number;
  deliveries: number;
  historyEntries: number;
}

export interface ImportLimits {
  /** NODE_MAX_IDS: the most IDs a node may hold, its key included. */
  nodeMaxIds: number;
}

/** The order of an export's kinds; a kind marked once appears at most once. */
const KINDS: Record<ImportRecord['kind'], { rank: number; once: boolean }> = {
  export: { rank: 0, once: true },
  settings: { rank: 1, once: true },
  blocklist: { rank: 2, once: true },
  schema: { rank: 3, once: false },
  node: { rank: 4, once: false },
  separation: { rank: 5, once: false },
  deliveryIds: { rank: 6, once: true },
  delivery: { rank: 7, once: false },
  impressions: { rank: 8, once: false },
  history: { rank: 9, once: false },
  end: { rank: 10, once: true },
};

const byPairs = (a: readonly string[], b: readonly string[]): number => {
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
    const order = compareCodePoints(a[i] ?? '', b[i] ?? '');
    if (order !== 0) return order;
  }
  return a.length - b.length;
};

/** Why a line is refused: the problem the answer carries (its detail names the line, never a value). */
const refusedLine = (line: number, why: string): DomainError => new DomainError('invalid_import', `Line ${line}: ${why}`, undefined, { line });

/** Checks the lines of one import in order, and gathers them into batches. */
class ImportChecks {
  readonly counts: ImportCounts = { schemas: 0, nodes: 0, ids: 0, separations: 0, deliveries: 0, historyEntries: 0 };
  settings: CustomerSettings = { ...DEFAULT_SETTINGS };
  rules: BlockRule[] = [];
  ended = false;
  private rank = -1;
  private lines = 0;
  private readonly schemas = new Map<string, SchemaRecord>();
  /** Every type any schema declares, with its options: one declaration per type and customer. */
  private readonly types = new Map<string, IdTypeDeclaration>();
  private readonly deliveryIds = new Set<number>();
  private given: DeliveryIdsGiven | undefined;
  /** The sort key of the last record of the current kind: each must come after it. */
  private last: string[] | undefined;
  batch: ImportBatch = emptyBatch();
  /** The line of each separation of the batch. */
  separationLines: number[] = [];
  weight = 0;

  constructor(private readonly limits: ImportLimits) {}

  /** Checks `record` (line `line`) and adds it to the batch; throws invalid_import naming the line. */
  add(line: number, record: ImportRecord): void {
    const fail = (why: string) => refusedLine(line, why);
    if (this.ended) throw fail('nothing may follow the end line');
    const kind = KINDS[record.kind];
    if (this.rank === -1 && record.kind !== 'export') throw fail('an import starts with the export line');
    if (kind.rank < this.rank || (kind.rank === this.rank && kind.once))
      throw fail(`a ${record.kind} line cannot come here: the lines come in the order an export writes them`);
    if (kind.rank > this.rank) this.last = undefined;
    this.rank = kind.rank;
    const inOrder = (key: string[]) => {
      if (this.last && byPairs(this.last, key) >= 0) throw fail(`${record.kind} lines come in code-point order, each once`);
      this.last = key;
    };
    switch (record.kind) {
      case 'export':
        if (record.format !== 1) throw fail('this service reads format 1');
        break;
      case 'settings': {
        const timezone = ianaTimeZone(record.settings.timezone);
        if (timezone === undefined) throw fail('timezone is not an IANA time-zone name');
        this.settings = { requireToken: record.settings.requireToken, timezone };
        break;
      }
      case 'blocklist':
        try {
          checkRules(record.rules);
        } catch (e) {
          if (isDomainError(e)) throw fail(`the blocklist cannot be stored: ${e.message}`);
          throw e;
        }
        this.rules = record.rules;
        break;
      case 'schema':
        inOrder([record.schema.schemaId]);
        this.schema(record.schema, fail);
        break;
      case 'node':
        inOrder([record.node.schemaId, record.node.key.type, record.node.key.id]);
        this.node(record.node, fail);
        break;
      case 'separation': {
        const { a, b } = record.separation;
        const first = [a.schemaId, a.key.type, a.key.id];
        const second = [b.schemaId, b.key.type, b.key.id];
        if (byPairs(first, second) >= 0) throw fail('a separation names two different nodes, the first in code-point order first');
        inOrder([...first, ...second]);
        this.batch.separations.push(record.separation);
        this.separationLines.push(line);
        this.counts.separations += 1;
        this.weight += 1;
        break;
      }
      case 'deliveryIds':
        this.given = record.given;
        this.batch.deliveryIds = record.given;
        break;
      case 'delivery':
        inOrder([String(record.delivery.deliveryId).padStart(16, '0')]);
        this.delivery(record.delivery, fail);
        break;
      case 'impressions':
        inOrder([record.tally.id.type, record.tally.id.id, String(record.tally.deliveryId).padStart(16, '0')]);
        if (!this.deliveryIds.has(record.tally.deliveryId)) throw fail('impressions name a delivery the import has no line of');
        record.tally.days.forEach((d, i) => {
          if (!isCalendarDay(d.day)) throw fail('a day is not a calendar day YYYY-MM-DD');
          const before = record.tally.days[i - 1];
          if (before && before.day >= d.day) throw fail('days come in order, each once');
        });
        this.batch.impressions.push(record.tally);
        this.weight += record.tally.days.length;
        break;
      case 'history': {
        const { history } = record;
        inOrder([history.schemaId, history.key.type, history.key.id === null ? '\u{10FFFF}erased' : `\u0000${history.key.id}`]);
        if (history.entries.length === 0) throw fail('a history line holds at least one entry');
        for (const e of history.entries) {
          if (e.schema !== history.schemaId || e.key.type !== history.key.type || e.key.id !== history.key.id)
            throw fail("an entry's schema and key are its line's");
          if (Number.isNaN(Date.parse(e.at))) throw fail("an entry's time is not a date-time");
        }
        this.batch.history.push(history);
        this.counts.historyEntries += history.entries.length;
        this.weight += history.entries.length;
        break;
      }
      case 'end':
        if (record.lines !== this.lines) throw fail(`the end line counts ${record.lines} lines before it, and ${this.lines} came`);
        this.ended = true;
        break;
    }
    this.lines += 1;
  }

  private schema(schema: SchemaRecord, fail: (why: string) => DomainError): void {
    const seen = new Set<string>();
    for (const t of schema.idTypes) {
      if (seen.has(t.type)) throw fail(`the schema declares a type twice`);
      seen.add(t.type);
      const other = this.types.get(t.type);
      if (other && other.secure !== t.secure) throw fail(`type '${t.type}' is secure in one schema and not in another`);
      if (other && !sameTypeOptions(other, t)) throw fail(`type '${t.type}' has other options in another schema`);
      this.types.set(t.type, t);
    }
    this.schemas.set(schema.schemaId, schema);
    this.batch.schemas.push(schema);
    this.counts.schemas += 1;
    this.weight += 1;
  }

  private node(node: SnapshotNode, fail: (why: string) => DomainError): void {
    const schema = this.schemas.get(node.schemaId);
    if (!schema) throw fail('the node is in a schema the import has no line of');
    const declared = new Set(schema.idTypes.map((t) => t.type));
    if (!declared.has(node.key.type)) throw fail("the node's key type is not declared by its schema");
    const held = new Set<string>([idKey(node.key)]);
    for (const id of node.ids) {
      if (!declared.has(id.type)) throw fail(`type '${id.type}' is not declared by the node's schema`);
      if (held.has(idKey(id))) throw fail('the node holds an ID twice, or its key among its ids');
      held.add(idKey(id));
    }
    if (held.size > this.limits.nodeMaxIds) throw fail(`the node holds more than NODE_MAX_IDS (${this.limits.nodeMaxIds}) IDs`);
    this.batch.nodes.push(node);
    this.counts.nodes += 1;
    this.counts.ids += held.size;
    this.weight += held.size;
  }

  private delivery(d: Delivery, fail: (why: string) => DomainError): void {
    const given = this.given;
    if (!given) throw fail('deliveries come after the delivery_ids line');
    if (d.deliveryId < 1 || d.deliveryId > given.delivery) throw fail('the delivery id is not one delivery_ids says was given');
    if (d.condition.conditionId < 1 || d.condition.conditionId > given.condition) throw fail('the condition id is not one delivery_ids says was given');
    if (d.message.some((m) => m.messageId < 1 || m.messageId > given.message)) throw fail('a message id is not one delivery_ids says was given');
    const counts = [d.condition.deliveryCount, d.condition.iphoneDeliveryCount, d.condition.androidDeliveryCount];
    if (counts.some((n) => !Number.isSafeInteger(n) || n < 0)) throw fail('a count is not a whole number of 0 or more');
    this.deliveryIds.add(d.deliveryId);
    this.batch.deliveries.push(d);
    this.counts.deliveries += 1;
    this.weight += 1;
  }

  /** The batch so far with the lines of its separations, and a new one begun. */
  take(): { batch: ImportBatch; separationLines: number[] } {
    const taken = { batch: this.batch, separationLines: this.separationLines };
    this.batch = emptyBatch();
    this.separationLines = [];
    this.weight = 0;
    return taken;
  }
}

const emptyBatch = (): ImportBatch => ({ schemas: [], nodes: [], separations: [], deliveries: [], impressions: [], history: [] });

/** A real calendar day, YYYY-MM-DD. */
function isCalendarDay(day: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return false;
  const parsed = new Date(`${day}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().startsWith(day);
}

export class ImportService {
  private readonly importing = new Set<string>();
  /** The customers the store marked as importing when readMarks last read them: other processes' imports too. */
  private marked = new Set<string>();
  /**
   * When each import of this process ended, by Date.now: a read of the marks begun before then is out of date. Kept
   * only when a read is under way as it ends (none ever is on SQLite), and until a read begun after it answers.
   */
  private readonly ended = new Map<string, number>();
  /** The reads of the marks under way. */
  private marksReading = 0;
  /** The reads of the marks begun, and the last whose answer was taken: an older read answering later is left. */
  private marksRead = 0;
  private marksTaken = 0;

  constructor(
    private readonly store: ImportStore,
    private readonly limits: ImportLimits,
  ) {}

  /**
   * Whether the customer is importing, in this process or, as of the last readMarks, in another that shares the
   * store: its other requests answer import_in_progress.
   */
  isImporting(customerId: string): boolean {
    return this.importing.has(customerId) || this.marked.has(customerId);
  }

  /**
   * Reads which customers the store marks as importing (unfinishedImports(0)): what isImporting answers for the
   * imports of other processes. Those of this process that ended after the read began are left out.
   */
  async readMarks(): Promise<void> {
    const read = (this.marksRead += 1);
    const began = Date.now();
    this.marksReading += 1;
    let marked: string[];
    try {
      marked = await this.store.unfinishedImports(0);
    } finally {
      this.marksReading -= 1;
    }
    if (read < this.marksTaken) return;
    this.marksTaken = read;
    for (const [customerId, at] of this.ended) if (at < began) this.ended.delete(customerId);
    this.marked = new Set(marked.filter((customerId) => !this.ended.has(customerId)));
  }

  /**
   * Imports `lines` into the customer (the administrator only): customer_not_empty, import_in_progress, or
   * invalid_import naming the line, and the customer is as it was. `signal`: the client went away (the import is
   * undone).
   */
  async import(caller: Caller, customerId: string, lines: AsyncIterable<ImportLine>, signal: AbortSignal): Promise<ImportCounts> {
    requireAdmin(caller);
    if (this.importing.has(customerId)) throw new DomainError('import_in_progress', 'An import of this customer is under way; retry once it has ended.');
    this.importing.add(customerId);
    try {
      const batching = await this.store.importBatching();
      await this.store.beginImport(customerId);
      // The store writes its batches while the lines of the next are read and checked: at most atOnce + 1 in memory.
      const writes = new BatchWrites(batching.atOnce, (taken) => this.write(customerId, taken));
      try {
        const checks = new ImportChecks(this.limits);
        let number = 0;
        let bytes = 0;
        for await (const line of lines) {
          if (signal.aborted) break;
          number = line.number;
          if ('refused' in line) throw refusedLine(line.number, line.refused.message);
          checks.add(line.number, line.record);
          bytes += line.bytes ?? 0;
          if (checks.weight >= batching.weight || bytes >= IMPORT_BATCH_BYTES) {
            bytes = 0;
            await writes.add(checks.take());
          }
        }
        if (signal.aborted) throw new DomainError('request_timeout', 'The client went away before the import ended.');
        if (!checks.ended) throw new DomainError('invalid_import', `The body ended after line ${number} without the end line: the export is cut.`);
        await writes.add(checks.take());
        const failed = await writes.ended();
        if (failed !== undefined) throw failed;
        await this.store.finishImport(customerId, checks.settings, checks.rules);
        return checks.counts;
      } catch (e) {
        // The batches under way end first; what they refused names an earlier line than a line checked meanwhile.
        const earlier = await writes.ended();
        await this.store.abandonImport(customerId);
        throw earlier ?? e;
      }
    } finally {
      this.importing.delete(customerId);
      this.marked.delete(customerId);
      if (this.marksReading > 0) this.ended.set(customerId, Date.now());
    }
  }

  private async write(customerId: string, { batch, separationLines }: TakenBatch): Promise<void> {
    const refusal = await this.store.importBatch(customerId, batch);
    if (refusal) throw refusedLine(separationLines[refusal.separation] ?? 0, 'the separation names a node the import has no line of');
  }

  /** Undoes the imports a process that stopped left unfinished: those idle for `idleMs`. Answers the customers. */
  async abandonUnfinished(idleMs: number): Promise<string[]> {
    const left = (await this.store.unfinishedImports(idleMs)).filter((c) => !this.importing.has(c));
    for (const customerId of left) await this.store.abandonImport(customerId);
    return left;
  }
}

/**
 * A snapshot's parts as the lines of its export, numbered from 1, the header first and the end line last: what an
 * import of one store's customer into another reads (src/migrate.ts), without the NDJSON between them.
 */
export async function* exportRecords(parts: AsyncIterable<SnapshotPart>): AsyncGenerator<ImportLine> {
  let number = 0;
  const numbered = (record: ImportRecord): ImportLine => ({ number: (number += 1), record });
  yield numbered({ kind: 'export', format: 1 });
  for await (const part of parts) {
    switch (part.kind) {
      case 'settings':
        yield numbered({ kind: 'settings', settings: part.settings });
        break;
      case 'blocklist':
        yield numbered({ kind: 'blocklist', rules: part.rules });
        break;
      case 'schemas':
        for (const schema of part.schemas) yield numbered({ kind: 'schema', schema });
        break;
      case 'nodes':
        for (const node of part.nodes) yield numbered({ kind: 'node', node });
        break;
      case 'separations':
        for (const separation of part.separations) yield numbered({ kind: 'separation', separation });
        break;
      case 'deliveryIds':
        yield numbered({ kind: 'deliveryIds', given: part.given });
        break;
      case 'deliveries':
        for (const delivery of part.deliveries) yield numbered({ kind: 'delivery', delivery });
        break;
      case 'impressions':
        for (const tally of part.tallies) yield numbered({ kind: 'impressions', tally });
        break;
      case 'history':
        for (const history of part.keys) yield numbered({ kind: 'history', history });
        break;
    }
  }
  yield { number: number + 1, record: { kind: 'end', lines: number } };
}
