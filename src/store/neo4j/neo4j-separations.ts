// Separations on Neo4j: a SEPARATED relationship between the two IdNode vertices of a pair. It stays through a
// rekeying (which changes only the node's key) and goes with either node (DETACH DELETE). The writes that add IDs
// check it in ./neo4j-nodes.ts (refuseIfSeparated).
import type { IdPair, NodeAddress, NodeRef, SeparateRequest, Separation, WriteAudit } from '../../domain/model';
import { byNodeRef, idsShared, separationNotFound, sharedKeyImmutable } from '../../domain/refusals';
import { historyEntry } from '../history';
import { appendHistory } from './neo4j-history';
import { keyParams, lockAndRead } from './neo4j-nodes';
import { type Query, together } from './query';

/**
 * Locks both nodes, in code-point order of their keys (two calls on one pair never wait on each other in a cycle),
 * each found again once locked; node_not_found for either.
 */
async function lockPair(q: Query, customerId: string, a: NodeRef, b: NodeRef, audit: WriteAudit, writeId: string) {
  const nodeA: NodeAddress = { customerId, ...a, audit };
  const nodeB: NodeAddress = { customerId, ...b, audit };
  const lock = (n: NodeAddress) => lockAndRead(q, n, writeId, () => q<{ node: string }>('node.find', keyParams(n)), Promise.resolve(), 'declared');
  // Both sent at once (one round trip); Neo4j runs them in the order sent.
  const [first, second] = byNodeRef(a, b) <= 0 ? [lock(nodeA), lock(nodeB)] : [lock(nodeB), lock(nodeA)];
  await together(first, second);
  const [lockedA, lockedB] = byNodeRef(a, b) <= 0 ? [await first, await second] : [await second, await first];
  return { nodeA, nodeB, a: lockedA.target, b: lockedB.target };
}

export async function separateInGraph(q: Query, r: SeparateRequest, writeId: string): Promise<{ idsRemoved: number }> {
  const { nodeA, nodeB, a, b } = await lockPair(q, r.customerId, r.a, r.b, r.audit, writeId);
  const [row] = await q<{ shared: IdPair[] }>('separation.shared', { a, b });
  const shared = row?.shared ?? [];
  if (shared.length > 0 && r.removeSharedFrom === 'none') throw idsShared(r.a, r.b);
  const [from, fromTarget] = r.removeSharedFrom === 'b' ? [nodeB, b] : [nodeA, a];
  if (shared.some((id) => id.type === from.key.type && id.id === from.key.id)) throw sharedKeyImmutable(from);
  const at = new Date().toISOString();
  // One statement for all the shared IDs (separation.unlink-shared says why it takes no list of them), sent with the
  // ban and the history: one round trip however many they are.
  await together(
    shared.length > 0 ? q('separation.unlink-shared', { from: fromTarget, other: fromTarget === a ? b : a }) : undefined,
    q('separation.put', { a, b }),
    appendHistory(
      q,
      r.customerId,
      [
        historyEntry(nodeA, 'separate', [], r.removeSharedFrom === 'a' ? shared : [], at),
        historyEntry(nodeB, 'separate', [], r.removeSharedFrom === 'b' ? shared : [], at),
      ],
      writeId,
    ),
  );
  return { idsRemoved: shared.length };
}

export async function unseparateInGraph(q: Query, customerId: string, ra: NodeRef, rb: NodeRef, audit: WriteAudit, writeId: string): Promise<void> {
  const { nodeA, nodeB, a, b } = await lockPair(q, customerId, ra, rb, audit, writeId);
  const at = new Date().toISOString();
  // Sent together: when there was no ban, the refusal rolls the history entries back with the rest.
  const deleting = q<{ lifted: number }>('separation.delete', { a, b });
  await together(
    deleting,
    appendHistory(q, customerId, [historyEntry(nodeA, 'unseparate', [], [], at), historyEntry(nodeB, 'unseparate', [], [], at)], writeId),
  );
  const [row] = await deleting;
  if (Number(row?.lifted ?? 0) === 0) throw separationNotFound(ra, rb);
}

type ListedNode = { schema: string; keyType: string; keyId: string };

/** Every ban of the customer, sorted here in code-point order (Neo4j compares strings by UTF-16 code units), then paged. */
export async function separationsInGraph(q: Query, customerId: string, offset: number, limit: number): Promise<{ items: Separation[]; total: number }> {
  const rows = await q<{ a: ListedNode; b: ListedNode }>('separation.list', { customer: customerId });
  const ref = (n: ListedNode): NodeRef => ({ schemaId: n.schema, key: { type: n.keyType, id: n.keyId } });
  const items = rows
    .map((row) => [ref(row.a), ref(row.b)].sort(byNodeRef) as [NodeRef, NodeRef])
    .sort(([a1, b1], [a2, b2]) => byNodeRef(a1, a2) || byNodeRef(b1, b2))
    .map(([a, b]) => ({ a, b }));
  return { items: items.slice(offset, offset + limit), total: items.length };
}
