// The explorer page (GET /explore): the form, the messages, and what Show, a click and an expansion do. The
// drawing is view.ts, the panel panel.ts, what to draw model.ts.
import type cytoscape from 'cytoscape';
import { fetchGraph, fetchHistory, fetchWhy, postSeparate } from './api';
import {
  chainIn,
  type Collection,
  type CollectedNode,
  DEFAULT_HOT_AT,
  drawingOf,
  emptyCollection,
  type GraphAnswer,
  type IdPair,
  idKey,
  idText,
  merge,
  MIN_HOT_AT,
  SchemaPalette,
} from './model';
import { Panel, type PanelContext } from './panel';
import { redact, type ShownProblem } from './problems';
import { boundedInteger, DEFAULT_MAX_NODES, type GraphQuery, historyPath, MAX_NODES_LIMIT, type NodeName, type Step } from './requests';
import { CLASSES, GraphView } from './view';

declare global {
  interface Window {
    /** The cytoscape instance that draws the graph: what the browser tests count nodes and edges in. */
    explorer: cytoscape.Core;
  }
}

/**
 * performance marks and measures of a Show, read by the browser tests: first-draw (click on Show → the layout done
 * and painted), split into request (→ the answer parsed) and drawing (answer → painted).
 */
export const MARKS = {
  show: 'explorer:show',
  answered: 'explorer:answered',
  drawn: 'explorer:drawn',
  firstDraw: 'explorer:first-draw',
  request: 'explorer:request',
  drawing: 'explorer:drawing',
} as const;

function byId<T extends HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`#${id} is missing from index.html`);
  return element as T;
}

const form = byId<HTMLFormElement>('query');
const inputs = {
  token: byId<HTMLInputElement>('token'),
  customer: byId<HTMLInputElement>('customer'),
  idType: byId<HTMLInputElement>('id-type'),
  idValue: byId<HTMLInputElement>('id-value'),
  schema: byId<HTMLInputElement>('schema'),
  step: byId<HTMLSelectElement>('step'),
  maxNodes: byId<HTMLInputElement>('max-nodes'),
  hotAt: byId<HTMLInputElement>('hot-at'),
};
const showButton = byId<HTMLButtonElement>('show');
const alertBox = byId<HTMLDivElement>('alert');
const notice = byId<HTMLParagraphElement>('notice');
const stats = byId<HTMLOutputElement>('graph-stats');
const legend = byId<HTMLUListElement>('legend');
const help = byId<HTMLParagraphElement>('help');

/**
 * What Show fixed: the customer and the token every later request of this drawing uses (expand, history), kept
 * in this page's memory only. Editing the form changes nothing until the next Show.
 */
interface Session {
  customer: string;
  token: string;
  maxNodes: number;
  /** What Show asked: asked again to redraw after a separation. */
  query: GraphQuery;
}

let session: Session | null = null;
let collection: Collection = emptyCollection();
/** Bumped by every Show: an expansion answered after a newer Show belongs to a drawing that is gone. */
let shown = 0;
/** The first node picked for "why is this one person with…", until the second is clicked. */
let pickedFirst: string | null = null;
const palette = new SchemaPalette();

const hotAt = (): number => boundedInteger(inputs.hotAt.value, MIN_HOT_AT, 1000, DEFAULT_HOT_AT);

const panelElement = byId<HTMLElement>('panel');
const view = new GraphView(
  byId('graph'),
  palette,
  {
    onNode: (ref) => openNode(ref),
    onHub: (ref) => openId(ref),
    onEdge: (ref) => openId(ref),
    onBackground: () => {
      cancelPick();
      panel.hide();
    },
  },
  // The panel's width (explorer.css), which its computed style gives even while it is hidden.
  () => (panelElement.hidden ? parseFloat(getComputedStyle(panelElement).width) || 0 : 0),
);
window.explorer = view.cy;

const panel = new Panel(panelElement, {
  onExpand: (id) => void expand(id),
  onSelectNode: (ref) => openNode(ref),
  onWhyFrom: (ref) => pickFirst(ref),
  onClose: () => {
    panel.hide();
    view.cy.elements(':selected').unselect();
  },
});

function showProblem(problem: ShownProblem | null): void {
  if (problem === null) {
    alertBox.hidden = true;
    alertBox.replaceChildren();
    return;
  }
  const token = session?.token ?? inputs.token.value;
  const line = (className: string, text: string, tag = 'div') => {
    const element = document.createElement(tag);
    element.className = className;
    element.textContent = redact(text, token);
    return element;
  };
  const parts: HTMLElement[] = [line('title', problem.title), line('detail', problem.detail)];
  if (problem.errors.length > 0) {
    const list = document.createElement('ul');
    for (const error of problem.errors) list.append(line('error', error, 'li'));
    parts.push(list);
  }
  if (problem.hint) parts.push(line('hint', problem.hint));
  if (problem.requestId) parts.push(line('request-id', `Request id: ${problem.requestId}`));
  alertBox.replaceChildren(...parts);
  alertBox.hidden = false;
}

function showNotice(text: string | null): void {
  notice.hidden = text === null;
  notice.textContent = text ?? '';
}

