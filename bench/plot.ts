// `npm run bench:plot`: the latest full runs (bench/results/latest.json, neo4j.json) as docs/performance.md's
// scenario table and its table of the Neo4j run against the Neo4j floor, and the results of `npm run bench --
// --scale N` (bench/results/scale/*.json) as its scale table, and those of `npm run bench -- --moves`
// (bench/results/moves/*.json) as its table of exports, imports and migrate (all printed, Markdown, to be pasted as printed), and as
// bench/results/scale.svg: each scenario's p99 against the number of IDs, both axes logarithmic, one line per
// scenario and store. A plain SVG written here: three polylines need no plotting library.
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

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

/** CPU milliseconds each process spent, divided by what was done (bench/README.md, "Where a request's CPU goes"). */
export interface CpuSplit {
  service: number;
  neo4j?: number;
  load_generator: number;
}

/** A full run as `npm run bench` writes it (the fields the tables read). */
export interface RunReport {
  store: string;
  measured_at?: string;
  floors: {
    express: { rps: number };
    /** The Neo4j floor (`POST /floor`, one read round trip through the service), after its warm-up and after the last scenario. */
    neo4j?: { rps: number; p99_ms: number; cpu_ms_per_request?: CpuSplit };
    neo4j_at_end?: { rps: number; p99_ms: number; cpu_ms_per_request?: CpuSplit };
  };
  load: { ids_per_s: number; cpu_ms_per_1000_ids?: CpuSplit };
  erase?: { median_ms: number; ms?: number[] };
  rss_mb?: number;
  scenarios: Array<{
    name: string;
    rps: number;
    p50_ms: number;
    p99_ms: number;
    ratio_to_express_floor: number;
    ratio_to_neo4j_floor?: number;
    cpu_ms_per_request?: CpuSplit;
  }>;
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

/**
 * What the Neo4j store is held to, against the Neo4j floor of the same run: a ratio to reach, or a p99 to stay under
 * (docs/neo4j-performance.md). The writes and the showing calls need a transaction or several checks where the floor
 * makes one read, so their aim is lower than a search's.
 */
export type Aim = { ratio: number } | { p99_ms: number };
export const NEO4J_AIMS: Readonly<Record<string, Aim>> = {
  'search ONE': { ratio: 0.75 },
  create: { ratio: 0.4 },
  insert: { ratio: 0.4 },
  upsert: { ratio: 0.4 },
  'impression (person of 20 IDs)': { ratio: 0.4 },
  'eligible (person of 20 IDs, 100 active deliveries)': { ratio: 0.4 },
  'mixed: search ONE': { p99_ms: 30 },
  'mixed: search ALL (1,000+ node component)': { p99_ms: 150 },
};
export const NEO4J_LOAD_AIM_IDS_PER_S = 30_000;
export const NEO4J_ERASE_AIM_MS = 300;

/** Milliseconds of CPU as the tables print them: two decimals below 10, one above. */
const cpuMs = (ms: number | undefined) => (ms === undefined ? '—' : ms < 10 ? ms.toFixed(2) : ms.toFixed(1));
const cpuCells = (cpu: CpuSplit | undefined) => [cpuMs(cpu?.service), cpuMs(cpu?.neo4j), cpuMs(cpu?.load_generator)].join(' | ');

function aimCell(aim: Aim | undefined, scenario: { p99_ms: number; ratio_to_neo4j_floor?: number }): string {
  if (aim === undefined) return '';
  if ('ratio' in aim) {
    const met = scenario.ratio_to_neo4j_floor !== undefined && scenario.ratio_to_neo4j_floor >= aim.ratio;
    return `≥ ${aim.ratio.toFixed(2)}: ${met ? 'met' : 'short'}`;
  }
  return `p99 ≤ ${aim.p99_ms} ms: ${scenario.p99_ms <= aim.p99_ms ? 'met' : 'short'}`;
}

/**
 * The Markdown table of a Neo4j run against its Neo4j floor: each scenario's rate and p99, its ratio to the floor
 * measured after the load (as `ratio_to_neo4j_floor`, what the aims are held to) and to the floor measured again
 * at the end, the CPU a request cost each process, and its aim; then the load and the erase against theirs. Throws
 * when the run has no Neo4j floor (a SQLite run, or one older than the floor).
 */
export function neo4jFloorTable(neo4j: RunReport): string {
  const { neo4j: floor, neo4j_at_end: atEnd } = neo4j.floors;
  if (floor === undefined) throw new Error(`the ${neo4j.store} run has no Neo4j floor`);
  const toEnd = (rps: number) => (atEnd === undefined ? '—' : (rps / atEnd.rps).toFixed(2));
  const rows = neo4j.scenarios.map(
    (s) =>
      `| ${s.name} | ${s.rps} | ${s.p99_ms} | ${s.ratio_to_neo4j_floor?.toFixed(2) ?? '—'} | ${toEnd(s.rps)} | ${cpuCells(s.cpu_ms_per_request)} | ${aimCell(NEO4J_AIMS[s.name], s)} |`,
  );
  const load = neo4j.load;
  const loadCpu = load.cpu_ms_per_1000_ids;
  const erase = neo4j.erase;
  return [
    '| scenario | req/s | p99 ms | × Neo4j floor | × floor at the end | service CPU ms | Neo4j CPU ms | load generator CPU ms | aim |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---|',
    `| floor: Neo4j (one read round trip) | ${floor.rps} | ${floor.p99_ms} | 1.00 | ${toEnd(floor.rps)} | ${cpuCells(floor.cpu_ms_per_request)} | |`,
    ...(atEnd === undefined
      ? []
      : [
          `| floor: Neo4j, at the end | ${atEnd.rps} | ${atEnd.p99_ms} | ${(atEnd.rps / floor.rps).toFixed(2)} | 1.00 | ${cpuCells(atEnd.cpu_ms_per_request)} | |`,
        ]),
    ...rows,
    '',
    `Bulk load: ${load.ids_per_s.toLocaleString('en-US')} IDs/s (aim ${NEO4J_LOAD_AIM_IDS_PER_S.toLocaleString('en-US')}: ${load.ids_per_s >= NEO4J_LOAD_AIM_IDS_PER_S ? 'met' : 'short'})` +
      (loadCpu === undefined
        ? '.'
        : `, at ${cpuMs(loadCpu.service)} ms of the service's CPU, ${cpuMs(loadCpu.neo4j)} of Neo4j's and ${cpuMs(loadCpu.load_generator)} of the load generator's per 1,000 IDs.`),
    erase === undefined
      ? 'Erasing a person of 1,000 nodes: not measured.'
      : `Erasing a person of 1,000 nodes: ${erase.ms === undefined ? '' : `${erase.ms.join(', ')} ms, `}median ${erase.median_ms} ms (aim ${NEO4J_ERASE_AIM_MS} ms: ${erase.median_ms <= NEO4J_ERASE_AIM_MS ? 'met' : 'short'}).`,
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

/** What `npm run bench -- --moves` writes (bench/results/moves/<store>.json): the parts the table shows. */
export interface MovesReport {
  store: string;
  ids: number;
  migrate_to_neo4j?: { seconds: number; ids_per_s: number };
  round_1: MovesRound;
  round_2: MovesRound;
}

interface MovesRound {
  export_ids_per_s: number;
  export_with_history_ids_per_s: number;
  import_ids_per_s: number;
}

/** The Markdown table of exports, imports and migrate: one row per store, each rate as round 1 / round 2. */
export function movesTable(reports: readonly MovesReport[]): string {
  const n = (value: number) => value.toLocaleString('en-US');
  const rounds = (r: MovesReport, key: keyof MovesRound) => `${n(r.round_1[key])} / ${n(r.round_2[key])}`;
  const lines = [
    '| store | IDs | export, IDs/s | export with history, IDs/s | import of that export, IDs/s | migrate to Neo4j |',
    '|---|---:|---:|---:|---:|---:|',
    ...[...reports]
      .sort((a, b) => a.store.localeCompare(b.store))
      .map(
        (r) =>
          `| ${r.store} | ${n(r.ids)} | ${rounds(r, 'export_ids_per_s')} | ${rounds(r, 'export_with_history_ids_per_s')} | ${rounds(r, 'import_ids_per_s')} | ${r.migrate_to_neo4j ? `${r.migrate_to_neo4j.seconds} s, ${n(r.migrate_to_neo4j.ids_per_s)} IDs/s` : '—'} |`,
      ),
  ];
  return lines.join('\n');
}

/**
 * Everything `npm run bench:plot` prints from the results in `results` (bench/results), as docs/performance.md
 * pastes it: the scenario table of both full runs and the Neo4j floor table when both runs are there, the scale
 * table, then the table of exports, imports and migrate when there are --moves results. Throws when there are no
 * --scale results.
 */
export function printedTables(results: string): string {
  const run = (file: string) => JSON.parse(fs.readFileSync(path.join(results, file), 'utf8')) as RunReport;
  const out: string[] = [];
  if (fs.existsSync(path.join(results, 'latest.json')) && fs.existsSync(path.join(results, 'neo4j.json'))) {
    out.push(scenarioTable(run('latest.json'), run('neo4j.json')), neo4jFloorTable(run('neo4j.json')));
  }
  out.push(scaleTable(scaleReports(results)));
  const moves = path.join(results, 'moves');
  const movesFiles = fs.existsSync(moves) ? fs.readdirSync(moves).filter((f) => f.endsWith('.json')) : [];
  if (movesFiles.length > 0) out.push(movesTable(movesFiles.map((f) => JSON.parse(fs.readFileSync(path.join(moves, f), 'utf8')) as MovesReport)));
  return out.join('\n\n');
}

function scaleReports(results: string): ScaleReport[] {
  const dir = path.join(results, 'scale');
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.json')) : [];
  if (files.length === 0) throw new Error(`no results in ${path.relative(ROOT, dir)}: run npm run bench -- --scale N first`);
  return files.map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as ScaleReport);
}

function main(): void {
  const results = path.join(ROOT, 'bench', 'results');
  console.log(printedTables(results));
  const svg = path.join(results, 'scale.svg');
  fs.writeFileSync(svg, scaleSvg(scaleReports(results)));
  console.log(`\nwritten: ${path.relative(ROOT, svg)}`);
}

if (require.main === module) main();
