// The drawing: a Drawing (model.ts) as cytoscape elements, laid out by fcose from numbers seeded by the answer,
// arranged to read whole in the room (arrange.ts) and fitted into it, again whenever the room changes. The page's
// window.explorer is this view's cytoscape instance, so tests read the library's own model (cy.nodes(), cy.edges()).
import cytoscape from 'cytoscape';
import fcose from 'cytoscape-fcose';
import { arrange, type Box, centreOf, type Layout, type Point, type Room, overlappingPairs, scaled, seededRandom, type Shape, withRandom } from './arrange';
import type { Drawing, SchemaPalette } from './model';

cytoscape.use(fcose);

/** Element classes, which the tests and the stylesheet below share. */
export const CLASSES = {
  /** A node of the service. */
  person: 'person',
  /** A node holding the ID the person asked for. */
  start: 'start',
  /** A hot ID's vertex, and its lines to the holders. */
  hub: 'hub',
  hubEdge: 'hub-edge',
  /** An ID two drawn nodes share. */
  shared: 'shared',
  /** An ID of a `links: false` type: drawn, but it joins nothing. */
  unlinked: 'unlinked',
  /** A node picked to ask why it is one person with another. */
  picked: 'picked',
  /** The nodes, lines and hubs of the chain `_why` answered. */
  chain: 'chain',
  /** Every element while the zoom makes labels smaller on screen than the drawing's minimum (MIN_LABEL_PX): labels hidden. */
  quiet: 'quiet',
} as const;

/** The colours of a picked node and of the chain, which the legend (explorer.css) repeats. */
export const PICKED = '#2f5d8a';
export const CHAIN = '#e6a100';

const HOT = '#cc3311';

/** Labels' size in the drawing's units: on screen, that times the zoom. */
const LABEL_FONT = 11;
/**
 * A person of up to this many nodes is read whole: its nodes are arranged (never so close that labels overlap) to
 * fit the room at a zoom where every label reads, with the panel open too (readZoom).
 */
export const READ_WHOLE_UP_TO = 25;
/**
 * Below this size on screen (px) a label is not drawn: 8 in a drawing read whole (its labels never overlap, so
 * small ones still read), 10 in a larger one, whose labels appear as the user zooms in.
 */
const MIN_LABEL_PX = { whole: 8, larger: 10 };
/** A fit never zooms past this (labels of 15.4 px): a small drawing is not blown up to fill the page. */
export const MAX_FIT_ZOOM = 1.4;
/**
 * The zoom a drawing read whole is arranged to be fitted at, with the panel open too: labels of 10 px up to 12
 * nodes, of 8 px up to READ_WHOLE_UP_TO, and 5% to spare. A drawing that reads so keeps the layout's look.
 */
const readZoom = (nodes: number): number => ((nodes <= 12 ? 10 : MIN_LABEL_PX.whole) / LABEL_FONT) * 1.05;
/** Drawings up to this many nodes are arranged so that no two labels overlap (bigger ones are read zoomed in). */
const SPREAD_UP_TO = 80;
const FIT_PADDING = 30;
/** Room kept around a label, in the drawing's units, so that two labels never touch. */
const LABEL_GAP = 2;
const UNLINKED = '#9a9a9a';

