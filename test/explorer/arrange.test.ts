// The explorer's arrangement (explorer/src/arrange.ts), on plain numbers: the seeded random numbers the layout draws,
// and where a drawing's nodes go so that it reads whole in the window. The page is tested in Chromium by
// test/browser/fit.browser.test.ts.
import {
  arrange,
  type Box,
  folded,
  longAxis,
  overlappingPairs,
  type Point,
  type Shape,
  seededRandom,
  smallestClearScale,
  turned,
  withRandom,
} from '../../explorer/src/arrange';

/** Boxes the size the page measures: a node's body, its label below it, a line's label on its middle. */
const BODY: Box = { x1: -11, y1: -11, x2: 11, y2: 11 };
const NODE_LABEL: Box = { x1: -36, y1: 7, x2: 36, y2: 30 };
const LINE_LABEL: Box = { x1: -36, y1: -11, x2: 36, y2: 12 };

/** `count` nodes, each joined to the next by a labelled line, laid out as one straight line `step` apart. */
function chain(count: number, step = 120): { shape: Shape; places: Point[] } {
  return {
    shape: {
      nodes: Array.from({ length: count }, () => ({ body: BODY, label: NODE_LABEL })),
      lines: Array.from({ length: count - 1 }, (_, i) => ({ ends: [i, i + 1] as [number, number], label: LINE_LABEL })),
    },
    places: Array.from({ length: count }, (_, i) => ({ x: i * step, y: 0 })),
  };
}

/** Every box of `shape` with its nodes at `places`, and what each belongs to, as the page measures them. */
function boxesOf(shape: Shape, places: Point[]): { boxes: Box[]; owners: number[] } {
  const at = (box: Box, p: Point): Box => ({ x1: box.x1 + p.x, y1: box.y1 + p.y, x2: box.x2 + p.x, y2: box.y2 + p.y });
  const boxes: Box[] = [];
  const owners: number[] = [];
  shape.nodes.forEach((node, i) => {
    const p = places[i] as Point;
    boxes.push(at(node.body, p));
    owners.push(i);
    if (node.label) {
      boxes.push(at(node.label, p));
      owners.push(i);
    }
  });
  shape.lines.forEach((line, i) => {
    const [a, b] = [places[line.ends[0]] as Point, places[line.ends[1]] as Point];
    boxes.push(at(line.label, { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 }));
    owners.push(shape.nodes.length + i);
  });
  return { boxes, owners };
}

const extentOf = (boxes: Box[]) => ({
  width: Math.max(...boxes.map((b) => b.x2)) - Math.min(...boxes.map((b) => b.x1)),
  height: Math.max(...boxes.map((b) => b.y2)) - Math.min(...boxes.map((b) => b.y1)),
});

const ROOMS = [
  { width: 1140, height: 450 },
  { width: 800, height: 450 },
];
const OPTIONS = { reshape: true, goodZoom: 0.955, maxZoom: 1.4, rowGap: 70 };

describe('seeded random numbers', () => {
  test('when seeded alike, then the sequences are the same; seeded otherwise, they differ; all in [0, 1)', () => {
    const take = (seed: string) => {
      const random = seededRandom(seed);
      return Array.from({ length: 1000 }, () => random());
    };
    expect(take('n0 crm crm_id: c-1')).toEqual(take('n0 crm crm_id: c-1'));
    expect(take('n0 crm crm_id: c-1')).not.toEqual(take('n0 crm crm_id: c-2'));
    const values = take('anything');
    expect(values.every((v) => v >= 0 && v < 1)).toBe(true);
    // Spread over the interval, not stuck in a corner of it.
    expect(values.filter((v) => v < 0.5).length).toBeGreaterThan(400);
    expect(values.filter((v) => v < 0.5).length).toBeLessThan(600);
  });

  test('when a run draws from Math.random, then it draws the seeded sequence, and Math.random is itself again afterwards, even after a throw', () => {
    const original = Math.random;
    const expected = seededRandom('seed');
    const drawn = withRandom(seededRandom('seed'), () => [Math.random(), Math.random()]);
    expect(drawn).toEqual([expected(), expected()]);
    expect(Math.random).toBe(original);
    expect(() =>
      withRandom(seededRandom('seed'), () => {
        throw new Error('layout failed');
      }),
    ).toThrow('layout failed');
    expect(Math.random).toBe(original);
  });
});

