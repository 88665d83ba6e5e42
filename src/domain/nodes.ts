// The node operations: each checks the customer's policy (a required token, blocked values), the schema, the types
// and who may touch secure IDs, then makes one atomic store call, which applies the holder limits.
import { DomainError, type FieldProblem, isDomainError } from './errors';
import { type Actor, type IdPair, type IdTypeDeclaration, type NodeAddress, type SchemaRecord, idKey, sameId } from './model';
import { refuseBlocked, requireTokenIfAsked } from './policy';
import type { NodeWrite, NodeWriteStore } from './ports/node-writes';
import type { KeptPolicyUse, ProtectionStore, SchemaWithPolicy } from './ports/protections';

export type { Actor } from './model';

interface NodeRef {
  schema: string;
  key: IdPair;
}

/** A checked request: which ID appears where in the body, for error paths. */
type Mentioned = Array<{ id: IdPair; path: string }>;

export type BulkOp = BulkItem['op'];

/** One checked line of a bulk request: an operation and the body its single endpoint takes. */
export type BulkItem =
  | { op: 'create'; body: NodeRef & { ids?: IdPair[] } }
  | { op: 'insert'; body: NodeRef & { ids: IdPair[] } }
  | { op: 'upsert'; body: NodeRef & { set: IdPair; where: IdPair } }
  | { op: 'delete'; body: NodeRef & { where?: IdPair } };

/**
 * What checking a write reads: its schema and the customer's policy, together (once per request, or per schema and
 * bulk round). `kept`: a write whose store transaction checks the policy again may use what the store keeps of it.
 */
interface Reads {
  (schemaId: string, kept?: KeptPolicyUse): Promise<SchemaWithPolicy>;
  /**
   * A later attempt of a write the store refused with schema_changed: 'answer' reads afresh ('renew'), so the
   * attempt is never checked against what was kept before, and the store keeps the fresh read for the next writes.
   */
  readonly afresh: boolean;
}

/** Checks of a write whose schema was replaced between its check and its write, before schema_changed is the answer. */
const SCHEMA_ATTEMPTS = 3;

export interface NodeLimits {
  /** NODE_MAX_IDS: the most IDs one node may hold (NodeAddress.maxIds of every write). */
  nodeMaxIds: number;
}

export class NodeService {
  constructor(
    private readonly store: NodeWriteStore & Pick<ProtectionStore, 'customerAdmission' | 'schemaWithPolicy'>,
    private readonly limits: NodeLimits,
  ) {}

  async create(actor: Actor, body: NodeRef & { ids?: IdPair[] }): Promise<void> {
    await this.checkedAgainstSchemaChanges(actor, async (reads) => {
      const w = await this.planCreate(actor, body, reads);
      await this.store.createNode(w.node, w.ids);
    });
  }

  async insert(actor: Actor, body: NodeRef & { ids: IdPair[] }): Promise<void> {
    await this.checkedAgainstSchemaChanges(actor, async (reads) => {
      const w = await this.planInsert(actor, body, reads);
      await this.store.insertIds(w.node, w.ids);
    });
  }

  async replace(actor: Actor, body: NodeRef & { set: IdPair; where: IdPair }, upsert: boolean): Promise<void> {
    await this.checkedAgainstSchemaChanges(actor, async (reads) => {
      const w = await this.planReplace(actor, body, upsert, reads);
      await this.store.replaceId(w.node, w.where, w.set, w.upsert);
    });
  }

  async rekey(actor: Actor, body: NodeRef & { set: { id: string } }): Promise<void> {
    await this.checkedAgainstSchemaChanges(actor, async (reads) => {
      // Only the new key is checked against the blocklist: rekeying is how a node leaves a blocked key.
      const newKey = [{ id: { type: body.key.type, id: body.set.id }, path: '/body/set' }];
      const node = await this.checked(actor, body, [], reads, newKey);
      await this.store.rekey(node, body.set.id);
    });
  }

  async delete(actor: Actor, body: NodeRef & { where?: IdPair }): Promise<void> {
    await this.checkedAgainstSchemaChanges(actor, async (reads) => {
      const w = await this.planDelete(actor, body, reads);
      if (w.kind === 'removeId') await this.store.removeId(w.node, w.id);
      else await this.store.deleteNode(w.node);
    });
  }

  /**
   * Refuses a bulk request whole, before its lines: 401 when the customer requires a token and the caller has none;
   * 404 schema_not_found when the customer has no schema, so that no line could be applied (every node names one).
   */
  async admit(actor: Actor): Promise<void> {
    const { policy, hasSchema } = await this.store.customerAdmission(actor.customerId);
    requireTokenIfAsked(actor, policy);
    if (!hasSchema) throw new DomainError('schema_not_found', `Customer '${actor.customerId}' has no schema, so no line could be applied; declare one first.`);
  }

