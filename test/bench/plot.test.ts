// `npm run bench:plot`: the latest full runs and the --scale results as docs/performance.md's tables, and an SVG
// (bench/plot.ts).
import fs from 'node:fs';
import path from 'node:path';
import {
  type MovesReport,
  movesTable,
  neo4jFloorTable,
  printedTables,
  type RunReport,
  type ScaleReport,
  scaleSvg,
  scaleTable,
  scenarioTable,
} from '../../bench/plot';

const ROOT = path.resolve(__dirname, '..', '..');

const report = (store: string, ids: number, p99: number): ScaleReport => ({
  store,
  graph: { held_ids: ids },
  load: { seconds: ids / 50_000, ids_per_s: 50_000 },
  rss_mb: 200,
  ...(store === 'neo4j' ? { neo4j_rss_mb: 2400 } : {}),
  ...(store === 'sqlite' ? { db_mb: Math.round(ids / 10_000) } : {}),
  scenarios: [
    { name: 'search ONE', p50_ms: 2, p99_ms: p99, rps: 2000 },
    { name: 'search ALL (1,000+ node component)', p50_ms: 80, p99_ms: 10 * p99, rps: 100 },
    { name: 'insert', p50_ms: 3, p99_ms: p99 + 1, rps: 3000 },
  ],
});

