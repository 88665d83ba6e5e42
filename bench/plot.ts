// `npm run bench:plot`: the latest full runs (bench/results/latest.json, neo4j.json) as docs/performance.md's
// scenario table, and the results of `npm run bench -- --scale N` (bench/results/scale/*.json) as its scale table
// (both printed, Markdown) and as bench/results/scale.svg: each scenario's p99 against the number of IDs, both
// axes logarithmic, one line per scenario and store. A plain SVG written here: three polylines need no plotting
// library.
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const DIR = path.join(ROOT, 'bench', 'results', 'scale');

export interface ScaleReport {
  store: string;
  graph: { held_ids: number };
  load: { seconds: number; ids_per_s: number };
  rss_mb: number;
  /** Peak RSS of the Neo4j JVM the bench started (absent for SQLite, a NEO4J_URI server, and files written before it was measured). */
  neo4j_rss_mb?: number;
  db_mb?: number;
  scenarios: Array<{ name: string; p50_ms: number; p99_ms: number; rps: number }>;
}

export const PLOTTED = ['search ONE', 'search ALL (1,000+ node component)', 'insert'];

/** The Markdown table: one row per store and scale, smallest first. */
export function scaleTable(reports: readonly ScaleReport[]): string {
  const sorted = [...reports].sort((a, b) => a.store.localeCompare(b.store) || a.graph.held_ids - b.graph.held_ids);
  const cell = (r: ScaleReport, name: string) => {
    const s = r.scenarios.find((x) => x.name === name);
    return s ? `${s.p50_ms} / ${s.p99_ms}` : '—';
  };
  const lines = [
    '| store | IDs | load | IDs/s | RSS peak | Neo4j RSS peak | on disk | search ONE p50 / p99 ms | big search p50 / p99 ms | insert p50 / p99 ms |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...sorted.map(
      (r) =>
        `| ${r.store} | ${r.graph.held_ids.toLocaleString('en-US')} | ${r.load.seconds} s | ${r.load.ids_per_s.toLocaleString('en-US')} | ${r.rss_mb} MB | ${r.neo4j_rss_mb === undefined ? '—' : `${r.neo4j_rss_mb} MB`} | ${r.db_mb === undefined ? '—' : `${r.db_mb} MB`} | ${PLOTTED.map((n) => cell(r, n)).join(' | ')} |`,
    ),
  ];
  return lines.join('\n');
}

/** A full run as `npm run bench` writes it (the fields the scenario table reads). */
export interface RunReport {
  store: string;
  measured_at?: string;
  floors: { express: { rps: number } };
  load: { ids_per_s: number };
  erase?: { median_ms: number };
  rss_mb?: number;
  scenarios: Array<{ name: string; rps: number; p50_ms: number; p99_ms: number; ratio_to_express_floor: number }>;
}

/** The Markdown table of every scenario of the SQLite run beside the Neo4j run's, then load, erase and memory. */
export function scenarioTable(sqlite: RunReport, neo4j: RunReport): string {
  const rows = sqlite.scenarios.map((s) => {
    const n = neo4j.scenarios.find((x) => x.name === s.name);
    const neo = n ? `${n.rps} | ${n.p50_ms} | ${n.p99_ms} | ${n.ratio_to_express_floor.toFixed(2)}` : '— | — | — | —';
    return `| ${s.name} | ${s.rps} | ${s.p50_ms} | ${s.p99_ms} | ${s.ratio_to_express_floor.toFixed(2)} | ${neo} |`;
  });
  const both = (f: (r: RunReport) => string) => `${f(sqlite)} on SQLite, ${f(neo4j)} on Neo4j`;
  return [
    '| scenario | SQLite req/s | p50 ms | p99 ms | × floor | Neo4j req/s | p50 ms | p99 ms | × floor |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    `| floor: Express (same middleware) | ${sqlite.floors.express.rps} | | | 1.00 | ${neo4j.floors.express.rps} | | | 1.00 |`,
    ...rows,
    '',
    `Bulk load: ${both((r) => `${r.load.ids_per_s.toLocaleString('en-US')} IDs/s`)}.`,
    `Erasing a person of 1,000 nodes (median of three): ${both((r) => (r.erase ? `${r.erase.median_ms} ms` : '—'))}.`,
    `Service RSS peak: ${both((r) => (r.rss_mb === undefined ? '—' : `${r.rss_mb} MB`))}.`,
  ].join('\n');
}

const COLOURS = ['#0072b2', '#d55e00', '#009e73'];

