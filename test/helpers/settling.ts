// For tests of code that queues calls: letting promise callbacks run, and what each caller has heard so far.

/** Lets promise callbacks run. */
export const settle = () => new Promise((resolve) => setImmediate(resolve));

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
