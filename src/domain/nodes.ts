// The node operations: each states the customer's policy (a required token, blocked values), the schema, the types
// and who may touch secure IDs as one pure check (CheckedNode), and makes one atomic store call, which runs the
// check against what holds when it writes and applies the holder limits.
import { DomainError, type FieldProblem, isDomainError } from './errors';
import { type Actor, type IdPair, type IdTypeDeclaration, type NodeAddress, type SchemaRecord, idKey, sameId } from './model';
import { refuseBlocked, requireTokenIfAsked } from './policy';
import type { CheckedNode, NodeWrite, NodeWriteStore, SchemaWithPolicy } from './ports/node-writes';
import type { ProtectionStore } from './ports/protections';

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

export interface NodeLimits {
  /** NODE_MAX_IDS: the most IDs one node may hold (NodeAddress.maxIds of every write). */
  nodeMaxIds: number;
}

export class NodeService {
  constructor(
    private readonly store: NodeWriteStore & Pick<ProtectionStore, 'customerAdmission'>,
    private readonly limits: NodeLimits,
  ) {}

  async create(actor: Actor, body: NodeRef & { ids?: IdPair[] }): Promise<void> {
    const w = this.planCreate(actor, body);
    await this.store.createNode(w.node, w.ids);
  }

  async insert(actor: Actor, body: NodeRef & { ids: IdPair[] }): Promise<void> {
    const w = this.planInsert(actor, body);
    await this.store.insertIds(w.node, w.ids);
  }

  async replace(actor: Actor, body: NodeRef & { set: IdPair; where: IdPair }, upsert: boolean): Promise<void> {
    const w = this.planReplace(actor, body, upsert);
    await this.store.replaceId(w.node, w.where, w.set, w.upsert);
  }

  async rekey(actor: Actor, body: NodeRef & { set: { id: string } }): Promise<void> {
    // Only the new key is checked against the blocklist: rekeying is how a node leaves a blocked key.
    const newKey = [{ id: { type: body.key.type, id: body.set.id }, path: '/body/set' }];
    await this.store.rekey(this.checked(actor, body, [], newKey), body.set.id);
  }

  async delete(actor: Actor, body: NodeRef & { where?: IdPair }): Promise<void> {
    const w = this.planDelete(actor, body);
    if (w.kind === 'removeId') await this.store.removeId(w.node, w.id);
    else await this.store.deleteNode(w.node);
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
   * Many checked bodies at once: each is planned like its single operation, then the store checks and applies the
   * planned writes in order, each on its own. One outcome per item.
   */
  async bulk(actor: Actor, items: BulkItem[]): Promise<Array<DomainError | undefined>> {
    const outcomes: Array<DomainError | undefined> = items.map(() => undefined);
    const planned: Array<{ index: number; write: NodeWrite }> = [];
    items.forEach((item, index) => {
      try {
        planned.push({ index, write: this.plan(actor, item) });
      } catch (e) {
        if (!isDomainError(e)) throw e;
        outcomes[index] = e;
      }
    });
    const applied = await this.store.applyNodeWrites(planned.map((p) => p.write));
    planned.forEach((p, i) => (outcomes[p.index] = applied[i]));
    return outcomes;
  }

  private plan(actor: Actor, item: BulkItem): NodeWrite {
    switch (item.op) {
      case 'create':
        return this.planCreate(actor, item.body);
      case 'insert':
        return this.planInsert(actor, item.body);
      case 'upsert':
        return this.planReplace(actor, item.body, true);
      case 'delete':
        return this.planDelete(actor, item.body);
    }
  }

  private planCreate(actor: Actor, body: NodeRef & { ids?: IdPair[] }) {
    const ids = body.ids ?? [];
    rejectDuplicates(
      ids.filter((id) => !sameId(id, body.key)),
      ids,
      '/body/ids',
    );
    const mentioned = ids.map((id, i) => ({ id, path: `/body/ids/${i}` }));
    return { kind: 'create', node: this.checked(actor, body, mentioned, [keyOf(body), ...mentioned]), ids } as const;
  }

  private planInsert(actor: Actor, body: NodeRef & { ids: IdPair[] }) {
    rejectDuplicates(body.ids, body.ids, '/body/ids');
    const mentioned = body.ids.map((id, i) => ({ id, path: `/body/ids/${i}` }));
    return { kind: 'insert', node: this.checked(actor, body, mentioned, [keyOf(body), ...mentioned]), ids: body.ids } as const;
  }

  private planReplace(actor: Actor, body: NodeRef & { set: IdPair; where: IdPair }, upsert: boolean) {
    const set = { id: body.set, path: '/body/set' };
    const node = this.checked(actor, body, [{ id: body.where, path: '/body/where' }, set], [keyOf(body), set], () => refuseKey(body.key, body.where));
    return { kind: 'replace', node, where: body.where, set: body.set, upsert } as const;
  }

  /** Never refused by the blocklist: a delete only takes away, and is how a blocked value already held goes. */
  private planDelete(actor: Actor, body: NodeRef & { where?: IdPair }): NodeWrite {
    const { where } = body;
    if (!where) return { kind: 'deleteNode', node: this.checked(actor, body, [], []) };
    return { kind: 'removeId', node: this.checked(actor, body, [{ id: where, path: '/body/where' }], [], () => refuseKey(body.key, where)), id: where };
  }

  /**
   * The write's check: the customer's token requirement is met, the schema exists, every type is declared by it,
   * secure types are touched only when authenticated, and no value of `blockable` (the key, `ids` and `set` of a
   * write) is blocked; then `after`, the write's own rule, so that its refusal comes after those.
   */
  private checked(actor: Actor, ref: NodeRef, mentioned: Mentioned, blockable: Mentioned, after?: () => void): CheckedNode {
    return {
      customerId: actor.customerId,
      schemaId: ref.schema,
      check: (read) => {
        const node = this.checkedAgainst(actor, ref, mentioned, blockable, read);
        after?.();
        return node;
      },
    };
  }

  private checkedAgainst(actor: Actor, ref: NodeRef, mentioned: Mentioned, blockable: Mentioned, { schema, policy }: SchemaWithPolicy): NodeAddress {
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
    // The declarations with all their options: a store that checked against an earlier read refuses the write
    // (schema_changed) should any of them change.
    const expectedTypes = [...new Set(used.map((id) => id.type))].map((type) => declared.get(type) as IdTypeDeclaration);
    return {
      customerId: actor.customerId,
      schemaId: ref.schema,
      key: ref.key,
      expectedTypes,
      maxIds: this.limits.nodeMaxIds,
      ...(actor.audit ? { audit: actor.audit } : {}),
    };
  }
}

const keyOf = (ref: NodeRef) => ({ id: ref.key, path: '/body/key' });

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