/** The SVG: p99 (ms) against held IDs, log–log; SQLite solid, Neo4j dashed. */
export function scaleSvg(reports: readonly ScaleReport[]): string {
  const width = 640;
  const height = 360;
  const margin = { left: 60, right: 210, top: 20, bottom: 40 };
  const points = reports.flatMap((r) => r.scenarios.filter((s) => PLOTTED.includes(s.name)).map((s) => ({ x: r.graph.held_ids, y: Math.max(s.p99_ms, 1) })));
  // Decades around the values; 10,000,210 IDs ends the axis at 10M, not 100M.
  const span = (values: number[]) => [Math.floor(Math.log10(Math.min(...values)) + 0.05), Math.ceil(Math.log10(Math.max(...values)) - 0.05)] as const;
  const [x0, x1] = points.length > 0 ? span(points.map((p) => p.x)) : [5, 7];
  const [y0, y1] = points.length > 0 ? span(points.map((p) => p.y)) : [0, 3];
  const xAt = (x: number) => margin.left + ((Math.log10(x) - x0) / Math.max(x1 - x0, 1)) * (width - margin.left - margin.right);
  const yAt = (y: number) => height - margin.bottom - ((Math.log10(y) - y0) / Math.max(y1 - y0, 1)) * (height - margin.top - margin.bottom);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
  ];
  for (let e = x0; e <= x1; e += 1) {
    out.push(`<line x1="${xAt(10 ** e)}" y1="${margin.top}" x2="${xAt(10 ** e)}" y2="${height - margin.bottom}" stroke="#ddd"/>`);
    out.push(`<text x="${xAt(10 ** e)}" y="${height - margin.bottom + 14}" text-anchor="middle">${(10 ** e).toLocaleString('en-US')}</text>`);
  }
  for (let e = y0; e <= y1; e += 1) {
    out.push(`<line x1="${margin.left}" y1="${yAt(10 ** e)}" x2="${width - margin.right}" y2="${yAt(10 ** e)}" stroke="#ddd"/>`);
    out.push(`<text x="${margin.left - 6}" y="${yAt(10 ** e) + 4}" text-anchor="end">${10 ** e} ms</text>`);
  }
  out.push(`<text x="${(margin.left + width - margin.right) / 2}" y="${height - 6}" text-anchor="middle">held IDs (log)</text>`);
  let legend = 0;
  for (const store of [...new Set(reports.map((r) => r.store))].sort()) {
    const ofStore = reports.filter((r) => r.store === store).sort((a, b) => a.graph.held_ids - b.graph.held_ids);
    PLOTTED.forEach((name, i) => {
      const line = ofStore.flatMap((r) => {
        const s = r.scenarios.find((x) => x.name === name);
        return s ? [`${xAt(r.graph.held_ids).toFixed(1)},${yAt(Math.max(s.p99_ms, 1)).toFixed(1)}`] : [];
      });
      if (line.length === 0) return;
      const dash = store === 'neo4j' ? ' stroke-dasharray="6 4"' : '';
      out.push(`<polyline points="${line.join(' ')}" fill="none" stroke="${COLOURS[i]}" stroke-width="2"${dash}/>`);
      for (const p of line) out.push(`<circle cx="${p.split(',')[0]}" cy="${p.split(',')[1]}" r="3" fill="${COLOURS[i]}"/>`);
      const y = margin.top + 14 * legend;
      legend += 1;
      out.push(
        `<line x1="${width - margin.right + 10}" y1="${y}" x2="${width - margin.right + 30}" y2="${y}" stroke="${COLOURS[i]}" stroke-width="2"${dash}/>`,
      );
      out.push(
        `<text x="${width - margin.right + 34}" y="${y + 4}">${store}: ${name.replace('search ALL (1,000+ node component)', '1,000-node search')} p99</text>`,
      );
    });
  }
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

function main(): void {
  const results = path.join(ROOT, 'bench', 'results');
  const run = (file: string) => JSON.parse(fs.readFileSync(path.join(results, file), 'utf8')) as RunReport;
  if (fs.existsSync(path.join(results, 'latest.json')) && fs.existsSync(path.join(results, 'neo4j.json'))) {
    console.log(`${scenarioTable(run('latest.json'), run('neo4j.json'))}\n`);
  }
  const files = fs.existsSync(DIR) ? fs.readdirSync(DIR).filter((f) => f.endsWith('.json')) : [];
  if (files.length === 0) throw new Error(`no results in ${path.relative(ROOT, DIR)}: run npm run bench -- --scale N first`);
  const reports = files.map((f) => JSON.parse(fs.readFileSync(path.join(DIR, f), 'utf8')) as ScaleReport);
  console.log(scaleTable(reports));
  const svg = path.join(ROOT, 'bench', 'results', 'scale.svg');
  fs.writeFileSync(svg, scaleSvg(reports));
  console.log(`\nwritten: ${path.relative(ROOT, svg)}`);
}

if (require.main === module) main();
