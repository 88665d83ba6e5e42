// `npm run migrate` as the tests run it: dist/migrate.js (built by jest's globalSetup) in a process of its own.
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';

const MIGRATE = path.resolve(__dirname, '../../dist/migrate.js');

export interface MigrateRun {
  child: ChildProcess;
  /** Its exit code (null when a signal ended it) and what it printed, once it has ended. */
  ended: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/** Starts dist/migrate.js with `args` and `env` (and PATH only). */
export function startMigrate(args: string[], env: Record<string, string> = {}): MigrateRun {
  const child = spawn(process.execPath, [MIGRATE, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return { child, ended: new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr }))) };
}

/** Runs dist/migrate.js with `args` and `env` (and PATH only); its exit code and what it printed. */
export const runMigrate = (args: string[], env: Record<string, string> = {}) => startMigrate(args, env).ended;
