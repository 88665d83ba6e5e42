// The Neo4j store's upgrades of what an earlier version wrote, numbered and recorded in the graph as SQLite records its
// own in schema_migrations: a (:Migration {version, name, changed, appliedAt}) per upgrade applied. Each runs once,
// at the first start that finds it unrecorded; later starts read the ledger and apply nothing.
import { adoptMentions, adoptPositions } from './neo4j-history';
import { adoptKeys } from './neo4j-impressions';
import type { Transactions, Write } from './neo4j-transactions';
import { int } from './query';

/** Vertices per transaction of the labelling for Neo4j Browser. */
const LABEL_BATCH = 10_000;

/** What an upgrade runs its statements with. */
export interface MigrationContext {
  write: Write;
  /** For statements that commit in batches of their own (CALL { } IN TRANSACTIONS). */
  autoCommit: Transactions['autoCommit'];
}

export interface Migration {
  /** Its place in the order they run in; never reused. */
  version: number;
  name: string;
  /**
   * Applies the upgrade in transactions of its own and answers how many records it changed. It must be idempotent:
   * a start that stopped part-way leaves its committed batches and no record, and the next start runs it again.
   */
  apply: (context: MigrationContext) => Promise<number>;
}

/** What one start applied. */
export interface AppliedMigration {
  version: number;
  name: string;
  changed: number;
}

const labelled = async ({ autoCommit }: MigrationContext, statement: 'node.add-schema-labels' | 'id.add-type-labels') =>
  (await autoCommit<{ labelled: number }>(statement, { batch: int(LABEL_BATCH) }))[0]?.labelled ?? 0;

/** The upgrades, in the order they apply. Each cypher file says what it moves from and why. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'per-customer delivery id counters',
    apply: async ({ write }) => (await write((q) => q<{ adopted: number }>('sequence.adopt-shared'), { limitMs: Infinity }))[0]?.adopted ?? 0,
  },
  { version: 2, name: 'history entries name their values as MENTIONS', apply: ({ write }) => adoptMentions(write) },
  { version: 3, name: 'idempotency keys stored without their ID marked for erasure', apply: ({ write }) => adoptKeys(write) },
  { version: 4, name: 'schema labels on nodes for Neo4j Browser', apply: (context) => labelled(context, 'node.add-schema-labels') },
  { version: 5, name: 'type and SecureId labels on IDs for Neo4j Browser', apply: (context) => labelled(context, 'id.add-type-labels') },
  { version: 6, name: 'history entries take their position in the change feed', apply: ({ write }) => adoptPositions(write) },
];

/**
 * Applies the upgrades the ledger has not recorded, in order, and answers them. All of it happens while one
 * transaction holds the ledger's lock (migration.lock.cypher) and writes the records: a second service starting at
 * the same time waits for it, and then finds every upgrade recorded. A service that stops part-way releases the lock
 * with its connection and records nothing; the next start applies those upgrades again, which finds done what their
 * committed batches did. No time limit: a first start on a large database reads every record an upgrade concerns.
 * An upgrade that fails stops the start with its version and name.
 */
export function migrate(context: MigrationContext, migrations: readonly Migration[] = MIGRATIONS): Promise<AppliedMigration[]> {
  return context.write(
    async (q) => {
      const [ledger] = await q<{ applied: number[] }>('migration.lock');
      const recorded = new Set(ledger?.applied ?? []);
      const applied: AppliedMigration[] = [];
      for (const { version, name, apply } of migrations) {
        if (recorded.has(version)) continue;
        let changed: number;
        try {
          changed = await apply(context);
        } catch (e) {
          throw new Error(`upgrade ${version} (${name}) failed: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
        }
        await q('migration.record', { version: int(version), name, changed: int(changed) });
        applied.push({ version, name, changed });
      }
      return applied;
    },
    { limitMs: Infinity },
  );
}