/** The status line and legend, counted from the library's model (what is drawn, not what was answered). */
function updateStatus(): void {
  const counts = view.counts();
  stats.dataset.nodes = String(counts.nodes);
  stats.dataset.hubs = String(counts.hubs);
  stats.dataset.edges = String(counts.edges);
  const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  stats.textContent =
    counts.nodes === 0
      ? 'Nothing drawn.'
      : `${plural(counts.nodes, 'node', 'nodes')}, ${plural(counts.edges, 'line', 'lines')}, ${plural(counts.hubs, 'hot ID', 'hot IDs')}`;

  const items: HTMLLIElement[] = [];
  const item = (swatchClass: string, colour: string | null, text: string) => {
    const li = document.createElement('li');
    const swatch = document.createElement('span');
    swatch.className = `swatch ${swatchClass}`;
    // A style property set from script (CSSOM), which the CSP allows, unlike a style attribute in the HTML.
    if (colour) swatch.style.backgroundColor = colour;
    li.append(swatch, text);
    items.push(li);
  };
  const schemas = [...new Set(view.cy.nodes('.person').map((n) => String(n.data('schema'))))].sort();
  for (const schema of schemas) item('schema', palette.colourOf(schema), schema);
  if (view.cy.nodes(`.${CLASSES.start}`).nonempty()) item('start', null, 'thick border: holds the ID you asked for');
  if (view.cy.edges(`.${CLASSES.shared}`).not(`.${CLASSES.unlinked}`).nonempty()) item('line', null, 'ID the two nodes share');
  if (counts.hubs > 0) item('hub', null, `hot ID (held by ${hotAt()}+ drawn nodes)`);
  if (counts.unlinked > 0) item('unlinked', null, 'ID of a type that does not link');
  if (view.cy.nodes(`.${CLASSES.picked}`).nonempty()) item('picked', null, 'picked to ask why');
  if (view.cy.elements(`.${CLASSES.chain}`).nonempty()) item('chain', null, 'the chain: why the picked two are one person');
  legend.replaceChildren(...items);
}

function panelContext(): PanelContext {
  const holders = new Map<string, number>();
  for (const { node } of collection.nodes) for (const id of node.ids) holders.set(idKey(id), (holders.get(idKey(id)) ?? 0) + 1);
  return { holderCount: (id) => holders.get(idKey(id)) ?? 0, hotAt: hotAt(), types: collection.types };
}

function openNode(ref: string): void {
  const collected = collection.nodes.find((c) => c.ref === ref);
  if (!collected || !session) return;
  if (pickedFirst !== null && pickedFirst !== ref && collected.node.key.id !== null) {
    void why(pickedFirst, ref);
    return;
  }
  view.select(ref);
  const path = historyPath(session.customer, collected.node);
  panel.showNode(collected, panelContext(), path === null ? null : fetchHistory(path, session.token));
}

function pickFirst(ref: string): void {
  pickedFirst = ref;
  view.mark([ref]);
  updateStatus();
  showNotice('Now click the other node: the page asks why the two are one person. Esc or a click on the background cancels.');
}

function cancelPick(): void {
  if (pickedFirst === null) return;
  pickedFirst = null;
  view.mark([]);
  updateStatus();
  showNotice(null);
}

const nameOf = (c: CollectedNode): NodeName => ({ schema: c.node.schema, key: { type: c.node.key.type, id: c.node.key.id ?? '' } });

/** Asks `_why` between two drawn nodes, marks the chain, and offers to separate them. */
async function why(refA: string, refB: string): Promise<void> {
  const [a, b] = [collection.nodes.find((c) => c.ref === refA), collection.nodes.find((c) => c.ref === refB)];
  if (!a || !b || !session) return;
  const current = session;
  const drawingOfShow = shown;
  pickedFirst = null;
  showNotice(null);
  view.mark([refA, refB]);
  setBusy(true);
  try {
    const outcome = await fetchWhy(current.customer, nameOf(a), nameOf(b), current.token);
    if (drawingOfShow !== shown) return;
    const chain = outcome.ok && outcome.value.linked ? chainIn(outcome.value.path, collection, drawingOf(collection, hotAt())) : null;
    view.mark([refA, refB], chain ? [...chain.nodes, ...chain.joins] : []);
    updateStatus();
    const shared = a.node.ids.filter((id) => b.node.ids.some((other) => other.type === id.type && other.id === id.id));
    panel.showWhy({
      a,
      b,
      outcome,
      chain,
      shared,
      cannotSeparate: current.token === '' ? 'Separating needs a bearer token of the customer: paste one and press Show.' : null,
      separate: async (side) => {
        const result = await postSeparate(current.customer, nameOf(a), nameOf(b), side, current.token);
        if (result.ok) {
          const from = side === 'A' ? a : b;
          await showQuery(current.query, current.token);
          showNotice(
            `Separated ${idText(a.node.key)} and ${idText(b.node.key)}: ${result.value.ids_removed} shared ${result.value.ids_removed === 1 ? 'ID' : 'IDs'} removed from ${idText(from.node.key)}. A write that would make them share an ID is refused from now on.`,
          );
        }
        return result;
      },
    });
  } finally {
    setBusy(false);
  }
}

