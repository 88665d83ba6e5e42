// `npm run bench -- --compare OLD.json`: how a run is put beside an earlier one (bench/compare.ts).
import { compareReports, comparisonTable, formatTable } from '../../bench/compare';

const scenario = (name: string, ratio: number, p99: number) => ({ name, rps: Math.round(ratio * 5000), p99_ms: p99, ratio_to_express_floor: ratio });

describe('bench --compare', () => {
  const before = {
    measured_at: '2026-11-24T14:17:00Z',
    scenarios: [scenario('search ONE', 0.5, 7), scenario('insert', 0.73, 7), scenario('delivery list', 0.9, 5)],
    load: { ids_per_s: 50_000 },
  };
  const after = {
    scenarios: [scenario('search ONE', 0.85, 6), scenario('insert', 0.365, 12), scenario('mixed: search ONE', 0.4, 14)],
    load: { ids_per_s: 100_000 },
  };

  test('when a scenario is in both runs, then its ratio change is after over before; one only now is new, one only before is listed last', () => {
    expect(compareReports(before, after)).toEqual([
      { name: 'search ONE', before: { ratio: 0.5, p99_ms: 7 }, after: { ratio: 0.85, p99_ms: 6 }, ratio_change: 1.7 },
      { name: 'insert', before: { ratio: 0.73, p99_ms: 7 }, after: { ratio: 0.365, p99_ms: 12 }, ratio_change: 0.5 },
      { name: 'mixed: search ONE', after: { ratio: 0.4, p99_ms: 14 } },
      { name: 'delivery list', before: { ratio: 0.9, p99_ms: 5 } },
    ]);
  });

  test('when the comparison is printed, then a regression reads as a change below 1 and the load rate comes last', () => {
    const rows = comparisonTable(before, after);
    expect(rows.map((r) => r[3])).toEqual(['change', '×1.70', '×0.50', 'new', 'gone', '×2.00']);
    const text = formatTable(rows).split('\n');
    expect(text[0]).toMatch(/^scenario\s+ratio before\s+ratio now\s+change\s+p99 ms before\s+p99 ms now$/);
    expect(text[2]).toMatch(/^insert\s+0\.73\s+0\.36\s+×0\.50\s+7\s+12$/);
  });

  test('when both runs have Neo4j floor ratios, then each scenario also shows their change in a last column; with one run lacking them, no column', () => {
    const neo4j = (name: string, ratio: number, floorRatio: number) => ({ ...scenario(name, ratio, 9), ratio_to_neo4j_floor: floorRatio });
    const old = { scenarios: [neo4j('search ONE', 0.1, 0.4), neo4j('insert', 0.08, 0.5)] };
    const now = { scenarios: [neo4j('search ONE', 0.1, 0.8), scenario('insert', 0.08, 9)] };
    expect(compareReports(old, now)[0]).toMatchObject({ name: 'search ONE', neo4j_floor_change: 2 });
    const rows = comparisonTable(old, now);
    expect(rows[0]?.[6]).toBe('change × neo4j floor');
    expect(rows.map((r) => r[6])).toEqual(['change × neo4j floor', '×2.00', '—']);
    expect(comparisonTable(before, now)[0]).toHaveLength(6);
  });

  test('when the earlier ratio is 0, then there is no change to give rather than an infinite one', () => {
    expect(compareReports({ scenarios: [scenario('x', 0, 1)] }, { scenarios: [scenario('x', 0.1, 1)] })[0]).toEqual({
      name: 'x',
      before: { ratio: 0, p99_ms: 1 },
      after: { ratio: 0.1, p99_ms: 1 },
    });
  });
});
