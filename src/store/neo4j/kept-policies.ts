// What one service process keeps of its customers' policies between node writes, and how a write finds out that
// what was kept is out of date: a node write that may add IDs is checked against its schema and the customer's
// policy, and it takes its schema's guard in its transaction (cypher/schema.guard.cypher), which reads the
// schema's declarations and what the checks used of the policy besides them: whether a token is required, and
// the digest of the blocklist. A write checked against a kept policy carries the mark of what it was checked
// against (NodeAddress.policyMark); the guard's statement refuses it (schema_changed) unless the same holds now,
// and the store then forgets the policy, so that the write's next attempt is checked against a fresh read. So a
// changed setting, blocklist or schema holds for every process at its next write, as when every write read it.
//
// Only what a write checks again is kept: an entry whose schema exists, and whose blocklist is the one its digest
// names (a read of the rules and the digest of one put, even should a put's commit land between them).
import { createHash } from 'node:crypto';
import type { SchemaWithPolicy } from '../../domain/store';

/** Policies kept per process: the least recently read goes first. */
const KEPT = 1_024;

/** The digest blocklist.put stores beside a customer's rules: the SHA-256 of their text, in hex. */
export const blocklistDigest = (rules: string): string => createHash('sha256').update(rules).digest('hex');

/** The mark of what a node write's checks used of the policy besides its schema, null for what is absent. */
export const policyMark = (requireToken: boolean | null | undefined, digest: string | null | undefined): string =>
  JSON.stringify([requireToken ?? null, digest ?? null]);

/** What the policy statements read of the settings and the blocklist, each a list of at most one (none when absent). */
export interface MarkedRow {
  settings: Array<{ requireToken: boolean | null }>;
  blocklist: string[];
  blocklistDigest?: Array<string | null>;
}

type Kept = SchemaWithPolicy & { mark: string };

export class KeptPolicies {
  private readonly kept = new Map<string, Kept>();

  get(customerId: string, schemaId: string): Kept | undefined {
    return this.kept.get(keyOf(customerId, schemaId));
  }

  /** Keeps what was read, when a write can check it again, and answers it with its mark; else answers it unmarked. */
  keep(customerId: string, schemaId: string, row: MarkedRow | undefined, read: SchemaWithPolicy): SchemaWithPolicy {
    if (row === undefined || read.schema === undefined) return read;
    const [rules] = row.blocklist;
    const [digest] = row.blocklistDigest ?? [];
    if (rules !== undefined && (typeof digest !== 'string' || blocklistDigest(rules) !== digest)) return read;
    const kept = { ...read, mark: policyMark(row.settings[0]?.requireToken, digest) };
    const key = keyOf(customerId, schemaId);
    this.kept.delete(key);
    // A Map keeps insertion order: the entry read longest ago goes.
    if (this.kept.size >= KEPT) this.kept.delete(this.kept.keys().next().value as string);
    this.kept.set(key, kept);
    return kept;
  }

  /** Forgets the policy a write was refused for having been checked against (`mark`), unless a newer one replaced it. */
  forget(customerId: string, schemaId: string, mark: string): void {
    const key = keyOf(customerId, schemaId);
    if (this.kept.get(key)?.mark === mark) this.kept.delete(key);
  }
}

const keyOf = (customerId: string, schemaId: string) => JSON.stringify([customerId, schemaId]);
