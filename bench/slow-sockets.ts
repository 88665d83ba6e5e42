// How long a new client waits for /healthz while slow sockets hold the connection cap. Starts the built
// service (`dist/main.js`, SQLite) with the default MAX_CONNECTIONS, opens SOCKETS sockets that each send part of
// a request line and nothing more, then times fresh-connection /healthz requests in three phases: the sockets
// only held; an attacker opening 100 more every second; and a flood of new sockets, 20
// connecting at any time, as fast as the machine allows. Prints one JSON object; writes results/slow-sockets.json.
//   npx tsc -p tsconfig.build.json && npx tsc -p bench/tsconfig.json && node dist-bench/bench/slow-sockets.js [SOCKETS]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';

const ROOT = path.resolve(__dirname, '../..');
const SOCKETS = Number(process.argv[2] ?? 3000);
const PROBES = 20;
const PARTIAL_LINE = 'GET /healthz HT';

async function startService(): Promise<{ port: number; stop: () => void }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'idlink-slow-sockets-'));
  const env = {
    PATH: process.env.PATH ?? '',
    PORT: '0',
    HOST: '127.0.0.1',
    SQLITE_PATH: path.join(dir, 'idlink.sqlite'),
    LOG_LEVEL: 'info',
    ADMIN_TOKEN: 'slow-sockets-admin-token-0123456789',
  };
  const child = spawn(process.execPath, [path.join(ROOT, 'dist/main.js')], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      try {
        const entry = JSON.parse(line) as { message?: string; port?: number };
        if (entry.message === 'listening' && entry.port) resolve(entry.port);
      } catch {
        // not a JSON line
      }
    });
    child.once('exit', () => reject(new Error('the service exited before listening')));
  });
  return {
    port,
    stop: () => {
      child.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The attacker: slow sockets, opened by `fill`, then more by the mode `reopen` sets. */
class Attacker {
  private open = 0;
  private reopening: 'none' | 'limited' | 'flood' = 'none';
  private ticker: NodeJS.Timeout | undefined;
  closed = 0;

  constructor(private readonly port: number) {}

  async fill(count: number): Promise<void> {
    for (let started = 0; started < count; started += 100) {
      await Promise.all(Array.from({ length: Math.min(100, count - started) }, () => this.connect()));
    }
  }

  reopen(mode: 'none' | 'limited' | 'flood'): void {
    this.reopening = mode;
    clearInterval(this.ticker);
    if (mode === 'flood') for (let i = 0; i < 20; i += 1) void this.connect();
    // 100 a second: 10 every 100 ms.
    if (mode === 'limited') this.ticker = setInterval(() => Array.from({ length: 10 }, () => this.connect()), 100);
  }

  stop(): void {
    this.reopen('none');
  }

  get held(): number {
    return this.open;
  }

  private connect(): Promise<void> {
    return new Promise((resolve) => {
      const socket = net.connect(this.port, '127.0.0.1');
      let connected = false;
      socket.on('error', () => undefined);
      socket.once('connect', () => {
        connected = true;
        this.open += 1;
        socket.write(PARTIAL_LINE);
        resolve();
        if (this.reopening === 'flood') void this.connect();
      });
      socket.once('close', () => {
        if (connected) this.open -= 1;
        else resolve();
        this.closed += 1;
      });
    });
  }
}

/** One /healthz on a new connection: milliseconds, or the error's code. */
function probe(port: number): Promise<number | string> {
  const started = process.hrtime.bigint();
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/healthz', agent: false, timeout: 15000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200 ? Number(process.hrtime.bigint() - started) / 1e6 : `status ${res.statusCode}`));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
  });
}

async function phase(port: number, attacker: Attacker): Promise<Record<string, unknown>> {
  const times: number[] = [];
  const failures: string[] = [];
  for (let i = 0; i < PROBES; i += 1) {
    const result = await probe(port);
    if (typeof result === 'number') times.push(result);
    else failures.push(result);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => (times.length ? Number(times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(1)) : null);
  return { answered: times.length, failures, p50_ms: at(0.5), max_ms: at(1), attacker_sockets_open: attacker.held };
}

async function main(): Promise<void> {
  const service = await startService();
  const attacker = new Attacker(service.port);
  try {
    await attacker.fill(SOCKETS);
    const closedWhileFilling = attacker.closed;
    const held = await phase(service.port, attacker);
    attacker.reopen('limited');
    const limited = await phase(service.port, attacker);
    attacker.reopen('flood');
    const before = attacker.closed;
    const startedAt = Date.now();
    const flood = await phase(service.port, attacker);
    const churnPerSecond = Math.round(((attacker.closed - before) * 1000) / (Date.now() - startedAt));
    attacker.stop();
    const result = {
      sockets: SOCKETS,
      closed_while_filling: closedWhileFilling,
      held,
      new_100_per_s: limited,
      flood: { ...flood, attacker_sockets_closed_per_s: churnPerSecond },
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    fs.writeFileSync(path.join(ROOT, 'bench/results/slow-sockets.json'), `${JSON.stringify(result, null, 2)}\n`);
  } finally {
    service.stop();
  }
  process.exit(0);
}

void main();
