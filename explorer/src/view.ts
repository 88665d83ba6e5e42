// The drawing: a Drawing (model.ts) as cytoscape elements, laid out by fcose. The page's window.explorer is this
// view's cytoscape instance, so tests read the library's own model (cy.nodes(), cy.edges()).
import cytoscape from 'cytoscape';
import fcose from 'cytoscape-fcose';
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
  /** Every element while the zoom makes labels smaller than MIN_LABEL_PX on screen: labels hidden. */
  quiet: 'quiet',
} as const;

/** The colours of a picked node and of the chain, which the legend (explorer.css) repeats. */
export const PICKED = '#2f5d8a';
export const CHAIN = '#e6a100';

const HOT = '#cc3311';

/** Labels' size in the drawing's units: on screen, that times the zoom. */
const LABEL_FONT = 11;
/** Below this size on screen (px) a label is not drawn. */
const MIN_LABEL_PX = 10;
/**
 * The zooms a first draw ends at: labels between 10 and 15.4 px on screen. A small component fitted to the whole
 * area would get huge labels; a large one fitted whole would get labels too small to draw, so the view shows its
 * start nodes at the smallest of these zooms instead (Fit shows it whole).
 */
export const DRAW_ZOOM = { min: MIN_LABEL_PX / LABEL_FONT, max: 1.4 };
/** Drawings up to this many nodes are spread until no two labels overlap (bigger ones are read zoomed in). */
const SPREAD_UP_TO = 80;
const FIT_PADDING = 30;
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
      'min-zoomed-font-size': MIN_LABEL_PX,
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
      'min-zoomed-font-size': MIN_LABEL_PX,
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

type Box = { x1: number; y1: number; x2: number; y2: number };
const overlaps = (a: Box, b: Box): boolean => Math.min(a.x2, b.x2) > Math.max(a.x1, b.x1) && Math.min(a.y2, b.y2) > Math.max(a.y1, b.y1);
const nextFrame = (): Promise<void> => new Promise((resolve) => requestAnimationFrame(() => resolve()));
type LabelBox = { e: cytoscape.SingularElementArgument; box: Box };
const LABEL_ONLY = { includeNodes: false, includeEdges: false, includeLabels: true, includeOverlays: false } as const;

const avg = (values: number[]): number => values.reduce((sum, v) => sum + v, 0) / values.length;

export interface ViewHandlers {
  onNode(ref: string): void;
  onHub(ref: string): void;
  onEdge(ref: string): void;
  onBackground(): void;
}

export class GraphView {
  readonly cy: cytoscape.Core;
  private quiet = false;

  constructor(
    container: HTMLElement,
    private readonly palette: SchemaPalette,
    handlers: ViewHandlers,
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
    // The panel opening or the window changing takes room from the drawing: the library must be told.
    new ResizeObserver(() => this.cy.resize()).observe(container);
    this.cy.on('tap', `node.${CLASSES.person}`, (event) => handlers.onNode((event.target as cytoscape.NodeSingular).id()));
    this.cy.on('tap', `node.${CLASSES.hub}`, (event) => handlers.onHub((event.target as cytoscape.NodeSingular).id()));
    this.cy.on('tap', 'edge', (event) => handlers.onEdge((event.target as cytoscape.EdgeSingular).id()));
    this.cy.on('tap', (event) => {
      if (event.target === this.cy) handlers.onBackground();
    });
  }

