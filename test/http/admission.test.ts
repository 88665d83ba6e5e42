// ByteBudget (BULK_MEMORY_LIMIT, BODY_MEMORY_LIMIT): what fits, what waits, and that the semaphore under it is
// counted in few units, since async-mutex walks every free unit on each release.
import { Semaphore } from 'async-mutex';
import { BUDGET_UNITS, ByteBudget } from '../../src/http/admission';

const MB = 1024 * 1024;

/** Whether `p` has settled once pending callbacks ran (no clock involved). */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('ByteBudget', () => {
  afterEach(() => jest.restoreAllMocks());

  test('when a budget of many megabytes is taken, then its semaphore counts at most BUDGET_UNITS units', async () => {
    const acquire = jest.spyOn(Semaphore.prototype, 'acquire');
    const budget = new ByteBudget('BULK_MEMORY_LIMIT', 32 * MB, 2 * MB);
    const release = await budget.take(2 * MB);
    release?.();
    const weights = acquire.mock.calls.map(([weight]) => weight ?? 1);
    expect(weights.length).toBeGreaterThan(0);
    for (const weight of weights) expect(weight).toBeLessThanOrEqual(BUDGET_UNITS);
  });

  test('when shares fill the budget, then the next waits until one is released, and the largest share always fits', async () => {
    const budget = new ByteBudget('BODY_MEMORY_LIMIT', 10 * MB, 4 * MB);
    const first = await budget.take(4 * MB);
    const second = await budget.take(4 * MB);
    expect(first).toBeDefined();
    expect(second).toBeDefined();
    const third = budget.take(4 * MB);
    expect(await settled(third)).toBe(false);
    first?.();
    expect(await settled(third)).toBe(true);
    (await third)?.();
    second?.();

    // A budget smaller than one share is raised to it.
    const small = new ByteBudget('BODY_MEMORY_LIMIT', 1000, 3 * MB);
    const whole = await small.take(3 * MB);
    expect(whole).toBeDefined();
    whole?.();
  });

  test('when shares are a few bytes over a unit, then they are counted by whole units, never under', async () => {
    const budget = new ByteBudget('BODY_MEMORY_LIMIT', BUDGET_UNITS * 10, 1);
    // Units of 10 bytes: all but one unit taken, a share of 11 bytes needs two and waits; one of 10 fits.
    const most = await budget.take(BUDGET_UNITS * 10 - 10);
    const over = budget.take(11);
    expect(await settled(over)).toBe(false);
    most?.();
    expect(await settled(over)).toBe(true);
    (await over)?.();
  });
});
