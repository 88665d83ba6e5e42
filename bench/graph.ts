// A synthetic identity graph of realistic shape, produced as bulk NDJSON lines.
// Three schemas; each node holds its key plus about four more IDs; component sizes are heavy-tailed, with a few
// components of 1,000+ nodes; inside the largest components a few IDs are held by hundreds of nodes.

export const SCHEMAS: Record<string, Array<{ type: string; secure?: boolean }>> = {
  member: [{ type: 'member_id' }, { type: 'device_id' }, { type: 'cookie' }, { type: 'ad_id' }, { type: 'email', secure: true }],
  device: [{ type: 'device_id' }, { type: 'ad_id' }, { type: 'cookie' }, { type: 'ip_hash' }],
  crm: [{ type: 'crm_id' }, { type: 'email', secure: true }, { type: 'member_id' }, { type: 'phone_hash' }],
};

const KEY_TYPE: Record<string, string> = { member: 'member_id', device: 'device_id', crm: 'crm_id' };
const SHARED_TYPES: Record<string, string[]> = { member: ['device_id', 'cookie', 'ad_id'], device: ['ad_id', 'cookie'], crm: ['member_id', 'phone_hash'] };
const PRIVATE_TYPES: Record<string, string[]> = { member: ['cookie', 'ad_id'], device: ['ip_hash', 'cookie'], crm: ['phone_hash'] };

/** Deterministic PRNG (mulberry32), so every run loads the same graph. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface GraphPlan {
  /** Held IDs to generate, about. */
  targetIds: number;
  /** How many components of 1,000+ nodes. */
  bigComponents: number;
  seed: number;
}

export interface NodeRef {
  schema: string;
  key: { type: string; id: string };
}

export interface GeneratedGraph {
  lines: string[];
  heldIds: number;
  nodes: number;
  /** Keys of nodes in components of at most 3 nodes. */
  smallKeys: NodeRef[];
  /** Keys of nodes in the 1,000+ node components. */
  bigKeys: NodeRef[];
  largestComponent: number;
}

/** Component size: Pareto-like tail (most 1–3 nodes, some tens, rare hundreds), capped at 300. */
function componentSize(random: () => number): number {
  const size = Math.floor(1 / Math.pow(1 - random(), 1 / 1.6));
  return Math.min(Math.max(size, 1), 300);
}

export function generateGraph(plan: GraphPlan): GeneratedGraph {
  const random = prng(plan.seed);
  const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)] as T;
  const lines: string[] = [];
  const smallKeys: NodeRef[] = [];
  const bigKeys: NodeRef[] = [];
  let heldIds = 0;
  let nodes = 0;
  let componentNo = 0;
  let largestComponent = 0;

  const emitComponent = (size: number, big: boolean) => {
    componentNo += 1;
    const c = componentNo;
    largestComponent = Math.max(largestComponent, size);
    // IDs this component's nodes share; hot ones (big components only) are held by hundreds of nodes.
    const sharedPool: Array<{ type: string; id: string }> = [];
    const hot = big
      ? [
          { type: 'ad_id', id: `hot-ad-${c}` },
          { type: 'cookie', id: `hot-cookie-${c}` },
        ]
      : [];
    for (let n = 0; n < size; n += 1) {
      const schema = pick(Object.keys(SCHEMAS));
      const key = { type: KEY_TYPE[schema] as string, id: `${schema}-${c}-${n}` };
      const ids: Array<{ type: string; id: string }> = [];
      const usable = (type: string) => SCHEMAS[schema]?.some((t) => t.type === type) ?? false;
      // Link to an earlier node of the component (keeps it connected), or start a shared ID.
      const earlier = sharedPool.filter((s) => usable(s.type));
      if (n > 0 && earlier.length > 0) ids.push(pick(earlier.slice(-20)));
      const sharedType = pick(SHARED_TYPES[schema] as string[]);
      const shared = { type: sharedType, id: `s-${sharedType}-${c}-${n}` };
      ids.push(shared);
      sharedPool.push(shared);
      for (const h of hot) if (usable(h.type) && random() < 0.35) ids.push(h);
      while (ids.length < 4) {
        const type = pick(PRIVATE_TYPES[schema] as string[]);
        ids.push({ type, id: `p-${type}-${c}-${n}-${ids.length}` });
      }
      const unique = ids.filter((id, i) => ids.findIndex((o) => o.type === id.type && o.id === id.id) === i && !(id.type === key.type && id.id === key.id));
      lines.push(JSON.stringify({ op: 'create', body: { schema, key, ids: unique } }));
      heldIds += 1 + unique.length;
      nodes += 1;
      const ref = { schema, key };
      if (big) bigKeys.push(ref);
      else if (size <= 3) smallKeys.push(ref);
    }
  };

  for (let b = 0; b < plan.bigComponents; b += 1) emitComponent(1000 + Math.floor(random() * 500), true);
  while (heldIds < plan.targetIds) emitComponent(componentSize(random), false);
  return { lines, heldIds, nodes, smallKeys, bigKeys, largestComponent };
}