describe('shapes', () => {
  test('when points lie along a line at 30°, then that is their long axis; turned back by it, they lie level', () => {
    const angle = Math.PI / 6;
    const points = Array.from({ length: 8 }, (_, i) => ({ x: i * 50 * Math.cos(angle), y: i * 50 * Math.sin(angle) + (i % 2) * 3 }));
    expect(longAxis(points)).toBeCloseTo(angle, 1);
    const level = points.map((p) => turned(p, { x: 0, y: 0 }, -longAxis(points)));
    expect(Math.max(...level.map((p) => Math.abs(p.y)))).toBeLessThan(5);
  });

  test('when a line of points is folded in two rows, then the second row runs back, its start under the end of the first (mirrored at the fold)', () => {
    const points = Array.from({ length: 6 }, (_, i) => ({ x: i * 10, y: 0 }));
    expect(folded(points, 2, 40)).toEqual([
      { x: 0, y: 0 },
      { x: 10, y: 0 },
      { x: 20, y: 0 },
      { x: 20, y: 40 },
      { x: 10, y: 40 },
      { x: 0, y: 40 },
    ]);
  });

  test('when the smallest clear scale is searched, then it is found from above, whether that means growing or shrinking', () => {
    expect(smallestClearScale((s) => s >= 0.37)).toBeGreaterThanOrEqual(0.37);
    expect(smallestClearScale((s) => s >= 0.37)).toBeLessThan(0.37 * 1.01);
    expect(smallestClearScale((s) => s >= 2.5)).toBeGreaterThanOrEqual(2.5);
    expect(smallestClearScale((s) => s >= 2.5)).toBeLessThan(2.5 * 1.01);
    // Never clear: the largest scale tried, not a loop without end.
    expect(smallestClearScale(() => false, { rounds: 5 })).toBeCloseTo(1.15 ** 5, 6);
  });

  test('when boxes overlap, then the pairs are found, except those of one owner', () => {
    const boxes = [
      { x1: 0, y1: 0, x2: 10, y2: 10 },
      { x1: 5, y1: 5, x2: 15, y2: 15 },
      { x1: 9, y1: 0, x2: 20, y2: 3 },
      { x1: 30, y1: 0, x2: 40, y2: 10 },
    ];
    expect(overlappingPairs(boxes, [0, 1, 2, 3])).toEqual([
      [0, 1],
      [0, 2],
    ]);
    expect(overlappingPairs(boxes, [0, 0, 2, 3])).toEqual([[0, 2]]);
  });
});

describe('arranging a drawing to read whole', () => {
  test('when a chain of 12 laid out in one straight line is arranged for a wide window, then it is folded into rows and fits at a zoom where labels read, no two boxes overlapping', () => {
    const { shape, places } = chain(12);
    const before = extentOf(boxesOf(shape, places).boxes);
    const straight = Math.min(...ROOMS.map((r) => Math.min(r.width / before.width, r.height / before.height)));
    expect(straight).toBeLessThan(0.6);

    const arranged = arrange(shape, [{ how: 'fcose', places, foldable: true }], ROOMS, OPTIONS);
    expect(arranged.how).toMatch(/folded in \d rows/);
    const { boxes, owners } = boxesOf(shape, arranged.places);
    expect(overlappingPairs(boxes, owners)).toEqual([]);
    const after = extentOf(boxes);
    const zoom = Math.min(...ROOMS.map((r) => Math.min(r.width / after.width, r.height / after.height)));
    expect(zoom).toBeGreaterThanOrEqual(OPTIONS.goodZoom);
    expect(arranged.zoom).toBeCloseTo(Math.min(zoom, OPTIONS.maxZoom), 6);
  });

  test('when a small drawing already reads whole, then it keeps the layout’s places, only scaled, its labels clear', () => {
    const shape: Shape = {
      nodes: [0, 1, 2].map(() => ({ body: BODY, label: NODE_LABEL })),
      lines: [{ ends: [0, 1], label: LINE_LABEL }],
    };
    const places = [
      { x: 0, y: 0 },
      { x: 160, y: 0 },
      { x: 80, y: 140 },
    ];
    const arranged = arrange(shape, [{ how: 'fcose', places, foldable: true }], ROOMS, OPTIONS);
    expect(arranged.how).toBe('fcose');
    expect(arranged.zoom).toBe(OPTIONS.maxZoom);
    // The same triangle: every distance changed by one factor.
    const distance = (a: Point, b: Point) => Math.hypot(a.x - b.x, a.y - b.y);
    const [p, q] = [places, arranged.places];
    const factor = distance(q[0] as Point, q[1] as Point) / distance(p[0] as Point, p[1] as Point);
    expect(distance(q[1] as Point, q[2] as Point) / distance(p[1] as Point, p[2] as Point)).toBeCloseTo(factor, 6);
    const { boxes, owners } = boxesOf(shape, arranged.places);
    expect(overlappingPairs(boxes, owners)).toEqual([]);
  });

  test('when labels overlap where the layout put the nodes, then they are drawn apart', () => {
    const { shape, places } = chain(5, 20);
    expect(overlappingPairs(boxesOf(shape, places).boxes, boxesOf(shape, places).owners).length).toBeGreaterThan(0);
    const arranged = arrange(shape, [{ how: 'fcose', places, foldable: false }], ROOMS, { ...OPTIONS, reshape: false });
    const { boxes, owners } = boxesOf(shape, arranged.places);
    expect(overlappingPairs(boxes, owners)).toEqual([]);
  });

  test('when the same drawing is arranged twice, then the places are the same', () => {
    const { shape, places } = chain(25, 90);
    const wavy = places.map((p, i) => ({ x: p.x, y: (i % 3) * 17 }));
    const layouts = [{ how: 'fcose', places: wavy, foldable: true }];
    expect(arrange(shape, layouts, ROOMS, OPTIONS)).toEqual(arrange(shape, layouts, ROOMS, OPTIONS));
  });
});