const STYLE: cytoscape.StylesheetJson = [
  {
    selector: 'node',
    style: {
      label: 'data(label)',
      'font-size': LABEL_FONT,
      color: '#1d232a',
      'text-valign': 'bottom',
      'text-margin-y': 3,
      'text-outline-color': '#ffffff',
      'text-outline-width': 2,
      // A label smaller than this on screen is not drawn: unreadable anyway, and not drawing it keeps 500 nodes fluid.
      'min-zoomed-font-size': MIN_LABEL_PX.whole,
    },
  },
  { selector: `node.${CLASSES.person}`, style: { 'background-color': 'data(colour)', width: 20, height: 20 } },
  { selector: `node.${CLASSES.start}`, style: { 'border-width': 3, 'border-color': '#1d232a' } },
  { selector: `node.${CLASSES.hub}`, style: { shape: 'diamond', 'background-color': HOT, width: 26, height: 26, color: HOT, 'font-weight': 'bold' } },
  {
    selector: `node.${CLASSES.hub}.${CLASSES.unlinked}`,
    style: { 'background-color': '#ffffff', 'border-width': 2, 'border-style': 'dashed', 'border-color': UNLINKED, color: '#5b6470' },
  },
  {
    selector: 'edge',
    style: {
      width: 1.5,
      'line-color': '#7d8895',
      // Two nodes sharing two IDs get two lines, side by side.
      'curve-style': 'bezier',
      label: 'data(label)',
      // Level, not along the line: read without tilting the head, and its box is the one measured for overlaps.
      'font-size': LABEL_FONT,
      color: '#3d4650',
      'text-outline-color': '#ffffff',
      'text-outline-width': 2,
      'min-zoomed-font-size': MIN_LABEL_PX.whole,
    },
  },
  { selector: `edge.${CLASSES.hubEdge}`, style: { 'line-color': '#e69a85', width: 1.2 } },
  { selector: `edge.${CLASSES.unlinked}`, style: { 'line-style': 'dashed', 'line-color': UNLINKED } },
  // The library's own min-zoomed-font-size works in steps of a power of two of the zoom, so it draws labels down
  // to half that size; this hides them at the size itself.
  { selector: `.${CLASSES.quiet}`, style: { 'text-opacity': 0 } },
  { selector: `node.${CLASSES.chain}`, style: { 'underlay-color': CHAIN, 'underlay-opacity': 0.55, 'underlay-padding': 5, 'underlay-shape': 'ellipse' } },
  { selector: `edge.${CLASSES.chain}`, style: { width: 5, 'line-color': CHAIN, 'line-style': 'solid' } },
  { selector: `node.${CLASSES.picked}`, style: { 'underlay-color': PICKED, 'underlay-opacity': 0.45, 'underlay-padding': 6, 'underlay-shape': 'ellipse' } },
  { selector: ':selected', style: { 'overlay-color': '#2f5d8a', 'overlay-opacity': 0.25, 'overlay-padding': 6 } },
];

/** fcose's options (the extension ships no types). */
interface FcoseOptions {
  name: 'fcose';
  quality: 'draft' | 'default' | 'proof';
  randomize: boolean;
  animate: boolean;
  fit: boolean;
  padding: number;
  nodeRepulsion: number;
  idealEdgeLength: number;
  tile: boolean;
  nodeDimensionsIncludeLabels: boolean;
}

const nextFrame = (): Promise<void> => new Promise((resolve) => requestAnimationFrame(() => resolve()));
const LABEL_ONLY = { includeNodes: false, includeEdges: false, includeLabels: true, includeOverlays: false, useCache: false } as const;
const BODY_ONLY = { includeNodes: true, includeEdges: false, includeLabels: false, includeOverlays: false, useCache: false } as const;
const padded = (box: Box, by: number): Box => ({ x1: box.x1 - by, y1: box.y1 - by, x2: box.x2 + by, y2: box.y2 + by });

/** The text the layout's random numbers are seeded from: the drawing itself, so the same answer draws the same. */
const seedOf = (drawing: Drawing): string =>
  [...drawing.nodes.map((n) => `${n.ref} ${n.schema} ${n.label}`), ...drawing.hubs.map((h) => h.ref), ...drawing.edges.map((e) => e.ref)].join('\n');

export interface ViewHandlers {
  onNode(ref: string): void;
  onHub(ref: string): void;
  onEdge(ref: string): void;
  onBackground(): void;
}

export class GraphView {
  readonly cy: cytoscape.Core;
  private quiet = false;
  private minLabelPx = MIN_LABEL_PX.larger;
  /** The drawing is in view whole, as a fit left it: a change of room fits it again. A pan or zoom of the user's ends it. */
  private whole = false;

  /**
   * `sideWidth` answers the width (px) the side panel takes from the drawing when it opens, 0 while it is open:
   * a first draw is arranged to read whole with the panel open as well as closed.
   */
  constructor(
    container: HTMLElement,
    private readonly palette: SchemaPalette,
    handlers: ViewHandlers,
    private readonly sideWidth: () => number = () => 0,
  ) {
    this.cy = cytoscape({
      container,
      style: STYLE,
      // Not textureOnViewport: measured at 500 nodes, making that picture stalls the first frame of a zoom for ~300 ms,
      // where plain redraws keep every frame under ~100 ms.
      boxSelectionEnabled: false,
      selectionType: 'single',
      minZoom: 0.05,
      maxZoom: 4,
      wheelSensitivity: 0.3,
    });
    this.cy.on('viewport', () => this.quietLabels());
    // The library's own events for a pan or zoom by hand (a programmatic fit sends only `viewport`).
    this.cy.on('dragpan scrollzoom pinchzoom', () => {
      this.whole = false;
    });
    // The panel opening or closing, or the window changing, changes the drawing's room: the library must be told,
    // and a drawing shown whole is fitted again into the room there is. The observer runs before the browser paints
    // the new room, so the drawing is never seen cut by the panel.
    new ResizeObserver(() => this.resized()).observe(container);
    this.cy.on('tap', `node.${CLASSES.person}`, (event) => handlers.onNode((event.target as cytoscape.NodeSingular).id()));
    this.cy.on('tap', `node.${CLASSES.hub}`, (event) => handlers.onHub((event.target as cytoscape.NodeSingular).id()));
    this.cy.on('tap', 'edge', (event) => handlers.onEdge((event.target as cytoscape.EdgeSingular).id()));
    this.cy.on('tap', (event) => {
      if (event.target === this.cy) handlers.onBackground();
    });
  }

