// The refusals a store answers with (DomainErrors with their codes, docs/errors.md), and the small rules they name:
// both stores build them here, so a refusal reads the same whichever store answers it.
import { byTypeThenId, compareCodePoints } from './code-point-order';
import { DomainError } from './errors';
import { type EraseRequest, type IdPair, type IdTypeDeclaration, type NodeAddress, type NodeRef, sameTypeOptions } from './model';

/** What a store answers when NodeAddress.expectedTypes no longer hold. */
export const schemaChanged = (schemaId: string): DomainError =>
  new DomainError('schema_changed', `Schema '${schemaId}' was replaced while the write was running; send it again.`);

/** invalid_token for a call whose mapi token (PersonRequest.mapiToken) the store found revoked or gone. */
export const mapiTokenRevoked = (): DomainError => new DomainError('invalid_token', 'The token is malformed, unknown or revoked.');

/**
 * schema_changed for a call a store checked against a policy it kept
 * that has changed since (a store that keeps one checks the call again against a fresh read).
 */
export const policyChanged = (): DomainError =>
  new DomainError('schema_changed', "The customer's schemas, settings or blocklist changed while the request was running; send it again.");

/**
 * The ID types whose values a refusal names by type alone. A refusal may reach a caller without a token (the other
 * node of a separation is one the caller never named) and may be logged, so no refusal holds a secure value,
 * whoever asks (docs/errors.md).
 */
export type SecureTypes = ReadonlySet<string>;

/**
 * The secure types among those a write was checked against (NodeAddress.expectedTypes), which hold its key and
 * every ID it names; none for a store call that carries no declarations (only the store contract makes those).
 */
export const checkedSecureTypes = (node: NodeAddress): SecureTypes => new Set((node.expectedTypes ?? []).filter((t) => t.secure).map((t) => t.type));

/** An ID as a refusal names it: `type=value`, or `type (secure)` when its type is secure. */
const idText = (id: IdPair, secure: SecureTypes): string => (secure.has(id.type) ? `${id.type} (secure)` : `${id.type}=${id.id}`);

const keyText = (n: NodeRef, secure: SecureTypes): string => `${idText(n.key, secure)} in schema '${n.schemaId}'`;

/** What a store answers when the node a call names is not there; `secure` by default as the call was checked. */
export const nodeNotFound = (node: NodeAddress, secure: SecureTypes = checkedSecureTypes(node)): DomainError =>
  new DomainError('node_not_found', `No node with key ${keyText(node, secure)}.`);

/** What a create or a rekeying answers when a node of the schema already has the key (`key`: the new key of a rekeying). */
export const nodeExists = (node: NodeAddress, key: IdPair = node.key): DomainError =>
  new DomainError('node_exists', `A node with key ${idText(key, checkedSecureTypes(node))} already exists in schema '${node.schemaId}'.`);

/** What an insert answers when the node holds one of its IDs, and an update when the node holds its `set`; nothing is written. */
export const idExists = (node: NodeAddress, held: IdPair): DomainError =>
  new DomainError('id_exists', `The node already holds ${idText(held, checkedSecureTypes(node))}; nothing was written.`);

/** What a store answers when a write would make a node hold more than NodeAddress.maxIds IDs; nothing is written. */
export const nodeIdLimitReached = (node: NodeAddress): DomainError =>
  new DomainError(
    'node_id_limit_reached',
    `The node with key ${keyText(node, checkedSecureTypes(node))} would hold more than ${node.maxIds} IDs; nothing was added.`,
  );

/** Whether a node holding `held` IDs would pass NodeAddress.maxIds once `adding` more are linked to it. */
export const wouldPassIdLimit = (node: NodeAddress, held: number, adding: number): boolean => node.maxIds !== undefined && held + adding > node.maxIds;

/** What a search answers when the nodes it visits hold more than SearchQuery.maxIds IDs. */
export const tooManyIdsToRead = (maxIds: number): DomainError =>
  new DomainError('component_too_large', `The search would read more than ${maxIds} IDs; narrow it (step ONE, or another start).`);

/** What an erase answers past its bounds (EraseRequest.maxNodes, maxIds); nothing is erased. */
export const eraseTooLarge = (r: Pick<EraseRequest, 'scope' | 'maxNodes' | 'maxIds'>): DomainError =>
  new DomainError(
    'component_too_large',
    r.scope === 'id'
      ? `More than ${r.maxNodes} nodes hold the ID (TRAVERSAL_MAX_NODES); nothing was erased.`
      : `The person has more than ${r.maxNodes} nodes or ${r.maxIds} IDs (TRAVERSAL_MAX_NODES, TRAVERSAL_MAX_IDS); nothing was erased.`,
  );

/** What eligibility and impressions answer when the person's component passes PersonRequest.maxNodes or maxIds; nothing is counted. */
export const personTooLarge = (p: { maxNodes: number; maxIds: number }): DomainError =>
  new DomainError(
    'component_too_large',
    `The person has more than ${p.maxNodes} nodes or ${p.maxIds} IDs (TRAVERSAL_MAX_NODES, TRAVERSAL_MAX_IDS); nothing was counted.`,
  );

