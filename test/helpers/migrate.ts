// `npm run migrate` as the tests run it: dist/migrate.js (built by jest's globalSetup) in a process of its own.
import { spawn } from 'node:child_process';
import path from 'node:path';

const MIGRATE = path.resolve(__dirname, '../../dist/migrate.js');

/** Runs dist/migrate.js with `args` and `env` (and PATH only); its exit code and what it printed. */
export function runMigrate(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MIGRATE, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
