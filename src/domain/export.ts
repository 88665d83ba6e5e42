// Exports (docs/changes-and-export.md): a customer's whole state as of one position of its change feed, for a copy
// elsewhere, a move to the other store (`_import`), or a consumer of the feed to start from. The store reads it
// (./ports/snapshots.ts); this says who may, how many at once, and which feed cursor it is consistent with.
import { feedCursors } from './changes';
import { DomainError } from './errors';
import type { ChangeFeedStore } from './ports/changes';
import type { SnapshotOptions, SnapshotPart, SnapshotStore } from './ports/snapshots';
import { type Caller, requireCustomerToken } from './tokens';

/** An export under way: its feed cursor, its parts as they are read, and close(), to call however it ends. */
export interface OpenExport {
  cursor: string;
  parts: AsyncIterable<SnapshotPart>;
  close(): Promise<void>;
}

export class ExportService {
  private running = 0;

  constructor(
    /** Its feed key makes the cursor of the export's header. */
    private readonly store: SnapshotStore & Pick<ChangeFeedStore, 'feedKey'>,
    /** EXPORTS_MAX_RUNNING: each export holds a store connection (and on Neo4j the customer's writes) while it runs. */
    private readonly maxRunning: number,
  ) {}

  /** Opens the customer's snapshot: a bearer token of the customer or the administrator's; server_busy past maxRunning. */
  async open(caller: Caller, customerId: string, options: SnapshotOptions): Promise<OpenExport> {
    requireCustomerToken(caller, customerId);
    if (this.running >= this.maxRunning) {
      throw new DomainError('server_busy', 'Too many exports are running (EXPORTS_MAX_RUNNING); retry later.');
    }
    this.running += 1;
    let closed = false;
    const done = () => {
      if (closed) return false;
      closed = true;
      this.running -= 1;
      return true;
    };
    try {
      const cursors = await feedCursors(this.store);
      const snapshot = await this.store.openSnapshot(customerId, options);
      return {
        cursor: cursors.cursorOf(customerId, snapshot.position),
        parts: snapshot.parts,
        close: async () => {
          if (done()) await snapshot.close();
        },
      };
    } catch (e) {
      done();
      throw e;
    }
  }

  /** How many exports run now. */
  get runningExports(): number {
    return this.running;
  }
}