/**
 * The IDs among `adding` (which the node does not hold yet) whose type has a holder limit, by what the write was
 * checked against (NodeAddress.expectedTypes), with that limit. A store counts their holders inside the write.
 */
export function limitedIds(node: NodeAddress, adding: readonly IdPair[]): Array<{ id: IdPair; maxHolders: number }> {
  const limits = node.expectedTypes?.filter((t) => t.maxHolders !== undefined);
  if (limits === undefined || limits.length === 0) return [];
  const limited: Array<{ id: IdPair; maxHolders: number }> = [];
  for (const id of adding) {
    const maxHolders = limits.find((t) => t.type === id.type)?.maxHolders;
    if (maxHolders !== undefined) limited.push({ id, maxHolders });
  }
  return limited;
}

/** What a store answers when a write would make one more node hold an ID whose type's max_holders is reached. */
export const holderLimitReached = (id: IdPair, maxHolders: number): DomainError =>
  // The type and the limit, never the value: it may be secure, and messages reach logs.
  new DomainError(
    'holder_limit_reached',
    `An ID of type '${id.type}' is held by ${maxHolders} node${maxHolders === 1 ? '' : 's'} already, the most its type allows (max_holders); nothing was written.`,
  );

/** Two nodes in code-point order of schema, key type, key id: the order a separation lists them in. */
export const byNodeRef = (x: NodeRef, y: NodeRef): number => compareCodePoints(x.schemaId, y.schemaId) || byTypeThenId(x.key, y.key);

/**
 * What a write answers when it would make two separated nodes hold a common ID; nothing is written. `secure`: the
 * customer's secure types as its schemas declare them, read by the store (the write was not checked against the
 * other node's key type). Keys only: the shared ID may be secure too.
 */
export const separatedNodes = (x: NodeRef, y: NodeRef, secure: SecureTypes): DomainError => {
  const [a, b] = byNodeRef(x, y) <= 0 ? [x, y] : [y, x];
  return new DomainError(
    'separated_nodes',
    `The nodes with keys ${keyText(a, secure)} and ${keyText(b, secure)} are separated (_separate); they may not hold a common ID, and nothing was written.`,
  );
};

// _separate's own refusals name no key's value: its request names both nodes, and no declaration of theirs was read.

/** What SeparationStore.separate answers with removeSharedFrom 'none' while the two nodes hold a common ID. */
export const idsShared = (_a: NodeRef, _b: NodeRef): DomainError =>
  new DomainError('ids_shared', 'The two nodes hold a common ID; name the side to remove it from (remove_shared_from).');

/** What SeparationStore.separate answers when a shared ID is the key of the node removeSharedFrom names (a key never leaves its node). */
export const sharedKeyImmutable = (from: NodeRef): DomainError =>
  new DomainError(
    'key_id_immutable',
    `The nodes share the key (${from.key.type}) of the node remove_shared_from names, which cannot leave its node; remove the shared IDs from the other side.`,
  );

/** What SeparationStore.unseparate answers when the pair is not separated. */
export const separationNotFound = (_a: NodeRef, _b: NodeRef): DomainError => new DomainError('separation_not_found', 'The two nodes are not separated.');

/** Another schema's declaration of a type, as putSchema compares the declarations it is given with. */
export interface OtherDeclaration {
  schemaId: string;
  declaration: IdTypeDeclaration;
}

const describeOptions = (t: IdTypeDeclaration): string => `links=${t.links !== false}, max_holders=${t.maxHolders ?? 'none'}`;

/**
 * One type has one value of each option per customer (docs/keeping-people-apart.md): secure_flag_conflict for the first declared
 * type whose secure flag another schema contradicts, else type_option_conflict for the first whose links or
 * maxHolders another schema contradicts. `others` come in the order to report them (by schema id).
 */
export function refuseConflictingDeclarations(declared: readonly IdTypeDeclaration[], others: readonly OtherDeclaration[]): void {
  for (const d of declared) {
    const other = others.find((o) => o.declaration.type === d.type && o.declaration.secure !== d.secure);
    if (other) {
      throw new DomainError(
        'secure_flag_conflict',
        `ID type '${d.type}' is declared with secure=${!d.secure} in schema '${other.schemaId}'; one type has one secure flag per customer.`,
      );
    }
  }
  for (const d of declared) {
    const other = others.find((o) => o.declaration.type === d.type && !sameTypeOptions(o.declaration, d));
    if (other) {
      throw new DomainError(
        'type_option_conflict',
        `ID type '${d.type}' is declared with ${describeOptions(other.declaration)} in schema '${other.schemaId}'; one type has one value of each option per customer.`,
      );
    }
  }
}

/** What putSchema answers when it would turn a type's secure flag off while nodes of the customer hold IDs of it. */
export const secureTypeInUse = (type: string): DomainError =>
  new DomainError('secure_type_in_use', `ID type '${type}' cannot stop being secure while nodes hold IDs of it; remove those IDs first.`);
