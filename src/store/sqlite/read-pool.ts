// The SQLite store's read pool: worker threads (piscina) that run the searches, graphs and `_why` searches too big
// for the event loop (docs/performance.md, "Mixed load and the read pool"), so that one analyst's 1,000-node search
// does not hold up every app's small lookups. Each thread
// reads through a read-only connection of its own (src/store/sqlite/search-worker.ts); writes keep the store's one
// connection and its group commit.
import path from 'node:path';
import { Piscina } from 'piscina';
import { DomainError } from '../../domain/errors';
import type { GraphComponent, GraphQuery } from '../../domain/graph';
import type { AnswerRoom, SearchQuery, SearchResult } from '../../domain/model';
import type { WhyFound, WhyQuery } from '../../domain/why';
import type { ReadAnswer, ReadFound, ReadTask } from './search-worker';

/**
 * The compiled worker: beside this file in dist/; when this file runs from src/ (ts-jest), the one in dist/, which
 * the test setup builds first (test/global-setup.js), as `npm start` does.
 */
const WORKER = __filename.endsWith('.ts')
  ? path.resolve(__dirname, '..', '..', '..', 'dist', 'store', 'sqlite', 'search-worker.js')
  : path.join(__dirname, 'search-worker.js');

export class ReadPool {
  private readonly pool: Piscina;

  constructor(
    private readonly file: string,
    threads: number,
  ) {
    // Threads start when reads need them and stop after a minute without any. A thread's young generation is held
    // to 4 MB (V8's default lets it grow to tens of MB, garbage mostly): with two threads under the big searches,
    // the service's peak RSS measured 297–300 MB instead of 317–322, at the same rate. The old generation's bound
    // is far above what a search within TRAVERSAL_MAX_* holds; past it the thread ends and that read is 503.
    this.pool = new Piscina({
      filename: WORKER,
      minThreads: 0,
      maxThreads: threads,
      idleTimeout: 60_000,
      resourceLimits: { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 512 },
    });
  }

  async search(query: SearchQuery): Promise<SearchResult> {
    const { answerRoom, ...plain } = query;
    const answer = await this.read({ path: this.file, kind: 'search', query: plain, freeBytes: answerRoom?.freeBytes ?? Infinity }, answerRoom);
    if (answer.kind !== 'search') throw wrongKind('search', answer);
    return answer.found;
  }

  async graph(query: GraphQuery): Promise<GraphComponent> {
    const { answerRoom, ...plain } = query;
    const answer = await this.read({ path: this.file, kind: 'graph', query: plain, freeBytes: answerRoom?.freeBytes ?? Infinity }, answerRoom);
    if (answer.kind !== 'graph') throw wrongKind('graph', answer);
    return answer.found;
  }

  /** A `_why` answers one chain: it takes no answer room. */
  async why(query: WhyQuery): Promise<WhyFound> {
    const answer = await this.read({ path: this.file, kind: 'why', query, freeBytes: Infinity }, undefined);
    if (answer.kind !== 'why') throw wrongKind('why', answer);
    return answer.found;
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }

  /**
   * Runs the read on a thread. A thread cannot take room in the answer budget (it lives on the event loop): when
   * the answer needs some, the thread answers its size before reading any ID value, the room is taken here (or the
   * read refused), and the read runs again with its room.
   */
  private async read(task: ReadTask, room: AnswerRoom | undefined): Promise<ReadFound> {
    let answer = await this.run(task);
    if ('needsRoom' in answer) {
      room?.take(answer.needsRoom);
      answer = await this.run({ ...task, freeBytes: Infinity });
    }
    if ('refused' in answer) throw new DomainError(answer.refused.code, answer.refused.message);
    if ('needsRoom' in answer) throw new DomainError('store_unavailable', 'The embedded store cannot be read right now.');
    return answer.ok;
  }

  private async run(task: ReadTask): Promise<ReadAnswer> {
    try {
      // What the worker's read() answers, structured-cloned across the thread boundary (piscina types it `any`).
      return (await this.pool.run(task)) as ReadAnswer;
    } catch {
      // The thread could not read (the file gone, the pool closing): what the store answers when it cannot be used.
      throw new DomainError('store_unavailable', 'The embedded store cannot be read right now.');
    }
  }
}

/** A thread answered another kind of read than it was given: a fault of the pool, not of the request. */
const wrongKind = (asked: ReadTask['kind'], answer: ReadFound): Error => new Error(`The read pool answered a ${answer.kind} read to a ${asked} read.`);
