// Where a drawing's nodes go once the layout has placed them, decided on plain numbers (no DOM, no drawing library):
// the random numbers the layout draws, seeded from the answer; the shape (turned, folded into rows) and the scale
// at which a drawing reads whole in the window, no two labels overlapping. Unit-tested in
// test/explorer/arrange.test.ts; view.ts measures the drawing for it and applies the result.

export interface Point {
  x: number;
  y: number;
}

export interface Box {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

/** An area the drawing is fitted into, px. */
export interface Room {
  width: number;
  height: number;
}

/**
 * Numbers in [0, 1) that are the same sequence for the same seed: mulberry32 started from the FNV-1a hash of the
 * text. Not for secrets; for a layout that draws the same answer the same way every time.
 */
export function seededRandom(seed: string): () => number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < seed.length; i++) {
    hash ^= seed.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  let state = hash >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Runs `run` with Math.random answering from `random`. fcose draws its start (the spectral layout's samples and
 * first vectors, where a pruned leaf goes back) from Math.random and takes no generator of its own; `run` must be
 * synchronous, so nothing else on the page draws from the seeded sequence meanwhile.
 */
export function withRandom<T>(random: () => number, run: () => T): T {
  const original = Math.random;
  Math.random = random;
  try {
    return run();
  } finally {
    Math.random = original;
  }
}

/** `point` turned by `angle` (radians) about `centre`. */
export function turned(point: Point, centre: Point, angle: number): Point {
  const [cos, sin] = [Math.cos(angle), Math.sin(angle)];
  const [dx, dy] = [point.x - centre.x, point.y - centre.y];
  return { x: centre.x + dx * cos - dy * sin, y: centre.y + dx * sin + dy * cos };
}

/** `point` moved `scale` times as far from `centre`. */
export const scaled = (point: Point, centre: Point, scale: number): Point => ({
  x: centre.x + (point.x - centre.x) * scale,
  y: centre.y + (point.y - centre.y) * scale,
});

export const centreOf = (points: Point[]): Point => ({
  x: points.reduce((sum, p) => sum + p.x, 0) / Math.max(1, points.length),
  y: points.reduce((sum, p) => sum + p.y, 0) / Math.max(1, points.length),
});

export const overlaps = (a: Box, b: Box): boolean => Math.min(a.x2, b.x2) > Math.max(a.x1, b.x1) && Math.min(a.y2, b.y2) > Math.max(a.y1, b.y1);

/**
 * Each two boxes of different owners that overlap, as index pairs: a sweep along x. The page's own check, on the
 * boxes the drawing library measured.
 */
export function overlappingPairs(boxes: Box[], owners: number[]): Array<[number, number]> {
  const pairs: Array<[number, number]> = [];
  const order = boxes.map((_, i) => i).sort((a, b) => (boxes[a] as Box).x1 - (boxes[b] as Box).x1);
  for (let i = 0; i < order.length; i++) {
    const ia = order[i] as number;
    const a = boxes[ia] as Box;
    for (let j = i + 1; j < order.length; j++) {
      const ib = order[j] as number;
      const b = boxes[ib] as Box;
      if (b.x1 >= a.x2) break;
      if (owners[ia] !== owners[ib] && overlaps(a, b)) pairs.push([ia, ib]);
    }
  }
  return pairs;
}

/**
 * A drawing as the arrangement sees it: each node's body's box and label's box relative to the node's place; each
 * labelled line by the indexes of its two nodes, with its label's box relative to the middle of the two (where the
 * library draws a straight line's label). Labels keep their size wherever the nodes go.
 */
export interface Shape {
  nodes: Array<{ body: Box; label: Box | null }>;
  lines: Array<{ ends: [number, number]; label: Box }>;
}

/** Places of a Shape's nodes (by index) that a layout gave, what it was, and whether it may be folded into rows. */
export interface Layout {
  how: string;
  places: Point[];
  foldable: boolean;
}

/**
 * A Shape's boxes, measured for many places of its nodes without allocating: what each box belongs to (a node's
 * body and label are one, and may touch; so are the labels of lines between the same two nodes, which no place
 * of the nodes can part) and the nodes that carry it (a node, or a line's two ends).
 */
class Boxes {
  readonly count: number;
  /** x1, y1, x2, y2 of each box, for the places last given to `at`. */
  readonly edges: Float64Array;
  readonly owners: Int32Array;
  private readonly offsets: Float64Array;
  /** The two nodes carrying box i, at 2i and 2i + 1: its node twice, or its line's two ends. */
  readonly carriers: Int32Array;
  private readonly order: Int32Array;

  constructor(shape: Shape) {
    const offsets: number[] = [];
    const owners: number[] = [];
    const carriers: number[] = [];
    shape.nodes.forEach((node, i) => {
      for (const box of node.label ? [node.body, node.label] : [node.body]) {
        offsets.push(box.x1, box.y1, box.x2, box.y2);
        owners.push(i);
        carriers.push(i, i);
      }
    });
    const lineOwners = new Map<string, number>();
    for (const line of shape.lines) {
      const [a, b] = [Math.min(...line.ends), Math.max(...line.ends)];
      const key = `${a} ${b}`;
      if (!lineOwners.has(key)) lineOwners.set(key, shape.nodes.length + lineOwners.size);
      offsets.push(line.label.x1, line.label.y1, line.label.x2, line.label.y2);
      owners.push(lineOwners.get(key) as number);
      carriers.push(a, b);
    }
    this.count = owners.length;
    this.offsets = Float64Array.from(offsets);
    this.owners = Int32Array.from(owners);
    this.carriers = Int32Array.from(carriers);
    this.edges = new Float64Array(offsets.length);
    this.order = Int32Array.from(owners.keys());
  }

  /** Places every box for nodes at `places`. */
  at(places: Point[]): this {
    return this.atXY(
      Float64Array.from(places, (p) => p.x),
      Float64Array.from(places, (p) => p.y),
    );
  }

  /** Places every box for nodes at (xs[i], ys[i]). */
  atXY(xs: Float64Array, ys: Float64Array): this {
    const c = this.carriers;
    const o = this.offsets;
    const e = this.edges;
    for (let i = 0; i < this.count; i++) {
      const a = c[2 * i] as number;
      const b = c[2 * i + 1] as number;
      const x = ((xs[a] as number) + (xs[b] as number)) / 2;
      const y = ((ys[a] as number) + (ys[b] as number)) / 2;
      e[4 * i] = (o[4 * i] as number) + x;
      e[4 * i + 1] = (o[4 * i + 1] as number) + y;
      e[4 * i + 2] = (o[4 * i + 2] as number) + x;
      e[4 * i + 3] = (o[4 * i + 3] as number) + y;
    }
    return this;
  }

  box(i: number): Box {
    const e = this.edges;
    return { x1: e[4 * i] as number, y1: e[4 * i + 1] as number, x2: e[4 * i + 2] as number, y2: e[4 * i + 3] as number };
  }

  extent(): Box {
    const all = { x1: Infinity, y1: Infinity, x2: -Infinity, y2: -Infinity };
    for (let i = 0; i < this.count; i++) {
      const b = this.box(i);
      [all.x1, all.y1, all.x2, all.y2] = [Math.min(all.x1, b.x1), Math.min(all.y1, b.y1), Math.max(all.x2, b.x2), Math.max(all.y2, b.y2)];
    }
    return all;
  }

  /** Each two boxes of different owners that overlap (flat: a, b, a, b…), at most `limit` pairs: a sweep along x. */
  overlapping(limit = Infinity): number[] {
    const e = this.edges;
    // Sorted by left edge in place: from the last call's order, nearly sorted already, so insertion sort is quick.
    const order = this.order;
    for (let i = 1; i < this.count; i++) {
      const item = order[i] as number;
      const left = e[4 * item] as number;
      let j = i - 1;
      for (; j >= 0 && (e[4 * (order[j] as number)] as number) > left; j--) order[j + 1] = order[j] as number;
      order[j + 1] = item;
    }
    const pairs: number[] = [];
    for (let i = 0; i < this.count; i++) {
      const a = order[i] as number;
      for (let j = i + 1; j < this.count; j++) {
        const b = order[j] as number;
        if ((e[4 * b] as number) >= (e[4 * a + 2] as number)) break;
        if (this.owners[a] === this.owners[b]) continue;
        if (Math.min(e[4 * a + 3] as number, e[4 * b + 3] as number) > Math.max(e[4 * a + 1] as number, e[4 * b + 1] as number)) {
          pairs.push(a, b);
          if (pairs.length / 2 >= limit) return pairs;
        }
      }
    }
    return pairs;
  }
}

/** The zoom at which boxes of this extent just fill the smallest of `rooms`. */
export function zoomToFill(extent: Box, rooms: Room[]): number {
  const [width, height] = [Math.max(1, extent.x2 - extent.x1), Math.max(1, extent.y2 - extent.y1)];
  return Math.min(...rooms.map((room) => Math.min(room.width / width, room.height / height)));
}

/** The angle (radians) of the drawing's long axis: the principal axis of its nodes. */
export function longAxis(points: Point[]): number {
  const centre = centreOf(points);
  let [xx, yy, xy] = [0, 0, 0];
  for (const p of points) {
    xx += (p.x - centre.x) ** 2;
    yy += (p.y - centre.y) ** 2;
    xy += (p.x - centre.x) * (p.y - centre.y);
  }
  return 0.5 * Math.atan2(2 * xy, xx - yy);
}

/**
 * `points` (their long axis level) folded into `rows` rows, as a line of text wraps, every other row run backwards
 * so that what is cut at a fold stays side by side: the end of one row is above the start of the next. Rows are
 * `gap` apart.
 */
export function folded(points: Point[], rows: number, gap: number): Point[] {
  const xs = points.map((p) => p.x);
  const ys = points.map((p) => p.y);
  const [left, top] = [Math.min(...xs), Math.min(...ys)];
  const width = (Math.max(...xs) - left) / rows;
  const pitch = Math.max(...ys) - top + gap;
  return points.map((p) => {
    const along = p.x - left;
    const row = Math.min(rows - 1, Math.floor(along / Math.max(width, 1e-9)));
    const x = row % 2 === 0 ? along - row * width : (row + 1) * width - along;
    return { x, y: p.y - top + row * pitch };
  });
}

/** The turns tried, every 10°; a half turn draws the same extent. */
const TURNS = Array.from({ length: 18 }, (_, step) => (step * Math.PI) / 18);
/** A reshaping (turn, fold) must let the drawing be drawn this much larger to be worth the change. */
const RESHAPE_GAIN = 1.05;
/** The most rows a drawing is folded into. */
const MAX_ROWS = 4;

export interface Arranged {
  places: Point[];
  /** The zoom at which the drawing fills the smallest room (`maxZoom` at most). */
  zoom: number;
  /** Which layout, how it was reshaped (turned, folded in n rows) and whether tightened. */
  how: string;
}

export interface ArrangeOptions {
  /** Try the drawing turned and folded too: a first draw (an expansion keeps the places the user has seen). */
  reshape: boolean;
  /** Bring nodes closer where there is room until the drawing fills the rooms at this zoom; null: scale it only. */
  goodZoom: number | null;
  /** The zoom no fit goes past. */
  maxZoom: number;
  /** Room between folded rows, in the drawing's units. */
  rowGap: number;
}

/**
 * Where the nodes go so that the drawing reads whole in each of `rooms` (the drawing's area with the side panel
 * closed and open, px): the places one of `layouts` gave, or (`reshape`) those turned to the rooms' shape or, when
 * the drawing is long, folded into rows. Each is scaled about its centre: spread until no two labels
 * overlap and no label covers a node but its own, and brought as close as that allows while it is too large to
 * fill the rooms at `maxZoom`; then (`goodZoom`) tightened where there is room. The shape that fills the rooms at
 * the largest zoom (up to `goodZoom`) wins; a reshaping only when it gains more than 5%.
 */
export function arrange(shape: Shape, layouts: Layout[], rooms: Room[], options: ArrangeOptions): Arranged {
  const boxes = new Boxes(shape);
  const candidates: Array<{ how: string; places: Point[] }> = [];
  for (const { how, places, foldable } of layouts) {
    candidates.push({ how, places });
    if (!options.reshape || places.length <= 2) continue;
    const centre = centreOf(places);
    const zoomTurned = (angle: number) => zoomToFill(boxes.at(places.map((p) => turned(p, centre, angle))).extent(), rooms);
    const best = TURNS.map((angle) => ({ angle, zoom: zoomTurned(angle) })).reduce((a, b) => (b.zoom > a.zoom ? b : a));
    if (best.angle !== 0) candidates.push({ places: places.map((p) => turned(p, centre, best.angle)), how: `${how}, turned` });
    const level = places.map((p) => turned(p, centre, -longAxis(places)));
    const extent = boxes.at(level).extent();
    // Folded only when long (a round drawing folded is no smaller, and only tangled), and not when in levels.
    if (foldable && extent.x2 - extent.x1 > 1.5 * (extent.y2 - extent.y1)) {
      for (let rows = 2; rows <= MAX_ROWS && rows <= places.length / 2; rows++) {
        candidates.push({ places: folded(level, rows, options.rowGap), how: `${how}, folded in ${rows} rows` });
      }
    }
  }
  const enough = options.goodZoom ?? options.maxZoom;
  const score = (a: Arranged) => Math.min(a.zoom, enough);
  let chosen: Arranged | null = null;
  for (const candidate of candidates) {
    let arranged = { ...closeUp(boxes, candidate.places, rooms, options.maxZoom), how: candidate.how };
    if (options.goodZoom !== null && arranged.zoom < options.goodZoom) {
      arranged = { ...tighten(boxes, arranged.places, rooms, options.goodZoom), how: `${candidate.how}, tightened` };
    }
    if (chosen === null || score(arranged) > score(chosen) * RESHAPE_GAIN) chosen = arranged;
  }
  return chosen as Arranged;
}

/**
 * `places` scaled about their centre: spread until (nearly) no two labels overlap and no label covers another's
 * node, and brought as close as that allows while the drawing is too large to fill the rooms at `maxZoom`; the
 * few overlaps left then pushed apart. Two lines that cross near their middles keep their labels together at any
 * scale: spreading the whole drawing for them would make it needlessly small.
 */
function closeUp(boxes: Boxes, places: Point[], rooms: Room[], maxZoom: number): { places: Point[]; zoom: number } {
  const centre = centreOf(places);
  const at = (scale: number) => places.map((p) => scaled(p, centre, scale));
  const stubborn = Math.max(2, Math.round(places.length / 20));
  const zoomOf = (points: Point[]) => Math.min(maxZoom, zoomToFill(boxes.at(points).extent(), rooms));
  const closest = smallestClearScale((scale) => boxes.at(at(scale)).overlapping(stubborn + 1).length / 2 <= stubborn);
  let scale = Math.max(1, closest);
  if (zoomOf(at(scale)) < maxZoom && closest < scale) {
    let [small, large] = [closest, scale];
    if (zoomOf(at(small)) < maxZoom) scale = small;
    else {
      for (let round = 0; round < 8; round++) {
        const half = (small + large) / 2;
        if (zoomOf(at(half)) >= maxZoom) small = half;
        else large = half;
      }
      scale = small;
    }
  }
  // Pushed apart where they still overlap; should that not settle, spread a step further and try again, and at
  // last spread until clear.
  for (let round = 0; round < 4; round++, scale *= 1.15) {
    const settled = pushApart(boxes, at(scale));
    if (settled) return { places: settled, zoom: zoomOf(settled) };
  }
  const clear = at(smallestClearScale((s) => boxes.at(at(s)).overlapping(1).length === 0));
  return { places: clear, zoom: zoomOf(clear) };
}

/**
 * Brings a drawing whose labels are clear closer where there is room, until it fills the rooms at `goodZoom`: a step
 * at a time the drawing is shrunk along the side that is too large for the rooms, then every two boxes that came to
 * overlap are pushed apart. Uniform scaling stops at the tightest place; this lets the rest come together. Stops
 * at the last clear step that gained.
 */
function tighten(boxes: Boxes, places: Point[], rooms: Room[], goodZoom: number): { places: Point[]; zoom: number } {
  const zoomOf = (at: Point[]) => zoomToFill(boxes.at(at).extent(), rooms);
  const narrowest = rooms.reduce((a, b) => (b.width < a.width ? b : a));
  let best = { places, zoom: zoomOf(places) };
  const squeeze = (at: Point[], alongX: boolean) => {
    const centre = centreOf(at);
    return at.map((p) => (alongX ? { x: centre.x + (p.x - centre.x) * 0.95, y: p.y } : { x: p.x, y: centre.y + (p.y - centre.y) * 0.95 }));
  };
  let current = best;
  for (let step = 0, idle = 0; step < 120 && best.zoom < goodZoom && idle < 8; step++) {
    const extent = boxes.at(current.places).extent();
    const wide = (extent.x2 - extent.x1) / narrowest.width >= (extent.y2 - extent.y1) / narrowest.height;
    // The side that is too large first; when it will not give, the other, which can make room for the first.
    const settled = pushApart(boxes, squeeze(current.places, wide), 30) ?? pushApart(boxes, squeeze(current.places, !wide), 30);
    if (settled === null) break;
    current = { places: settled, zoom: zoomOf(settled) };
    idle = current.zoom > best.zoom * 1.001 ? 0 : idle + 1;
    if (current.zoom > best.zoom) best = current;
  }
  return best;
}

/**
 * `places` with every two overlapping boxes pushed apart, each by half the overlap along the axis where it is
 * smaller, moving the nodes that carry them (a line's label moves with its two ends); or null when the overlaps
 * have not grown fewer for `patience` rounds. Written without allocating in its loop: a tightening runs it often.
 */
function pushApart(boxes: Boxes, places: Point[], patience = 6): Point[] | null {
  const n = places.length;
  const xs = Float64Array.from(places, (p) => p.x);
  const ys = Float64Array.from(places, (p) => p.y);
  const pushX = new Float64Array(n);
  const pushY = new Float64Array(n);
  const [e, c] = [boxes.edges, boxes.carriers];
  const current = () => Array.from(xs, (x, i) => ({ x, y: ys[i] as number }));
  let fewest = { pairs: Infinity, round: 0 };
  for (let round = 0; round < 5 * patience; round++) {
    const pairs = boxes.atXY(xs, ys).overlapping();
    if (pairs.length === 0) return current();
    // Pushes that only move the overlaps about will not end: given up, so that a tangle costs little.
    if (pairs.length < fewest.pairs) fewest = { pairs: pairs.length, round };
    else if (round - fewest.round >= patience) return null;
    pushX.fill(0);
    pushY.fill(0);
    for (let k = 0; k < pairs.length; k += 2) {
      const a = 4 * (pairs[k] as number);
      const b = 4 * (pairs[k + 1] as number);
      const across = Math.min(e[a + 2] as number, e[b + 2] as number) - Math.max(e[a] as number, e[b] as number);
      const down = Math.min(e[a + 3] as number, e[b + 3] as number) - Math.max(e[a + 1] as number, e[b + 1] as number);
      const alongX = across < down;
      const axis = alongX ? 0 : 1;
      // The first box goes away from the second's centre; the first of the pair when both sit on one spot, so the result is the same every time.
      const away = (e[a + axis] as number) + (e[a + axis + 2] as number) <= (e[b + axis] as number) + (e[b + axis + 2] as number) ? -1 : 1;
      const move = (((alongX ? across : down) + 0.5) / 2) * away;
      const push = alongX ? pushX : pushY;
      const a1 = c[a / 2] as number;
      const a2 = c[a / 2 + 1] as number;
      const b1 = c[b / 2] as number;
      const b2 = c[b / 2 + 1] as number;
      push[a1] = (push[a1] as number) + move;
      if (a2 !== a1) push[a2] = (push[a2] as number) + move;
      push[b1] = (push[b1] as number) - move;
      if (b2 !== b1) push[b2] = (push[b2] as number) - move;
    }
    for (let i = 0; i < n; i++) {
      xs[i] = (xs[i] as number) + (pushX[i] as number);
      ys[i] = (ys[i] as number) + (pushY[i] as number);
    }
  }
  return boxes.atXY(xs, ys).overlapping(1).length === 0 ? current() : null;
}

/**
 * The smallest scale (the drawing moved that many times as far from its centre; labels keep their size) at which
 * `clear(scale)` holds, searched from 1: grown by steps until it holds, or shrunk by steps while it holds, then
 * narrowed between the last two steps. `clear` is expected to hold from some scale on, but need not: the search
 * stops within its rounds and answers the last scale found clear, or the largest tried.
 */
export function smallestClearScale(clear: (scale: number) => boolean, options: { step?: number; rounds?: number; min?: number } = {}): number {
  const { step = 1.15, rounds = 24, min = 0.05 } = options;
  const bracket = stepUntilChange(clear, step, rounds, min);
  if (bracket.blocked === null) return bracket.free;
  let { blocked, free } = bracket;
  for (let round = 0; round < 6; round++) {
    const middle = (blocked + free) / 2;
    if (clear(middle)) free = middle;
    else blocked = middle;
  }
  return free;
}

/**
 * From 1, the scale stepped down while clear, or up until clear: `free`, the last scale found clear (or the largest
 * tried), and `blocked`, the one next to it found not clear (null when the steps ran out first).
 */
function stepUntilChange(clear: (scale: number) => boolean, step: number, rounds: number, min: number): { free: number; blocked: number | null } {
  if (clear(1)) {
    let free = 1;
    for (let round = 0; round < rounds && free / step >= min; round++) {
      if (!clear(free / step)) return { free, blocked: free / step };
      free /= step;
    }
    return { free, blocked: null };
  }
  let blocked = 1;
  for (let round = 0; round < rounds; round++) {
    if (clear(blocked * step)) return { free: blocked * step, blocked };
    blocked *= step;
  }
  return { free: blocked, blocked: null };
}