  /**
   * Draws `drawing`: elements no longer in it are removed, new ones added, then the layout runs. With `near`, an
   * expansion: the drawn nodes keep their places and the new ones start next to that node. Resolves once the
   * layout is done and the result painted.
   */
  show(drawing: Drawing, near?: string): Promise<void> {
    const cy = this.cy;
    const wanted = new Set<string>([...drawing.nodes.map((n) => n.ref), ...drawing.hubs.map((h) => h.ref), ...drawing.edges.map((e) => e.ref)]);
    const first = near === undefined || cy.nodes().length === 0;
    const origin = near !== undefined ? cy.getElementById(near) : undefined;
    const start = origin && origin.nonempty() ? { ...origin.position() } : { x: 0, y: 0 };
    // A new element starts among the drawn ones it joins (a hub among its holders), else next to `near`, so the
    // layout only has to settle it; the jitter keeps two new ones from starting on the same spot.
    const jitter = () => (Math.random() - 0.5) * 80;
    const startAt = (around: string[]) => {
      const placed = around.map((ref) => cy.getElementById(ref)).filter((n) => n.nonempty());
      const centre = placed.length === 0 ? start : { x: avg(placed.map((n) => n.position().x)), y: avg(placed.map((n) => n.position().y)) };
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
      nodeDimensionsIncludeLabels: cy.nodes().length <= SPREAD_UP_TO,
    };
    return new Promise((resolve) => {
      const layout = cy.layout(options);
      // Registered before run(): without animation the layout may stop before run() returns.
      layout.one('layoutstop', () => {
        void (async () => {
          if (cy.nodes().length <= SPREAD_UP_TO) {
            this.frame();
            await this.spreadLabels();
          }
          this.frame();
          await nextFrame();
          await nextFrame();
          resolve();
        })();
      });
      layout.run();
    });
  }

  /**
   * The layout places nodes, not labels: while two labels overlap, the drawing is spread out from its centre
   * (labels keep their size, so they draw apart), a little at a time. The library places a line's label when it
   * draws, so each round measures after a frame.
   */
  private async spreadLabels(): Promise<void> {
    const cy = this.cy;
    const labelled = cy.elements().filter((e) => String(e.data('label') ?? '') !== '');
    const nodes = cy.nodes();
    for (let round = 0; round < 25; round++) {
      await nextFrame();
      if (this.overlapping(labelled).length === 0) return;
      const centre = { x: avg(nodes.map((n) => n.position().x)), y: avg(nodes.map((n) => n.position().y)) };
      cy.batch(() => {
        for (const n of nodes) n.position({ x: centre.x + (n.position().x - centre.x) * 1.08, y: centre.y + (n.position().y - centre.y) * 1.08 });
      });
    }
  }

  private overlapping(labelled: cytoscape.CollectionReturnValue): Array<[LabelBox, LabelBox]> {
    const boxes: LabelBox[] = labelled.map((e) => ({ e, box: e.boundingBox(LABEL_ONLY) }));
    const pairs: Array<[LabelBox, LabelBox]> = [];
    for (let a = 0; a < boxes.length; a++) {
      for (let b = a + 1; b < boxes.length; b++) {
        const [one, two] = [boxes[a] as LabelBox, boxes[b] as LabelBox];
        if (overlaps(one.box, two.box)) pairs.push([one, two]);
      }
    }
    return pairs;
  }

  /** The whole drawing in view, at a zoom where its labels read well (see DRAW_ZOOM). */
  private frame(): void {
    const cy = this.cy;
    cy.fit(undefined, FIT_PADDING);
    if (cy.zoom() > DRAW_ZOOM.max) {
      cy.zoom(DRAW_ZOOM.max);
      cy.center();
    } else if (cy.zoom() < DRAW_ZOOM.min) {
      cy.zoom(DRAW_ZOOM.min);
      const starts = cy.nodes(`.${CLASSES.start}`);
      cy.center(starts.nonempty() ? starts : undefined);
    }
  }

  /** Labels hidden while they would be smaller than MIN_LABEL_PX on screen; restyled only when that changes. */
  private quietLabels(): void {
    const quiet = LABEL_FONT * this.cy.zoom() < MIN_LABEL_PX;
    if (quiet === this.quiet) return;
    this.quiet = quiet;
    this.cy.batch(() => (quiet ? this.cy.elements().addClass(CLASSES.quiet) : this.cy.elements().removeClass(CLASSES.quiet)));
  }

  /** The whole drawing in view, however small that makes it (the Fit button). */
  fitAll(): void {
    this.cy.fit(undefined, FIT_PADDING);
    // Never blown up past the first draw's zoom: a small drawing fitted to the whole area would get huge labels.
    if (this.cy.zoom() > DRAW_ZOOM.max) {
      this.cy.zoom(DRAW_ZOOM.max);
      this.cy.center();
    }
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