/** A hub's or a line's ID: the element's data says which. */
function openId(ref: string): void {
  const element = view.cy.getElementById(ref);
  const id = element.data('idPair') as IdPair | undefined;
  if (!id) return;
  view.select(ref);
  const holders = collection.nodes.filter((c) => c.node.ids.some((held) => held.type === id.type && held.id === id.id));
  panel.showId(id, holders, panelContext());
}

async function draw(near?: string): Promise<void> {
  const drawing = drawingOf(collection, hotAt());
  // The status line and legend before the layout, so that the drawing is arranged for the room they leave.
  await view.show(drawing, near, updateStatus);
}

function truncatedText(answer: GraphAnswer): string | null {
  return answer.truncated
    ? `Showing the first ${answer.nodes.length} nodes; the component has more. Raise "Max nodes" (up to ${MAX_NODES_LIMIT}) or start with step ONE.`
    : null;
}

function setBusy(busy: boolean): void {
  showButton.disabled = busy;
  document.body.setAttribute('aria-busy', String(busy));
}

function clearDrawing(): void {
  panel.hide();
  showNotice(null);
  collection = emptyCollection();
  view.clear();
  updateStatus();
}

function show(): Promise<void> {
  return showQuery({
    customer: inputs.customer.value.trim(),
    where: { type: inputs.idType.value.trim(), id: inputs.idValue.value },
    schema: inputs.schema.value.trim(),
    step: inputs.step.value as Step,
    maxNodes: boundedInteger(inputs.maxNodes.value, 1, MAX_NODES_LIMIT, DEFAULT_MAX_NODES),
  });
}

async function showQuery(query: GraphQuery, token = inputs.token.value): Promise<void> {
  for (const mark of [MARKS.show, MARKS.answered, MARKS.drawn]) performance.clearMarks(mark);
  for (const measure of [MARKS.firstDraw, MARKS.request, MARKS.drawing]) performance.clearMeasures(measure);
  performance.mark(MARKS.show);
  const where = query.where;
  session = { customer: query.customer, token, maxNodes: query.maxNodes, query };
  pickedFirst = null;
  shown++;
  setBusy(true);
  try {
    const outcome = await fetchGraph(query, session.token);
    performance.mark(MARKS.answered);
    if (!outcome.ok) {
      // Nothing of the last drawing stays under the alert: it would read as the answer to this query.
      clearDrawing();
      showProblem(outcome.problem);
      return;
    }
    showProblem(null);
    panel.hide();
    help.hidden = true;
    collection = merge(emptyCollection(), outcome.value, where).collection;
    if (outcome.value.nodes.length === 0) {
      view.clear();
      updateStatus();
      showNotice(`No node holds ${idText(where)}${query.schema ? ` in schema ${query.schema}` : ''}.`);
      return;
    }
    showNotice(truncatedText(outcome.value));
    // A new person: nothing of the last drawing stays (refs start again at n0).
    view.clear();
    await draw();
    performance.mark(MARKS.drawn);
    performance.measure(MARKS.request, MARKS.show, MARKS.answered);
    performance.measure(MARKS.drawing, MARKS.answered, MARKS.drawn);
    const measure = performance.measure(MARKS.firstDraw, MARKS.show, MARKS.drawn);
    stats.dataset.drawMs = String(Math.round(measure.duration));
  } finally {
    setBusy(false);
  }
}

/** Click on an ID: the nodes holding it (step ONE from it), merged into the drawing around the node it came from. */
async function expand(id: IdPair): Promise<void> {
  if (!session) return;
  const from = view.cy.$(':selected').filter('.person');
  const drawingOfShow = shown;
  setBusy(true);
  try {
    const outcome = await fetchGraph({ customer: session.customer, where: id, step: 'ONE', maxNodes: session.maxNodes }, session.token);
    if (drawingOfShow !== shown) return;
    if (!outcome.ok) {
      showProblem(outcome.problem);
      return;
    }
    showProblem(null);
    const merged = merge(collection, outcome.value);
    collection = merged.collection;
    const cut = outcome.value.truncated ? ` (cut at ${outcome.value.nodes.length} nodes)` : '';
    // Shown before drawing: a notice that appears moves the drawing down, and a click must not land mid-move.
    showNotice(`Expanded ${idText(id)}: ${merged.added.length} new ${merged.added.length === 1 ? 'node' : 'nodes'}${cut}.`);
    await draw(from.nonempty() ? from.id() : merged.added[0]);
  } finally {
    setBusy(false);
  }
}

form.addEventListener('submit', (event) => {
  // Never let the browser submit the form: the token must not leave in a request the page does not make.
  event.preventDefault();
  void show();
});

document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape') cancelPick();
});

byId<HTMLButtonElement>('fit').addEventListener('click', () => view.fitAll());

// A new "hot at" redraws what is there; nothing is asked again.
inputs.hotAt.addEventListener('change', () => {
  if (collection.nodes.length > 0) void draw(collection.nodes[0]?.ref);
});
