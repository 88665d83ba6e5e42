// Waiting in tests: for promise callbacks to run, for a condition to hold, and what each queued caller has heard.

/** Lets promise callbacks run. */
export const settle = () => new Promise((resolve) => setImmediate(resolve));

export interface WaitOptions {
  /** How long the condition may take before the wait fails (a busy two-core machine needs room). */
  timeoutMs?: number;
  /** How often the condition is asked. */
  everyMs?: number;
}

/**
 * Asks `probe` until it answers something other than `undefined` or `false`, and resolves with that answer. Fails
 * after `timeoutMs` with `what` (a function is called then, to say what it saw). A probe that throws ends the wait
 * with its error: that is how a probe says the condition can no longer come (the process exited, say).
 */
export async function waitFor<T>(
  what: string | (() => string),
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  { timeoutMs = 10_000, everyMs = 10 }: WaitOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await probe();
    if (answer !== undefined && answer !== false) return answer;
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${typeof what === 'string' ? what : what()}`);
    // The one place tests wait for a set time: between two looks at a condition.
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** What each caller heard: 'ok', or its error's message; undefined while it waits. */
export function heardOf(calls: Record<string, Promise<unknown>>): Record<string, string | undefined> {
  const heard: Record<string, string | undefined> = {};
  for (const [name, call] of Object.entries(calls)) {
    heard[name] = undefined;
    call.then(
      () => (heard[name] = 'ok'),
      (e: unknown) => (heard[name] = e instanceof Error ? e.message : String(e)),
    );
  }
  return heard;
}