  /**
   * Many checked bodies at once: each is checked and planned like its single operation (schemas read once per
   * round), then the store applies the planned writes in order, each on its own. One outcome per item. Items
   * refused with schema_changed are checked and applied again, as the single operations are.
   */
  async bulk(actor: Actor, items: BulkItem[]): Promise<Array<DomainError | undefined>> {
    const outcomes: Array<DomainError | undefined> = items.map(() => undefined);
    let pending = items.map((_item, index) => index);
    for (let attempt = 1; pending.length > 0; attempt += 1) {
      const reads = this.readsOncePerRound(actor, attempt > 1);
      const planned: Array<{ index: number; write: NodeWrite }> = [];
      for (const index of pending) {
        try {
          planned.push({ index, write: await this.plan(actor, items[index] as BulkItem, reads) });
        } catch (e) {
          if (!isDomainError(e)) throw e;
          outcomes[index] = e;
        }
      }
      const applied = await this.store.applyNodeWrites(planned.map((p) => p.write));
      pending = [];
      planned.forEach((p, i) => {
        const outcome = applied[i];
        if (outcome?.code === 'schema_changed' && attempt < SCHEMA_ATTEMPTS) pending.push(p.index);
        else outcomes[p.index] = outcome;
      });
    }
    return outcomes;
  }

  /**
   * Runs a check-then-write again when the store refused the write because the schema or the kept policy changed in
   * between (see NodeAddress.expectedTypes and policyMark): the next check reads them afresh and answers what they say.
   */
  private async checkedAgainstSchemaChanges(actor: Actor, checkThenWrite: (reads: Reads) => Promise<void>): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await checkThenWrite(this.reads(actor, attempt > 1));
        return;
      } catch (e) {
        if (!(isDomainError(e) && e.code === 'schema_changed' && attempt < SCHEMA_ATTEMPTS)) throw e;
      }
    }
  }

  private readsOncePerRound(actor: Actor, afresh: boolean): Reads {
    const read = new Map<string, ReturnType<Reads>>();
    const reads = this.reads(actor, afresh);
    return Object.assign(
      (schemaId: string, kept?: KeptPolicyUse) => {
        const key = JSON.stringify([schemaId, kept ?? null]);
        let both = read.get(key);
        if (!both) {
          both = reads(schemaId, kept);
          read.set(key, both);
        }
        return both;
      },
      { afresh },
    );
  }

  private plan(actor: Actor, item: BulkItem, reads: Reads): Promise<NodeWrite> {
    switch (item.op) {
      case 'create':
        return this.planCreate(actor, item.body, reads);
      case 'insert':
        return this.planInsert(actor, item.body, reads);
      case 'upsert':
        return this.planReplace(actor, item.body, true, reads);
      case 'delete':
        return this.planDelete(actor, item.body, reads);
    }
  }

  private async planCreate(actor: Actor, body: NodeRef & { ids?: IdPair[] }, reads: Reads) {
    const ids = body.ids ?? [];
    rejectDuplicates(
      ids.filter((id) => !sameId(id, body.key)),
      ids,
      '/body/ids',
    );
    const mentioned = ids.map((id, i) => ({ id, path: `/body/ids/${i}` }));
    const node = await this.checked(actor, body, mentioned, reads, [keyOf(body), ...mentioned], CHECKED_AGAIN);
    return { kind: 'create', node, ids } as const;
  }

  private async planInsert(actor: Actor, body: NodeRef & { ids: IdPair[] }, reads: Reads) {
    rejectDuplicates(body.ids, body.ids, '/body/ids');
    const mentioned = body.ids.map((id, i) => ({ id, path: `/body/ids/${i}` }));
    const node = await this.checked(actor, body, mentioned, reads, [keyOf(body), ...mentioned], CHECKED_AGAIN);
    return { kind: 'insert', node, ids: body.ids } as const;
  }

  private async planReplace(actor: Actor, body: NodeRef & { set: IdPair; where: IdPair }, upsert: boolean, reads: Reads) {
    const set = { id: body.set, path: '/body/set' };
    const node = await this.checked(actor, body, [{ id: body.where, path: '/body/where' }, set], reads, [keyOf(body), set], CHECKED_AGAIN);
    refuseKey(body.key, body.where);
    return { kind: 'replace', node, where: body.where, set: body.set, upsert } as const;
  }

  /** Never refused by the blocklist: a delete only takes away, and is how a blocked value already held goes. */
  private async planDelete(actor: Actor, body: NodeRef & { where?: IdPair }, reads: Reads): Promise<NodeWrite> {
    const node = await this.checked(actor, body, body.where ? [{ id: body.where, path: '/body/where' }] : [], reads, [], CHECKED_AGAIN);
    if (!body.where) return { kind: 'deleteNode', node };
    refuseKey(body.key, body.where);
    return { kind: 'removeId', node, id: body.where };
  }

  private reads(actor: Actor, afresh: boolean): Reads {
    return Object.assign(
      (schemaId: string, kept?: KeptPolicyUse) =>
        this.store.schemaWithPolicy(actor.customerId, schemaId, { kept: afresh && kept === 'answer' ? 'renew' : kept }),
      { afresh },
    );
  }

  /**
   * The customer's token requirement is met, the schema exists, every type is declared by it, secure types are
   * touched only when authenticated, and no value of `blockable` (the key, `ids` and `set` of a write) is blocked.
   *
   * A write whose store transaction checks the policy again (`checkedAgain`: under its schema's guard for one that
   * may add IDs, beside its first statements for a delete) may be checked against what the store kept of the policy.
   * A refusal is never answered from that: the checks run again against a fresh read (which the store keeps
   * instead), and answer what it says.
   */
  private async checked(actor: Actor, ref: NodeRef, mentioned: Mentioned, reads: Reads, blockable: Mentioned, checkedAgain = false): Promise<NodeAddress> {
    const read = await reads(ref.schema, checkedAgain ? 'answer' : undefined);
    try {
      return this.checkedAgainst(actor, ref, mentioned, blockable, read);
    } catch (e) {
      if (!isDomainError(e) || read.mark === undefined || reads.afresh) throw e;
      return this.checkedAgainst(actor, ref, mentioned, blockable, await reads(ref.schema, 'renew'));
    }
  }

  /** The checks against one read; the write carries the read's mark, if any, for its store to check again. */
  private checkedAgainst(actor: Actor, ref: NodeRef, mentioned: Mentioned, blockable: Mentioned, { schema, policy, mark }: SchemaWithPolicy): NodeAddress {
    requireTokenIfAsked(actor, policy);
    if (!schema) throw new DomainError('schema_not_found', `Schema '${ref.schema}' does not exist.`);
    const declared = new Map(schema.idTypes.map((t) => [t.type, t]));
    if (!declared.has(ref.key.type)) {
      throw new DomainError('key_type_not_in_schema', `Key type '${ref.key.type}' is not an ID type of schema '${ref.schema}'.`, [
        { path: '/body/key/type', message: `is not declared by schema '${ref.schema}'` },
      ]);
    }
    const undeclared: FieldProblem[] = mentioned
      .filter((m) => !declared.has(m.id.type))
      .map((m) => ({ path: `${m.path}/type`, message: `'${m.id.type}' is not declared by schema '${ref.schema}'` }));
    if (undeclared.length > 0) {
      throw new DomainError('id_type_not_in_schema', `ID types must be declared by schema '${ref.schema}'.`, undeclared);
    }
    const used = [ref.key, ...mentioned.map((m) => m.id)];
    if (!actor.authenticated && usesSecureType(schema, used)) {
      throw new DomainError('authentication_required', 'This operation involves a secure ID type and needs a bearer token.');
    }
    refuseBlocked(policy, blockable);
    // The declarations with all their options: a store refuses the write (schema_changed) should any of them change.
    const expectedTypes = [...new Set(used.map((id) => id.type))].map((type) => declared.get(type) as IdTypeDeclaration);
    return {
      customerId: actor.customerId,
      schemaId: ref.schema,
      key: ref.key,
      expectedTypes,
      maxIds: this.limits.nodeMaxIds,
      ...(actor.audit ? { audit: actor.audit } : {}),
      ...(mark === undefined ? {} : { policyMark: mark }),
    };
  }
}