describe('bench --scale plot', () => {
  const reports = [report('sqlite', 10_000_000, 12), report('sqlite', 100_000, 6), report('neo4j', 1_000_000, 30)];

  test('when the table is made, then one row per store and scale, smallest first, with the Neo4j JVM peak RSS where measured and p50 / p99 of each scenario', () => {
    expect(scaleTable(reports).split('\n').slice(2)).toEqual([
      '| neo4j | 1,000,000 | 20 s | 50,000 | 200 MB | 2400 MB | — | 2 / 30 | 80 / 300 | 3 / 31 |',
      '| sqlite | 100,000 | 2 s | 50,000 | 200 MB | — | 10 MB | 2 / 6 | 80 / 60 | 3 / 7 |',
      '| sqlite | 10,000,000 | 200 s | 50,000 | 200 MB | — | 1000 MB | 2 / 12 | 80 / 120 | 3 / 13 |',
    ]);
  });

  test('when the SVG is made, then each scenario of each store is a line through its points, Neo4j dashed', () => {
    const svg = scaleSvg(reports);
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    const lines = svg.match(/<polyline [^>]*>/g) ?? [];
    expect(lines).toHaveLength(6);
    expect(lines.filter((l) => l.includes('stroke-dasharray'))).toHaveLength(3);
    // the SQLite lines have two points each, the Neo4j ones one
    expect(lines.map((l) => (/points="([^"]*)"/.exec(l)?.[1] ?? '').split(' ').length).sort()).toEqual([1, 1, 1, 2, 2, 2]);
    expect(svg).toContain('sqlite: search ONE p99');
  });
});

describe('bench:plot scenario table', () => {
  const run = (store: string, rps: number, withImpression: boolean): RunReport => ({
    store,
    floors: { express: { rps: 5000 } },
    load: { ids_per_s: store === 'sqlite' ? 100_000 : 11_000 },
    erase: { median_ms: store === 'sqlite' ? 130 : 550 },
    rss_mb: 300,
    scenarios: [
      { name: 'search ONE', rps, p50_ms: 3, p99_ms: 8, ratio_to_express_floor: rps / 5000 },
      ...(withImpression ? [{ name: 'impression', rps: 2000, p50_ms: 4, p99_ms: 11, ratio_to_express_floor: 0.4 }] : []),
    ],
  });

  test('when both runs are given, then each SQLite scenario has a row with the Neo4j figures beside it, or dashes', () => {
    const lines = scenarioTable(run('sqlite', 2500, true), run('neo4j', 1200, false)).split('\n');
    expect(lines.slice(2, 5)).toEqual([
      '| floor: Express (same middleware) | 5000 | | | 1.00 | 5000 | | | 1.00 |',
      '| search ONE | 2500 | 3 | 8 | 0.50 | 1200 | 3 | 8 | 0.24 |',
      '| impression | 2000 | 4 | 11 | 0.40 | — | — | — | — |',
    ]);
    expect(lines).toContain('Bulk load: 100,000 IDs/s on SQLite, 11,000 IDs/s on Neo4j.');
    expect(lines).toContain('Erasing a person of 1,000 nodes (median of three): 130 ms on SQLite, 550 ms on Neo4j.');
  });
});

describe('bench:plot Neo4j floor table', () => {
  const cpu = { service: 0.5, neo4j: 0.25, load_generator: 0.1 };
  const run = (): RunReport => ({
    store: 'neo4j',
    floors: {
      express: { rps: 5000 },
      neo4j: { rps: 2000, p99_ms: 10, cpu_ms_per_request: cpu },
      neo4j_at_end: { rps: 1600, p99_ms: 12, cpu_ms_per_request: cpu },
    },
    load: { ids_per_s: 9000, cpu_ms_per_1000_ids: { service: 25, neo4j: 120.44, load_generator: 1.3 } },
    erase: { median_ms: 650, ms: [1500, 650, 640] },
    scenarios: [
      { name: 'search ONE', rps: 1600, p50_ms: 5, p99_ms: 15, ratio_to_express_floor: 0.32, ratio_to_neo4j_floor: 0.8, cpu_ms_per_request: cpu },
      { name: 'upsert', rps: 700, p50_ms: 12, p99_ms: 30, ratio_to_express_floor: 0.14, ratio_to_neo4j_floor: 0.35, cpu_ms_per_request: cpu },
      { name: 'delivery list', rps: 500, p50_ms: 16, p99_ms: 37, ratio_to_express_floor: 0.1, ratio_to_neo4j_floor: 0.25, cpu_ms_per_request: cpu },
      { name: 'mixed: search ONE', rps: 800, p50_ms: 10, p99_ms: 31, ratio_to_express_floor: 0.16, ratio_to_neo4j_floor: 0.4 },
    ],
  });

  test('when a Neo4j run is given, then each scenario has its ratios to both floors, its CPU split and its aim, met or short', () => {
    const lines = neo4jFloorTable(run()).split('\n');
    expect(lines.slice(2, 8)).toEqual([
      '| floor: Neo4j (one read round trip) | 2000 | 10 | 1.00 | 1.25 | 0.50 | 0.25 | 0.10 | |',
      '| floor: Neo4j, at the end | 1600 | 12 | 0.80 | 1.00 | 0.50 | 0.25 | 0.10 | |',
      '| search ONE | 1600 | 15 | 0.80 | 1.00 | 0.50 | 0.25 | 0.10 | ≥ 0.75: met |',
      '| upsert | 700 | 30 | 0.35 | 0.44 | 0.50 | 0.25 | 0.10 | ≥ 0.40: short |',
      '| delivery list | 500 | 37 | 0.25 | 0.31 | 0.50 | 0.25 | 0.10 |  |',
      '| mixed: search ONE | 800 | 31 | 0.40 | 0.50 | — | — | — | p99 ≤ 30 ms: short |',
    ]);
    expect(lines).toContain(
      "Bulk load: 9,000 IDs/s (aim 30,000: short), at 25.0 ms of the service's CPU, 120.4 of Neo4j's and 1.30 of the load generator's per 1,000 IDs.",
    );
    expect(lines).toContain('Erasing a person of 1,000 nodes: 1500, 650, 640 ms, median 650 ms (aim 300 ms: short).');
  });

  test('when the run has no Neo4j floor, then there is no table to make', () => {
    const { neo4j: _floor, neo4j_at_end: _atEnd, ...sqliteFloors } = run().floors;
    expect(() => neo4jFloorTable({ ...run(), store: 'sqlite', floors: sqliteFloors })).toThrow('has no Neo4j floor');
  });
});

describe('bench --moves table', () => {
  const round = (rate: number) => ({ export_ids_per_s: 4 * rate, export_with_history_ids_per_s: 2 * rate, import_ids_per_s: rate });
  const reports: MovesReport[] = [
    { store: 'sqlite', ids: 1_000_070, migrate_to_neo4j: { seconds: 109.5, ids_per_s: 9130 }, round_1: round(90_000), round_2: round(89_000) },
    { store: 'neo4j', ids: 1_000_070, round_1: round(13_000), round_2: round(12_000) },
  ];

  test('when the table is made, then one row per store, each rate as round 1 / round 2, and the migrate where the store ran it', () => {
    expect(movesTable(reports).split('\n').slice(2)).toEqual([
      '| neo4j | 1,000,070 | 52,000 / 48,000 | 26,000 / 24,000 | 13,000 / 12,000 | — |',
      '| sqlite | 1,000,070 | 360,000 / 356,000 | 180,000 / 178,000 | 90,000 / 89,000 | 109.5 s, 9,130 IDs/s |',
    ]);
  });
});

describe('docs/performance.md', () => {
  test('when it is read, then each table bench:plot prints from bench/results is there as printed', () => {
    const page = fs.readFileSync(path.join(ROOT, 'docs', 'performance.md'), 'utf8');
    const printed = printedTables(path.join(ROOT, 'bench', 'results')).split('\n\n');
    // The scenario table and its lines, the Neo4j floor table and its lines, the scale table, the moves table.
    expect(printed).toHaveLength(6);
    expect(printed.filter((block) => !page.includes(block))).toEqual([]);
  });
});