  /**
   * Draws `drawing`: elements no longer in it are removed, new ones added, then the layout runs, from random numbers
   * seeded by the drawing (the same answer, the same picture). With `near`, an expansion: the drawn nodes keep their
   * places and the new ones start next to that node. Then, up to SPREAD_UP_TO nodes, the drawing is arranged for
   * its room (arrange below), and it is fitted whole. Resolves once painted.
   * `beforeLayout` runs once the elements are in: what it changes around the drawing (the legend) changes the
   * room the drawing is arranged for.
   */
  async show(drawing: Drawing, near?: string, beforeLayout: () => void = () => {}): Promise<void> {
    const cy = this.cy;
    const random = seededRandom(seedOf(drawing));
    const wanted = new Set<string>([...drawing.nodes.map((n) => n.ref), ...drawing.hubs.map((h) => h.ref), ...drawing.edges.map((e) => e.ref)]);
    const first = near === undefined || cy.nodes().length === 0;
    const origin = near !== undefined ? cy.getElementById(near) : undefined;
    const start = origin && origin.nonempty() ? { ...origin.position() } : { x: 0, y: 0 };
    // A new element starts among the drawn ones it joins (a hub among its holders), else next to `near`, so the
    // layout only has to settle it; the jitter keeps two new ones from starting on the same spot.
    const jitter = () => (random() - 0.5) * 80;
    const startAt = (around: string[]) => {
      const placed = around.map((ref) => cy.getElementById(ref)).filter((n) => n.nonempty());
      const centre = placed.length === 0 ? start : centreOf(placed.map((n) => n.position()));
      return { x: centre.x + jitter(), y: centre.y + jitter() };
    };

    cy.batch(() => {
      cy.elements()
        .filter((element) => !wanted.has(element.id()))
        .remove();
      const added: cytoscape.ElementDefinition[] = [];
      const place = (ref: string, data: Record<string, unknown>, classes: string[], around: string[] = []) => {
        const existing = cy.getElementById(ref);
        if (existing.nonempty()) {
          existing.data(data);
          existing.classes(classes);
        } else {
          added.push({ group: 'nodes', data: { id: ref, ...data }, classes, ...(first ? {} : { position: startAt(around) }) });
        }
      };
      for (const node of drawing.nodes) {
        const classes: string[] = [CLASSES.person, ...(node.start ? [CLASSES.start] : [])];
        place(node.ref, { label: node.label, schema: node.schema, colour: this.palette.colourOf(node.schema) }, classes);
      }
      for (const hub of drawing.hubs) {
        place(hub.ref, { label: hub.label, holders: hub.holders.length, idPair: hub.id }, [CLASSES.hub, ...(hub.links ? [] : [CLASSES.unlinked])], hub.holders);
      }
      for (const edge of drawing.edges) {
        const classes = [edge.kind === 'hub' ? CLASSES.hubEdge : CLASSES.shared, ...(edge.links ? [] : [CLASSES.unlinked])];
        const existing = cy.getElementById(edge.ref);
        if (existing.nonempty()) existing.classes(classes);
        else added.push({ group: 'edges', data: { id: edge.ref, source: edge.source, target: edge.target, label: edge.label, idPair: edge.id }, classes });
      }
      cy.add(added);
      if (this.quiet) cy.elements().addClass(CLASSES.quiet);
    });
    this.minLabelPx = drawing.nodes.length <= READ_WHOLE_UP_TO ? MIN_LABEL_PX.whole : MIN_LABEL_PX.larger;
    beforeLayout();
    // The library measures its room when told to; the page around may have changed since (the help line went).
    cy.resize();

    const spread = cy.nodes().length <= SPREAD_UP_TO;
    const options: FcoseOptions = {
      name: 'fcose',
      quality: 'default',
      randomize: first,
      animate: false,
      fit: false,
      padding: FIT_PADDING,
      nodeRepulsion: 6500,
      idealEdgeLength: 45,
      // Nodes without a line (joined through an ID the caller may not see) are set in rows, not scattered.
      tile: true,
      // A node takes the room of its label too, so that labels of neighbours do not land on each other; a large
      // drawing is read zoomed in, where that room is not needed, and measuring every label slows its layout.
      nodeDimensionsIncludeLabels: spread,
    };
    const layout = cy.layout(options);
    // Registered before run(): without animation the layout stops before run() returns.
    const stopped = new Promise<void>((resolve) => layout.one('layoutstop', () => resolve()));
    withRandom(random, () => layout.run());
    await stopped;
    if (spread) this.arrange(first, drawing.nodes.length);
    this.fitAll();
    await nextFrame();
    await nextFrame();
  }

