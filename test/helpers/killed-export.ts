// An export whose service process is killed while it streams: the client reads the first chunk, stops reading (so
// the export waits on it mid-stream), and the process is killed there. What the client got is what a consumer of a
// cut export gets.
import http from 'node:http';
import type { ServerProcess } from './server-process';

/** GETs `url` with `token`, kills `server` after the first chunk of the answer, and resolves with the body it got. */
export function exportKilledMidStream(url: string, token: string, server: ServerProcess): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let answered = false;
    const request = http.get(url, { headers: { Authorization: `Bearer ${token}` } }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      // The connection the kill cuts: the body ends there (some Node versions say so as an error, some do not).
      res.on('error', () => undefined);
      res.once('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        if (chunks.length > 1) return;
        // Mid-stream: the client reads no more, so the server waits on it, and is killed there.
        res.pause();
        server.child.kill('SIGKILL');
        void server.exited.then(() => res.resume());
      });
    });
    request.on('error', (e) => {
      if (!answered) reject(e);
    });
  });
}
