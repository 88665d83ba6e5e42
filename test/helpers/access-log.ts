// Waiting for a test app's access-log lines: each is written when its response finishes, which can be a moment after
// the client has read the answer, so a test that reads the log waits for the lines of the requests it made.
import type { TestApp } from './app';
import { parsedLogs } from './builders-auth';
import { waitFor } from './settling';

/** The same app, but it keeps the request id of every answer it gets, so that a test can wait for their lines. */
export function recordingRequestIds(app: TestApp): TestApp & { requestIds: string[] } {
  const requestIds: string[] = [];
  return {
    ...app,
    requestIds,
    call: async (method, url, options) => {
      const res = await app.call(method, url, options);
      const id = res.headers['x-request-id'];
      if (typeof id === 'string') requestIds.push(id);
      return res;
    },
  };
}

/** The line a request's log ends with: its access line, or the line of a refusal before the app saw it. */
const endsRequest = (message: unknown): boolean => message === 'request' || String(message).startsWith('request refused');

/** Resolves once every one of `requestIds` has the line its log ends with. */
export async function untilAccessLogged(app: TestApp, requestIds: readonly string[], timeoutMs = 10_000): Promise<void> {
  const missing = () => {
    const logged = new Set(parsedLogs(app).flatMap((l) => (endsRequest(l.message) ? [l.request_id] : [])));
    return requestIds.filter((id) => !logged.has(id));
  };
  await waitFor(
    () => `the access-log lines of ${missing().join(', ')}`,
    () => missing().length === 0,
    { timeoutMs },
  );
}
