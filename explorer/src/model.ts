// What the explorer draws, decided without the DOM or the drawing library: the nodes that `_graph` answered,
// merged across answers, and which of the IDs they hold become edges, hot-ID hubs or nothing. Unit-tested in
// test/explorer/model.test.ts; explorer/src/view.ts turns a Drawing into the library's elements.
import type { components } from '../../src/generated/openapi';

/** An ID as the service writes it. */
export type IdPair = components['schemas']['IdPair'];

/** The 200 answer of POST /v1/{customer_id}/_graph (types generated from openapi.yaml). */
export type GraphAnswer = components['schemas']['GraphResponse'];

/** A node of a `_graph` answer; `key.id` is null when its type is secure and the request had no token. */
export type GraphNode = GraphAnswer['nodes'][number];

/** A type's options as `_graph` answers them; `links: false`: IDs of this type are held but never link two nodes. */
export type GraphType = GraphAnswer['types'][number];

/** A node the page has been shown, with the handle the drawing knows it by. */
export interface CollectedNode {
  /** `n0`, `n1`, …: given once, in order of first appearance, so a merge keeps every drawn node's handle. */
  ref: string;
  node: GraphNode;
  /** It holds the ID the person asked for with Show. */
  start: boolean;
}

/** Every node the page has been shown since the last Show, merged. */
export interface Collection {
  nodes: CollectedNode[];
  types: Map<string, GraphType>;
}

/** What one answer added to a collection. */
export interface Merged {
  collection: Collection;
  /** Refs of the answer's nodes that were not drawn before. */
  added: string[];
}

export const emptyCollection = (): Collection => ({ nodes: [], types: new Map() });

/** One string per ID, safe whatever characters the type or value hold. */
export const idKey = (id: IdPair): string => JSON.stringify([id.type, id.id]);

/**
 * The same node in two answers: schema and key. A key whose value is hidden (secure, no token) is told apart
 * by the IDs it shows instead, which is the best the page can do: two such nodes holding the same visible IDs
 * are drawn as one.
 */
export function identityOf(node: GraphNode): string {
  if (node.key.id !== null) return JSON.stringify([node.schema, node.key.type, node.key.id]);
  const visible = node.ids.map(idKey).sort();
  return JSON.stringify([node.schema, node.key.type, null, visible]);
}

export const holds = (node: GraphNode, id: IdPair): boolean => node.ids.some((held) => held.type === id.type && held.id === id.id);

/**
 * The collection with an answer's nodes added: nodes already there keep their ref (and gain any ID they did
 * not show before); new ones get the next refs. `start`, when given, marks the nodes holding that ID.
 */
export function merge(collection: Collection, answer: GraphAnswer, start?: IdPair): Merged {
  const nodes = collection.nodes.map((c) => ({ ...c }));
  const byIdentity = new Map(nodes.map((c) => [identityOf(c.node), c]));
  let next = nodes.length;
  const added: string[] = [];
  for (const node of answer.nodes) {
    const isStart = start !== undefined && holds(node, start);
    const known = byIdentity.get(identityOf(node));
    if (known) {
      const seen = new Set(known.node.ids.map(idKey));
      const more = node.ids.filter((id) => !seen.has(idKey(id)));
      if (more.length > 0) known.node = { ...known.node, ids: [...known.node.ids, ...more] };
      known.start ||= isStart;
      continue;
    }
    const collected = { ref: `n${next++}`, node, start: isStart };
    nodes.push(collected);
    byIdentity.set(identityOf(node), collected);
    added.push(collected.ref);
  }
  const types = new Map(collection.types);
  for (const t of answer.types) types.set(t.type, t);
  return { collection: { nodes, types }, added };
}

/** A vertex for a node of the service. */
export interface DrawnNode {
  ref: string;
  schema: string;
  /** `type: id`, shortened. */
  label: string;
  start: boolean;
}

/** A vertex for a hot ID: one held by at least `hotAt` drawn nodes, joined to each of them. */
export interface DrawnHub {
  ref: string;
  id: IdPair;
  /** `type: id (holders)`, shortened. */
  label: string;
  holders: string[];
  links: boolean;
}

/** A line: an ID two drawn nodes share (`shared`), or a hot ID's hub to one of its holders (`hub`). */
export interface DrawnEdge {
  ref: string;
  kind: 'shared' | 'hub';
  source: string;
  target: string;
  id: IdPair;
  /** `type: id` for a shared ID; none on a hub's lines (the hub carries it). */
  label: string;
  /** false for an ID of a `links: false` type: drawn, but it joins nothing in the service. */
  links: boolean;
}

export interface Drawing {
  nodes: DrawnNode[];
  hubs: DrawnHub[];
  edges: DrawnEdge[];
  /** The schemas of the drawn nodes, sorted: the legend. */
  schemas: string[];
}

/** The default of the "hot at" input: an ID held by three or more drawn nodes gets a hub. */
export const DEFAULT_HOT_AT = 3;
/** Below 2 every ID would be "hot", even one held by a single node. */
export const MIN_HOT_AT = 2;

const LABEL_LENGTH = 28;

/** A label that fits under a vertex: long values end in an ellipsis (the panel shows them whole). */
export function shorten(text: string, max = LABEL_LENGTH): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

export const idText = (id: { type: string; id: string | null }): string => `${id.type}: ${id.id ?? '(secure, hidden)'}`;

