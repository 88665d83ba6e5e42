// `npm run bench:plot`: the --scale results as the README's table and an SVG (bench/plot.ts).
import { type ScaleReport, scaleSvg, scaleTable } from '../../bench/plot';

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
