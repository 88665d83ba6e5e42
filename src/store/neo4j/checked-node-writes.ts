// How the Neo4j store runs the checks the domain's node writes carry (CheckedNode, src/domain/ports/node-writes.ts):
// against the policy this process keeps (./kept-policies.ts) when it keeps one, so that most writes wait for no read
// before their transaction, and against a fresh read otherwise.
//
// A write checked against a kept read carries its mark (MarkedNode.policyMark): its transaction refuses it
// (schema_changed) unless the schema and the policy are still as checked (./schema-guards.ts), and the write is then
// checked again against a fresh read, which is kept instead, up to SCHEMA_ATTEMPTS times in all. A refusal is never
// answered from a kept read: the check runs again against a fresh one, whose answer is the write's. A rekey, whose
// transaction does not read the policy again, is checked against a fresh read that is not kept.
import { type DomainError, isDomainError } from '../../domain/errors';
import type { NodeAddress } from '../../domain/model';
import type { CheckedNode, NodeWrite } from '../../domain/ports/node-writes';
import type { MarkedNode, MarkedRead, MarkedWrite } from './kept-policies';

/** Checks of a write whose schema or kept policy changed between its check and its write, before schema_changed is the answer. */
export const SCHEMA_ATTEMPTS = 3;

/** The reads a check is run against. */
export interface WritePolicies {
  /** What this process keeps of the schema and the customer's policy, if anything. */
  kept(customerId: string, schemaId: string): MarkedRead | undefined;
  /** A fresh read; with `keep`, kept for later writes (and then marked, when a write's transaction can check it again). */
  fresh(customerId: string, schemaId: string, keep: boolean): Promise<MarkedRead>;
}

const marked = (node: NodeAddress, mark: string | undefined): MarkedNode => (mark === undefined ? node : { ...node, policyMark: mark });

type Checked = { address: MarkedNode } | { refusal: DomainError };

/** The check run against `read`: its address, marked when the read is kept, or its refusal. */
function checkAgainst(node: CheckedNode, read: MarkedRead): Checked {
  try {
    return { address: marked(node.check(read), read.mark) };
  } catch (e) {
    if (!isDomainError(e)) throw e;
    return { refusal: e };
  }
}

/**
 * The reads of one attempt, each schema's read once (the lines of a bulk request share them). A later attempt
 * (`afresh`) never uses what was kept before it.
 */
class Attempt {
  private readonly reads = new Map<string, Promise<MarkedRead>>();

  constructor(
    private readonly policies: WritePolicies,
    readonly afresh: boolean,
  ) {}

  /** The check's address, marked when the read it passed was kept; what the check throws against a fresh read. */
  async address(node: CheckedNode): Promise<MarkedNode> {
    const checked = await this.check(node);
    if ('refusal' in checked) throw checked.refusal;
    return checked.address;
  }

  /**
   * As address, with the check's refusal as a value: a read that fails (the store unavailable) rejects, as it is no
   * refusal of the write.
   */
  async check(node: CheckedNode): Promise<Checked> {
    const read = await this.read(node, !this.afresh);
    const checked = checkAgainst(node, read);
    if (!('refusal' in checked) || read.mark === undefined || this.afresh) return checked;
    return checkAgainst(node, await this.read(node, false));
  }

  /** `orKept`: what is kept, else a fresh read to keep; otherwise a fresh read to keep in any case. */
  private read({ customerId, schemaId }: CheckedNode, orKept: boolean): Promise<MarkedRead> {
    const key = JSON.stringify([customerId, schemaId, orKept]);
    let read = this.reads.get(key);
    if (!read) {
      const kept = orKept ? this.policies.kept(customerId, schemaId) : undefined;
      read = kept ? Promise.resolve(kept) : this.policies.fresh(customerId, schemaId, true);
      this.reads.set(key, read);
    }
    return read;
  }
}

export class CheckedNodeWrites {
  constructor(private readonly policies: WritePolicies) {}

  /** One write: checked (see above), then applied; checked and applied again while its transaction answers schema_changed. */
  write(node: CheckedNode, apply: (node: MarkedNode) => Promise<void>): Promise<void> {
    return againstChanges(async (attempt) => apply(await new Attempt(this.policies, attempt > 1).address(node)));
  }

  /** A rekey: checked against a fresh read, kept for nothing. */
  rekey(node: CheckedNode, apply: (node: NodeAddress) => Promise<void>): Promise<void> {
    return againstChanges(async () => apply(node.check(await this.policies.fresh(node.customerId, node.schemaId, false))));
  }

  /**
   * A bulk request's writes: each checked (a refused check is its outcome), then all applied in order; those refused
   * with schema_changed are checked and applied again, as single writes are. One outcome per write.
   */
  async bulk(writes: NodeWrite[], apply: (writes: MarkedWrite[]) => Promise<Array<DomainError | undefined>>): Promise<Array<DomainError | undefined>> {
    const outcomes: Array<DomainError | undefined> = writes.map(() => undefined);
    let pending = writes.map((_write, index) => index);
    for (let attempt = 1; pending.length > 0; attempt += 1) {
      const reads = new Attempt(this.policies, attempt > 1);
      const planned: Array<{ index: number; write: MarkedWrite }> = [];
      for (const index of pending) {
        const write = writes[index] as NodeWrite;
        const checked = await reads.check(write.node);
        if ('refusal' in checked) outcomes[index] = checked.refusal;
        else planned.push({ index, write: { ...write, node: checked.address } });
      }
      const applied = await apply(planned.map((p) => p.write));
      pending = [];
      planned.forEach((p, i) => {
        const outcome = applied[i];
        if (outcome?.code === 'schema_changed' && attempt < SCHEMA_ATTEMPTS) pending.push(p.index);
        else outcomes[p.index] = outcome;
      });
    }
    return outcomes;
  }
}

/** Runs `attempt` again while it is refused with schema_changed, up to SCHEMA_ATTEMPTS times. */
async function againstChanges(attempt: (n: number) => Promise<void>): Promise<void> {
  for (let n = 1; ; n += 1) {
    try {
      return await attempt(n);
    } catch (e) {
      if (!(isDomainError(e) && e.code === 'schema_changed' && n < SCHEMA_ATTEMPTS)) throw e;
    }
  }
}