/**
 * The vertices and lines for a collection. An ID held by one drawn node is not drawn (the node's panel lists
 * it). One held by 2 to hotAt - 1 drawn nodes is a line between each pair of them, labelled with the ID; one
 * held by hotAt or more is a hub with a line to each holder, so a hot ID that merged many people stands out
 * instead of drawing a clique. IDs of a `links: false` type are drawn all the same, marked, since they are why
 * a person asks "are these one?" and the answer is "not through this ID".
 */
export function drawingOf(collection: Collection, hotAt = DEFAULT_HOT_AT): Drawing {
  const threshold = Math.max(MIN_HOT_AT, Math.floor(hotAt));
  const holdersById = new Map<string, { id: IdPair; holders: string[] }>();
  for (const { ref, node } of collection.nodes) {
    for (const id of node.ids) {
      const key = idKey(id);
      const entry = holdersById.get(key) ?? { id, holders: [] };
      if (!entry.holders.includes(ref)) entry.holders.push(ref);
      holdersById.set(key, entry);
    }
  }
  const links = (id: IdPair) => collection.types.get(id.type)?.links !== false;

  const hubs: DrawnHub[] = [];
  const edges: DrawnEdge[] = [];
  for (const [key, { id, holders }] of holdersById) {
    if (holders.length < 2) continue;
    if (holders.length >= threshold) {
      const hub = `hub ${key}`;
      hubs.push({ ref: hub, id, label: `${shorten(idText(id))} (${holders.length})`, holders, links: links(id) });
      for (const holder of holders) {
        edges.push({ ref: `${hub} ${holder}`, kind: 'hub', source: hub, target: holder, id, label: '', links: links(id) });
      }
      continue;
    }
    for (let a = 0; a < holders.length; a++) {
      for (let b = a + 1; b < holders.length; b++) {
        const source = holders[a] as string;
        const target = holders[b] as string;
        edges.push({ ref: `edge ${key} ${source} ${target}`, kind: 'shared', source, target, id, label: shorten(idText(id)), links: links(id) });
      }
    }
  }

  const nodes = collection.nodes.map(({ ref, node, start }) => ({ ref, schema: node.schema, label: shorten(idText(node.key)), start }));
  const schemas = [...new Set(nodes.map((n) => n.schema))].sort();
  return { nodes, hubs, edges, schemas };
}

/**
 * Colour-blind-safe colours (from Paul Tol's "bright" and "muted" schemes, without their reds and greys: those
 * are the hot IDs' and the unlinked IDs'), given to schemas in the order the page first meets them and kept for
 * the page's life, so that a schema keeps its colour across Show and expand.
 */
export const SCHEMA_COLOURS = ['#4477aa', '#228833', '#aa3377', '#66ccee', '#ccbb44', '#332288', '#117733', '#44aa99', '#999933', '#88ccee'];

export class SchemaPalette {
  private readonly order: string[] = [];

  colourOf(schema: string): string {
    let index = this.order.indexOf(schema);
    if (index === -1) index = this.order.push(schema) - 1;
    return SCHEMA_COLOURS[index % SCHEMA_COLOURS.length] as string;
  }
}

/** A key or an ID as `_why` answers it: without a token, a secure one has a null id and `secure: true`. */
export type WhyId = components['schemas']['WhyId'];

/** One step of a `_why` chain: a node, or the ID it shares with the next node. */
export type WhyStep = components['schemas']['WhyStep'];

/** The 200 answer of POST /v1/{customer_id}/_why (types generated from openapi.yaml). */
export type WhyAnswer = components['schemas']['WhyResponse'];

/** A `_why` chain found in a drawing: the refs of its nodes, and of the lines and hubs that join them. */
export interface DrawnChain {
  nodes: string[];
  joins: string[];
  /** Steps of the chain (nodes and IDs) with nothing drawn for them. */
  missing: number;
}

const sameId = (drawn: IdPair, id: WhyId): boolean => drawn.type === id.type && (id.id === null || drawn.id === id.id);

/** Where a `_why` chain is in the drawing: each node by schema and key, each ID as the line or hub that joins its two nodes. */
export function chainIn(path: WhyStep[], collection: Collection, drawing: Drawing): DrawnChain {
  const refs: Array<string | null> = [];
  const vias: WhyId[] = [];
  for (const step of path) {
    if ('via' in step) {
      vias.push(step.via);
      continue;
    }
    const { schema, key } = step.node;
    const found =
      key.id === null ? undefined : collection.nodes.find((c) => c.node.schema === schema && c.node.key.type === key.type && c.node.key.id === key.id);
    refs.push(found?.ref ?? null);
  }
  const nodes = refs.filter((ref): ref is string => ref !== null);
  const joins: string[] = [];
  let missing = refs.length - nodes.length;
  vias.forEach((via, index) => {
    const [a, b] = [refs[index], refs[index + 1]];
    const ends = (edge: DrawnEdge) => (edge.source === a && edge.target === b) || (edge.source === b && edge.target === a);
    const line = a && b ? drawing.edges.find((edge) => edge.kind === 'shared' && sameId(edge.id, via) && ends(edge)) : undefined;
    const hub = a && b ? drawing.hubs.find((h) => sameId(h.id, via) && h.holders.includes(a) && h.holders.includes(b)) : undefined;
    if (line) joins.push(line.ref);
    else if (hub && a && b)
      joins.push(
        hub.ref,
        ...drawing.edges.filter((edge) => edge.kind === 'hub' && edge.source === hub.ref && (edge.target === a || edge.target === b)).map((e) => e.ref),
      );
    else missing++;
  });
  return { nodes, joins, missing };
}
