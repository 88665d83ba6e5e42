// The schema guards one transaction of the Neo4j store holds (cypher/schema.guard.cypher): how a node write and a
// schema replacement that drops a type become one decision, as they are on SQLite, where writes run one at a time.
import { randomInt } from 'node:crypto';
import { canonicalDeclaration, declaresAsExpected, type IdTypeDeclaration } from '../../domain/model';
import { policyChanged, schemaChanged } from '../../domain/refusals';
import { type MarkedNode, policyMark } from './kept-policies';
import type { PolicyRow } from './policy-row';
import { int, type Query } from './query';

/** What schema.guard.cypher reads under the guard: the schema's declarations, and the policy's mark (./kept-policies.ts). */
interface Guarded {
  declared: IdTypeDeclaration[];
  mark: string;
}

/** Guards per schema: writes to one schema wait on each other only when they draw the same one. */
export const GUARD_STRIPES = 8;

const ALL_STRIPES = Array.from({ length: GUARD_STRIPES }, (_, stripe) => int(stripe));

/** Takes every guard of the schema (a replacement or deletion does, before anything else), waiting for node writes in flight. */
export async function guardWholeSchema(q: Query, customer: string, schemaId: string, writeId: string): Promise<void> {
  await q('schema.guard', { customer, schemaId, stripes: ALL_STRIPES, write: writeId });
}

/** One per transaction attempt: one guard per schema the transaction writes nodes of, taken on its first write there. */
export class SchemaGuards {
  private readonly stripe = int(randomInt(GUARD_STRIPES));
  /**
   * What each guarded schema declares, read under its guard (undefined when the schema did not exist), from the
   * moment its statement is sent: the writes of a batch ask at once, and the guard is taken once.
   */
  private readonly guarded = new Map<string, Promise<Guarded | undefined>>();
  /** Each schema's declarations and policy mark, read with no guard (refuseIfPolicyChanged), once a transaction. */
  private readonly unguarded = new Map<string, Promise<Guarded | undefined>>();

  /**
   * Takes the node's schema's guard and refuses the write (schema_changed) unless the schema still declares the
   * types it was checked against (NodeAddress.expectedTypes), and the policy is still the one it was checked
   * against when that was a kept one (MarkedNode.policyMark). Nothing to do for a write that relies on none.
   */
  async refuseIfSchemaChanged(q: Query, node: MarkedNode, writeId: string): Promise<void> {
    if (node.expectedTypes === undefined) return;
    const key = JSON.stringify([node.customerId, node.schemaId]);
    let reading = this.guarded.get(key);
    if (!reading) {
      reading = q<{ declared: IdTypeDeclaration[]; requireToken: boolean[]; blocklistDigest: Array<string | null> }>('schema.guard', {
        customer: node.customerId,
        schemaId: node.schemaId,
        stripes: [this.stripe],
        write: writeId,
      }).then(([row]) => row && { declared: row.declared, mark: policyMark(row.requireToken[0], row.blocklistDigest[0]) });
      this.guarded.set(key, reading);
    }
    refuseUnlessAsChecked(node, await reading);
  }

  /**
   * For a write that takes no guard (a delete, an ID removal) checked against a kept policy (MarkedNode.policyMark):
   * refuses it (schema_changed) unless the schema still declares the types it was checked against and the policy is
   * still that one, read in its transaction (customer.policy.cypher) with no lock, sent beside its first statements.
   * Nothing to do for a write checked against a fresh read.
   */
  async refuseIfPolicyChanged(q: Query, node: MarkedNode): Promise<void> {
    if (node.expectedTypes === undefined || node.policyMark === undefined) return;
    const key = JSON.stringify([node.customerId, node.schemaId]);
    let reading = this.unguarded.get(key);
    if (!reading) {
      reading = q<PolicyRow>('customer.policy', { customer: node.customerId, schemaId: node.schemaId }).then(([row]) => {
        const [schema] = row?.schema ?? [];
        const declared = schema?.idTypes.map((t) => canonicalDeclaration({ ...t, maxHolders: t.maxHolders ?? undefined }));
        return declared && { declared, mark: policyMark(row?.settings[0]?.requireToken, row?.blocklistDigest?.[0]) };
      });
      this.unguarded.set(key, reading);
    }
    refuseUnlessAsChecked(node, await reading);
  }
}

/** schema_changed unless `read` declares the types `node` was checked against and has the mark of its kept policy. */
function refuseUnlessAsChecked(node: MarkedNode, read: Guarded | undefined): void {
  if (read === undefined || !declaresAsExpected(read.declared, node.expectedTypes ?? [])) throw schemaChanged(node.schemaId);
  if (node.policyMark !== undefined && node.policyMark !== read.mark) throw policyChanged();
}