  /** The rooms a fit fills, in px: the drawing's area now, and what is left of it once the side panel opens. */
  private rooms(): Room[] {
    const room = { width: Math.max(1, this.cy.width() - 2 * FIT_PADDING), height: Math.max(1, this.cy.height() - 2 * FIT_PADDING) };
    const side = this.sideWidth();
    return side > 0 ? [room, { ...room, width: Math.max(1, room.width - side) }] : [room];
  }

  /**
   * The layout places nodes, not labels, and does not know the window's shape. The drawing is measured (each node's
   * body and label, each line's label) and arranged (arrange.ts): on a first draw, from fcose's places or from
   * levels away from the start nodes (the library's breadthfirst layout: a tree reads well so), turned to the
   * room's shape or, when long, folded into rows; then spread until no two labels overlap and no label covers
   * another's node, and brought as close as that allows while it is too large to fill the room. The library places a
   * curved line's label itself, which the arrangement only estimates: while one overlaps, the drawing is spread a
   * little more.
   */
  private arrange(first: boolean, people: number): void {
    const cy = this.cy;
    const nodes = cy.nodes();
    const index = new Map(nodes.map((n, i) => [n.id(), i]));
    const relative = (box: Box, to: Point): Box => ({ x1: box.x1 - to.x, y1: box.y1 - to.y, x2: box.x2 - to.x, y2: box.y2 - to.y });
    const labelled = (e: cytoscape.SingularElementArgument) => String(e.data('label') ?? '') !== '';
    const shape: Shape = {
      nodes: nodes.map((n) => ({
        body: relative(n.boundingBox(BODY_ONLY), n.position()),
        label: labelled(n) ? relative(padded(n.boundingBox(LABEL_ONLY), LABEL_GAP), n.position()) : null,
      })),
      lines: cy
        .edges()
        .filter((e) => labelled(e))
        .map((element) => {
          const e = element as cytoscape.EdgeSingular;
          const ends: [number, number] = [index.get(e.source().id()) ?? 0, index.get(e.target().id()) ?? 0];
          const [a, b] = [e.source().position(), e.target().position()];
          return { ends, label: relative(padded(e.boundingBox(LABEL_ONLY), LABEL_GAP), { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 }) };
        }),
    };
    const laidOut = nodes.map((n) => ({ ...n.position() }));
    const layouts: Layout[] = [{ how: 'fcose', places: laidOut, foldable: true }];
    if (first) {
      const starts = cy.nodes(`.${CLASSES.start}`);
      // Within a box of the room's size, not the viewport's (which the last drawing left): the same answer, the same places.
      cy.layout({
        name: 'breadthfirst',
        roots: starts.nonempty() ? starts.map((n) => n.id()) : undefined,
        boundingBox: { x1: 0, y1: 0, w: cy.width(), h: cy.height() },
        spacingFactor: 1,
        nodeDimensionsIncludeLabels: true,
        animate: false,
        fit: false,
      }).run();
      layouts.push({ how: 'levels', places: nodes.map((n) => ({ ...n.position() })), foldable: false });
    }
    const tallest = (boxes: Array<Box | null>) => Math.max(0, ...boxes.map((b) => (b ? b.y2 - b.y1 : 0)));
    const rowGap = tallest(shape.nodes.map((n) => n.label)) + tallest(shape.nodes.map((n) => n.body)) + tallest(shape.lines.map((l) => l.label));
    const arranged = arrange(shape, layouts, this.rooms(), {
      reshape: first,
      goodZoom: people <= READ_WHOLE_UP_TO ? readZoom(people) : null,
      maxZoom: MAX_FIT_ZOOM,
      rowGap,
    });
    const place = (scale: number) =>
      cy.batch(() => {
        const centre = centreOf(arranged.places);
        nodes.forEach((n, i) => {
          n.position(scaled(arranged.places[i] as Point, centre, scale));
        });
      });
    place(1);
    // What each box belongs to: a node's label and body are one, and may touch; so are the labels of two lines
    // between the same two nodes, which no place of the nodes can part.
    const measured = cy.elements().filter(labelled);
    const ownerOf = (e: cytoscape.SingularElementArgument) => (e.isEdge() ? [e.source().id(), e.target().id()].sort().join(' ') : e.id());
    const numbers = new Map<string, number>();
    const owners = [...measured.map(ownerOf), ...nodes.map(ownerOf)].map((key) => numbers.get(key) ?? numbers.set(key, numbers.size).size - 1);
    for (let round = 1; round <= 20; round++) {
      const boxes = [...measured.map((e) => padded(e.boundingBox(LABEL_ONLY), LABEL_GAP / 2)), ...nodes.map((n) => n.boundingBox(BODY_ONLY))];
      if (overlappingPairs(boxes, owners).length === 0) break;
      place(1.05 ** round);
    }
  }

