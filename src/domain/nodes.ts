// The node operations: each checks the schema, the types and who may touch secure IDs, then makes one
// atomic store call.
import { DomainError, type FieldProblem } from './errors';
import { type IdPair, type NodeAddress, type SchemaRecord, sameId } from './model';
import type { Store } from '../store/store';

/** Who asks, for which customer; `authenticated` is settled by the HTTP layer from the token. */
export interface Actor {
  customerId: string;
  authenticated: boolean;
}

interface NodeRef {
  schema: string;
  key: IdPair;
}

/** A checked request: which ID appears where in the body, for error paths. */
type Mentioned = Array<{ id: IdPair; path: string }>;

export class NodeService {
  constructor(private readonly store: Store) {}

  async create(actor: Actor, body: NodeRef & { ids?: IdPair[] }): Promise<void> {
    const ids = body.ids ?? [];
    rejectDuplicates(ids.filter((id) => !sameId(id, body.key)), ids, '/body/ids');
    const node = await this.checked(actor, body, ids.map((id, i) => ({ id, path: `/body/ids/${i}` })));
    await this.store.createNode(node, ids);
  }

  async insert(actor: Actor, body: NodeRef & { ids: IdPair[] }): Promise<void> {
    rejectDuplicates(body.ids, body.ids, '/body/ids');
    const node = await this.checked(actor, body, body.ids.map((id, i) => ({ id, path: `/body/ids/${i}` })));
    await this.store.insertIds(node, body.ids);
  }

  async replace(actor: Actor, body: NodeRef & { set: IdPair; where: IdPair }, upsert: boolean): Promise<void> {
    const node = await this.checked(actor, body, [
      { id: body.where, path: '/body/where' },
      { id: body.set, path: '/body/set' },
    ]);
    refuseKey(body.key, body.where);
    await this.store.replaceId(node, body.where, body.set, upsert);
  }

  async rekey(actor: Actor, body: NodeRef & { set: { id: string } }): Promise<void> {
    const node = await this.checked(actor, body, []);
    await this.store.rekey(node, body.set.id);
  }

  async delete(actor: Actor, body: NodeRef & { where?: IdPair }): Promise<void> {
    const node = await this.checked(actor, body, body.where ? [{ id: body.where, path: '/body/where' }] : []);
    if (body.where) {
      refuseKey(body.key, body.where);
      await this.store.removeId(node, body.where);
    } else {
      await this.store.deleteNode(node);
    }
  }

  /** Schema exists, every type is declared by it, and secure types are touched only when authenticated. */
  private async checked(actor: Actor, ref: NodeRef, mentioned: Mentioned): Promise<NodeAddress> {
    const schema = await this.store.getSchema(actor.customerId, ref.schema);
    if (!schema) throw new DomainError('schema_not_found', `Schema '${ref.schema}' does not exist.`);
    const declared = new Map(schema.idTypes.map((t) => [t.type, t.secure]));
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
    if (!actor.authenticated && usesSecureType(schema, [ref.key, ...mentioned.map((m) => m.id)])) {
      throw new DomainError('authentication_required', 'This operation involves a secure ID type and needs a bearer token.');
    }
    return { customerId: actor.customerId, schemaId: ref.schema, key: ref.key };
  }
}

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
    const k = JSON.stringify([id.type, id.id]);
    const index = all.indexOf(id);
    const first = firstIndex.get(k);
    if (first === undefined) firstIndex.set(k, index);
    else problems.push({ path: `${at}/${index}`, message: `duplicates ${at}/${first}` });
  }
  if (problems.length > 0) throw new DomainError('validation_failed', 'The same ID is listed more than once.', problems);
}
