// `npm run bench -- --compare OLD.json`: each scenario of this run beside the same scenario of an earlier result
// file, as the change of its ratio to the Express floor (each run's own floor, so machines and noise cancel out
// as far as they can) and of its p99. A scenario in only one of the two files is listed as such.

/** What compare reads of a results file (bench/results/*.json): the fields every version of the file has. */
export interface ComparedReport {
  measured_at?: string;
  scenarios: Array<{ name: string; rps: number; p99_ms: number; ratio_to_express_floor: number; ratio_to_neo4j_floor?: number }>;
  load?: { ids_per_s: number };
}

export interface ScenarioChange {
  name: string;
  before?: { ratio: number; p99_ms: number };
  after?: { ratio: number; p99_ms: number };
  /** after / before of the ratio to the Express floor; below 1 is slower. */
  ratio_change?: number;
  /** The same for the ratio to the Neo4j floor, when both runs have it. */
  neo4j_floor_change?: number;
}

export function compareReports(before: ComparedReport, after: ComparedReport): ScenarioChange[] {
  const earlier = new Map(before.scenarios.map((s) => [s.name, s]));
  const changes: ScenarioChange[] = after.scenarios.map((s) => {
    const old = earlier.get(s.name);
    earlier.delete(s.name);
    const neo4jBefore = old?.ratio_to_neo4j_floor;
    return {
      name: s.name,
      ...(old ? { before: { ratio: old.ratio_to_express_floor, p99_ms: old.p99_ms } } : {}),
      after: { ratio: s.ratio_to_express_floor, p99_ms: s.p99_ms },
      ...(old && old.ratio_to_express_floor > 0 ? { ratio_change: Number((s.ratio_to_express_floor / old.ratio_to_express_floor).toFixed(2)) } : {}),
      ...(neo4jBefore && s.ratio_to_neo4j_floor !== undefined ? { neo4j_floor_change: Number((s.ratio_to_neo4j_floor / neo4jBefore).toFixed(2)) } : {}),
    };
  });
  // Scenarios this run no longer has, last.
  for (const old of earlier.values()) changes.push({ name: old.name, before: { ratio: old.ratio_to_express_floor, p99_ms: old.p99_ms } });
  return changes;
}

/**
 * The comparison as table rows, first the header; load rate as the last row when both files have it. When both
 * files have Neo4j floor ratios (STORE=neo4j runs), a last column gives each scenario's change of that ratio too.
 */
export function comparisonTable(before: ComparedReport, after: ComparedReport): string[][] {
  const hasNeo4jFloor = (r: ComparedReport) => r.scenarios.some((s) => s.ratio_to_neo4j_floor !== undefined);
  const neo4j = hasNeo4jFloor(before) && hasNeo4jFloor(after);
  const rows = [['scenario', 'ratio before', 'ratio now', 'change', 'p99 ms before', 'p99 ms now', ...(neo4j ? ['change × neo4j floor'] : [])]];
  for (const c of compareReports(before, after)) {
    rows.push([
      c.name,
      c.before ? c.before.ratio.toFixed(2) : '—',
      c.after ? c.after.ratio.toFixed(2) : '—',
      c.ratio_change === undefined ? (c.after ? 'new' : 'gone') : `×${c.ratio_change.toFixed(2)}`,
      c.before ? String(c.before.p99_ms) : '—',
      c.after ? String(c.after.p99_ms) : '—',
      ...(neo4j ? [c.neo4j_floor_change === undefined ? '—' : `×${c.neo4j_floor_change.toFixed(2)}`] : []),
    ]);
  }
  if (before.load && after.load) {
    rows.push([
      'load (IDs/s)',
      String(before.load.ids_per_s),
      String(after.load.ids_per_s),
      `×${(after.load.ids_per_s / before.load.ids_per_s).toFixed(2)}`,
      '',
      '',
      ...(neo4j ? [''] : []),
    ]);
  }
  return rows;
}

/** Rows aligned as run.ts prints its own table: the first column left, the others right. */
export function formatTable(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length))) ?? [];
  return rows.map((row) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  ')).join('\n');
}
