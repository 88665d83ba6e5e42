// What one service process keeps of its customers' policies between node writes, and how a write finds out that
// what was kept is out of date: a node write that may add IDs is checked against its schema and the customer's
// policy, and it takes its schema's guard in its transaction (cypher/schema.guard.cypher), which reads the
// schema's declarations and what the checks used of the policy besides them: whether a token is required, and
// the digest of the blocklist. A write checked against a kept policy carries the mark of what it was checked
// against (MarkedNode.policyMark); the guard's statement refuses it (schema_changed) unless the same holds now,
// and the write's next attempt is checked against a fresh read (./checked-node-writes.ts), which is kept
// instead. So a changed setting, blocklist or schema holds for every process at its next write, as when every
// write read it.
//
// Only what a write checks again is kept: an entry whose schema exists, and whose blocklist is the one its digest
// names (a read of the rules and the digest of one put, even should a put's commit land between them).
//
// `_eligible` and `_impression` keep the customer's policy the same way: what they use of it (the types declared
// secure, those declared `links: false`, the time zone) is read again by their person.counts statement, and the
// counts are used only while it is still what was kept.
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { NodeAddress } from '../../domain/model';
import type { NodeWrite, SchemaWithPolicy } from '../../domain/ports/node-writes';

/** A read of the schema and the policy; `mark`: it is kept, and a write checked against it must carry the mark. */
export type MarkedRead = SchemaWithPolicy & { mark?: string };

/** A node's address after its check; `policyMark`: the check ran against a kept read (MarkedRead.mark). */
export type MarkedNode = NodeAddress & { policyMark?: string };

/** A node write after its check, as the store's transactions apply it. */
export type MarkedWrite = NodeWrite<MarkedNode>;

/** Policies kept per process: the least recently used goes first. */
const KEPT = 1_024;

/** The digest blocklist.put stores beside a customer's rules: the SHA-256 of their text, in hex. */
export const blocklistDigest = (rules: string): string => createHash('sha256').update(rules).digest('hex');

/** The mark of what a node write's checks used of the policy besides its schema, null for what is absent. */
export const policyMark = (requireToken: boolean | null | undefined, digest: string | null | undefined): string =>
  JSON.stringify([requireToken ?? null, digest ?? null]);

/** The mark of what eligibility and impressions use of the policy: secure and `links: false` types, and the time zone. */
export const showingMark = (secureTypes: readonly string[], unlinkedTypes: readonly string[], timezone: string | null | undefined): string =>
  JSON.stringify([[...secureTypes].sort(), [...unlinkedTypes].sort(), timezone ?? null]);

/** What a showing mark says (impression.count.cypher's `keptPolicy`), to compare in a statement. */
export function showingPolicyOf(mark: string): { secureTypes: string[]; unlinkedTypes: string[]; timezone: string | null } {
  const [secureTypes, unlinkedTypes, timezone] = JSON.parse(mark) as [string[], string[], string | null];
  return { secureTypes, unlinkedTypes, timezone };
}

/** What the policy statements read of the settings, the blocklist and the types, each setting a list of at most one. */
export interface MarkedRow {
  secureTypes: string[];
  unlinkedTypes: string[];
  settings: Array<{ requireToken: boolean | null; timezone: string | null }>;
  blocklist: string[];
  blocklistDigest?: Array<string | null>;
}

type Kept = MarkedRead & { mark: string };

export class KeptPolicies {
  private readonly kept = new LRUCache<string, Kept>({ max: KEPT });

  /** What is kept for node writes to the schema, or (null) for eligibility and impressions. */
  get(customerId: string, schemaId: string | null): Kept | undefined {
    return this.kept.get(keyOf(customerId, schemaId));
  }

  /** Keeps what was read, when a write can check it again, and answers it with its mark; else answers it unmarked. */
  keepForWrites(customerId: string, schemaId: string, row: MarkedRow | undefined, read: SchemaWithPolicy): MarkedRead {
    if (row === undefined || read.schema === undefined) return read;
    const [rules] = row.blocklist;
    const [digest] = row.blocklistDigest ?? [];
    if (rules !== undefined && (typeof digest !== 'string' || blocklistDigest(rules) !== digest)) return read;
    return this.keep(customerId, schemaId, { ...read, mark: policyMark(row.settings[0]?.requireToken, digest) });
  }

  /** Keeps what was read for eligibility and impressions, and answers it with its mark. */
  keepForShowing(customerId: string, row: MarkedRow | undefined, read: SchemaWithPolicy): MarkedRead {
    return this.keep(customerId, null, { ...read, mark: showingMark(row?.secureTypes ?? [], row?.unlinkedTypes ?? [], row?.settings[0]?.timezone) });
  }

  private keep(customerId: string, schemaId: string | null, kept: Kept): Kept {
    this.kept.set(keyOf(customerId, schemaId), kept);
    return kept;
  }
}

const keyOf = (customerId: string, schemaId: string | null) => JSON.stringify([customerId, schemaId]);
