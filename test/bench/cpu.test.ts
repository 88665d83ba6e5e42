// The bench's CPU readings (bench/cpu.ts), against a process that burns a known amount of CPU and whose name holds
// the parentheses and spaces that /proc/PID/stat does not escape.
import { spawn } from 'node:child_process';
import { cpuMs, cpuOf, cpuPer } from '../../bench/cpu';

const BURN_MS = 600;

test(`when a process named with parentheses and spaces has burned ${BURN_MS} ms of CPU, then its reading is that, give or take its clock ticks`, async () => {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `process.title = 'a) b (c'; const t = process.cpuUsage(); while ((process.cpuUsage(t).user + process.cpuUsage(t).system) / 1000 < ${BURN_MS}); console.log('burned'); setInterval(() => {}, 1000);`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  try {
    const before = cpuMs(child.pid as number);
    await new Promise<void>((resolve) => child.stdout.on('data', (d: Buffer) => (d.toString().includes('burned') ? resolve() : undefined)));
    const after = cpuMs(child.pid as number);
    // Node's own start-up adds some CPU before and after the burn is counted; /proc counts in 10 ms ticks.
    expect(after - before).toBeGreaterThanOrEqual(BURN_MS - 60);
    expect(after - before).toBeLessThan(BURN_MS * 3);
  } finally {
    child.kill();
  }
}, 30_000);

test('when readings are divided among units, then each process gets its own share', () => {
  const before = cpuOf(new Map([['bench', process.pid]]));
  expect(Object.keys(before)).toEqual(['bench']);
  expect(cpuPer({ service: 100, neo4j: 50 }, { service: 400, neo4j: 650 }, 200)).toEqual({ service: 1.5, neo4j: 3 });
});
