// The built server (`node dist/main.js`, compiled by jest's globalSetup) as a child process, for the tests that
// need a real process: crashes, signals, start-up. Call `installCleanup()` once per test file.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { tempDir } from './app';
import { waitFor } from './settling';

export const MAIN = path.resolve(__dirname, '../../dist/main.js');

/** The Node flags `npm start` gives the server (what users run), so the tests' process is bounded the same way. */
export const START_FLAGS: string[] = (() => {
  const pkg = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8')) as { scripts: { start: string } };
  const words = pkg.scripts.start.split(/\s+/);
  return words.slice(words.indexOf('node') + 1, words.indexOf('dist/main.js'));
})();

export interface ServerProcess {
  child: ChildProcess;
  /** Every stdout line so far (JSON lines, since stdout is not a terminal). */
  lines: string[];
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const running: ServerProcess[] = [];
const dirs: string[] = [];

/** How to start the server: `node dist/main.js` unless a test says otherwise (`npm start`, in its own process group). */
export interface ServerCommand {
  file: string;
  args: string[];
  detached?: boolean;
}

export function spawnServer(
  env: Record<string, string>,
  cwd: string,
  command: ServerCommand = { file: process.execPath, args: [...START_FLAGS, MAIN] },
): ServerProcess {
  const child = spawn(command.file, command.args, {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: command.detached ?? false,
  });
  const lines: string[] = [];
  let stderr = '';
  readline.createInterface({ input: child.stdout }).on('line', (line) => lines.push(line));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const server = { child, lines, stderr: () => stderr, exited };
  running.push(server);
  return server;
}

/** The JSON log entries so far. */
export const logEntries = (server: ServerProcess): Array<Record<string, unknown>> =>
  server.lines.flatMap((l) => {
    try {
      return [JSON.parse(l) as Record<string, unknown>];
    } catch {
      return [];
    }
  });

export const logMessages = (server: ServerProcess): string[] => logEntries(server).map((entry) => String(entry.message));

/** Waits until the server has logged `message` and returns that entry; fails if it exits or time runs out first. */
export async function logged(server: ServerProcess, message: string, timeoutMs = 15000): Promise<Record<string, unknown>> {
  const seen = () => `a '${message}' log line; stdout: ${server.lines.join('\n')}; stderr: ${server.stderr()}`;
  return waitFor(
    seen,
    () => {
      const entry = logEntries(server).find((e) => e.message === message);
      if (entry) return entry;
      if (server.child.exitCode !== null) throw new Error(`the server exited before ${seen()}`);
      return undefined;
    },
    { timeoutMs, everyMs: 20 },
  );
}

export async function startServer(
  env: Record<string, string>,
  cwd: string,
  command?: ServerCommand,
): Promise<{ server: ServerProcess; port: number; base: string }> {
  const server = spawnServer(env, cwd, command);
  const port = (await logged(server, 'listening')).port as number;
  return { server, port, base: `http://127.0.0.1:${port}` };
}

/** A temporary folder removed after the file's tests. */
export function freshDir(prefix: string): string {
  const dir = tempDir(prefix);
  dirs.push(dir);
  return dir;
}

/** A JSON request with an optional bearer token; the answer's status and parsed body. */
export async function send(base: string, method: string, url: string, token?: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as unknown) : undefined };
}

/** Kills what a test left running (after each test) and removes the folders (after the file). */
export function installCleanup(): void {
  afterEach(async () => {
    for (const server of running.splice(0)) {
      if (server.child.exitCode === null && server.child.signalCode === null) {
        server.child.kill('SIGKILL');
        await server.exited;
      }
    }
  });
  afterAll(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });
}
