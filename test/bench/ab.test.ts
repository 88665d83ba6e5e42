// `npm run bench:ab`: two builds of the service and the floor, side by side in one process (bench/ab.ts). Run here
// small, on the dist/ the test setup builds, so that the tool keeps working as the app it loads changes.
import path from 'node:path';
import { abLines, runAb } from '../../bench/ab';

describe('bench:ab', () => {
  test('when two builds are compared on a small graph, then every round of the floor and of each build is measured, each search answered 200, and the report names both builds', async () => {
    const dist = path.resolve(__dirname, '..', '..', 'dist');
    const plan = { distA: dist, distB: dist, ids: 20_000, rounds: 2, requests: 40 };
    const report = await runAb(plan);
    expect(report.heldIds).toBeGreaterThan(15_000);
    for (const rounds of [report.floor, report.a, report.b]) {
      expect(rounds).toHaveLength(2);
      for (const us of rounds) expect(us).toBeGreaterThan(0);
    }
    const lines = abLines(plan, report);
    expect(lines[0]).toBe(`search ONE, ${report.heldIds} IDs; A = ${dist}, B = ${dist}; 2 rounds of 40 requests each`);
    expect(lines[4]).toMatch(/^× floor: A \d+\.\d{3}, B \d+\.\d{3}; B − A: -?\d+\.\d µs/);
  }, 60_000);
});