const keyOf = (ref: NodeRef) => ({ id: ref.key, path: '/body/key' });

/**
 * checked()'s last argument for a create, insert, replacement or delete: the writes whose store transaction checks
 * the policy again (under the schema's guard for those that may add IDs).
 */
const CHECKED_AGAIN = true;

function usesSecureType(schema: SchemaRecord, ids: IdPair[]): boolean {
  const secure = new Set(schema.idTypes.filter((t) => t.secure).map((t) => t.type));
  return ids.some((id) => secure.has(id.type));
}

function refuseKey(key: IdPair, where: IdPair): void {
  if (sameId(key, where)) throw new DomainError('key_id_immutable', 'The key cannot be changed or removed this way; use _rekeying.');
}

/** 400 when `candidates` repeats an ID; paths index into `all`. */
function rejectDuplicates(candidates: IdPair[], all: IdPair[], at: string): void {
  const firstIndex = new Map<string, number>();
  const problems: FieldProblem[] = [];
  for (const id of candidates) {
    const k = idKey(id);
    const index = all.indexOf(id);
    const first = firstIndex.get(k);
    if (first === undefined) firstIndex.set(k, index);
    else problems.push({ path: `${at}/${index}`, message: `duplicates ${at}/${first}` });
  }
  if (problems.length > 0) throw new DomainError('validation_failed', 'The same ID is listed more than once.', problems);
}