  /** Labels hidden while they would be smaller than the drawing's minimum on screen; restyled only when that changes. */
  private quietLabels(): void {
    const quiet = LABEL_FONT * this.cy.zoom() < this.minLabelPx;
    if (quiet === this.quiet) return;
    this.quiet = quiet;
    this.cy.batch(() => (quiet ? this.cy.elements().addClass(CLASSES.quiet) : this.cy.elements().removeClass(CLASSES.quiet)));
  }

  /**
   * The whole drawing in view, however small that makes it (a first draw, the Fit button, a change of room), but
   * never blown up past MAX_FIT_ZOOM: a small drawing fitted to the whole area would get huge labels.
   */
  fitAll(): void {
    const cy = this.cy;
    if (cy.elements().empty()) return;
    cy.fit(undefined, FIT_PADDING);
    if (cy.zoom() > MAX_FIT_ZOOM) {
      cy.zoom(MAX_FIT_ZOOM);
      cy.center();
    }
    this.quietLabels();
    this.whole = true;
  }

  /**
   * The room changed (the panel opened or closed, the window was resized). A drawing shown whole is fitted again;
   * one the user zoomed into keeps its zoom and its centre, and the selected element is kept in sight.
   */
  private resized(): void {
    const cy = this.cy;
    const before = { width: cy.width(), height: cy.height() };
    cy.resize();
    if (cy.elements().empty()) return;
    if (this.whole) {
      this.fitAll();
      return;
    }
    cy.panBy({ x: (cy.width() - before.width) / 2, y: (cy.height() - before.height) / 2 });
    const selected = cy.elements(':selected');
    if (selected.empty()) return;
    const box = selected.renderedBoundingBox({ includeLabels: true, includeOverlays: false });
    const into = (low: number, high: number, size: number) =>
      low < FIT_PADDING ? FIT_PADDING - low : high > size - FIT_PADDING ? size - FIT_PADDING - high : 0;
    cy.panBy({ x: into(box.x1, box.x2, cy.width()), y: into(box.y1, box.y2, cy.height()) });
  }

  /** What is drawn, counted in the library's model. */
  counts(): { nodes: number; hubs: number; edges: number; unlinked: number } {
    return {
      nodes: this.cy.nodes(`.${CLASSES.person}`).length,
      hubs: this.cy.nodes(`.${CLASSES.hub}`).length,
      edges: this.cy.edges().length,
      unlinked: this.cy.edges(`.${CLASSES.unlinked}`).length,
    };
  }

  select(ref: string): void {
    this.cy.elements(':selected').unselect();
    this.cy.getElementById(ref).select();
  }

  /** Marks the picked nodes and the chain between them; none given, none marked. */
  mark(picked: string[], chain: string[] = []): void {
    const cy = this.cy;
    cy.batch(() => {
      cy.elements(`.${CLASSES.picked}, .${CLASSES.chain}`).removeClass(`${CLASSES.picked} ${CLASSES.chain}`);
      for (const ref of picked) cy.getElementById(ref).addClass(CLASSES.picked);
      for (const ref of chain) cy.getElementById(ref).addClass(CLASSES.chain);
    });
  }

  clear(): void {
    this.cy.elements().remove();
  }
}
