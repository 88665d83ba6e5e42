// The two floors, each run as its own process like the service: `node floors.js express` serves a constant body
// through the service's own middleware stack; `node floors.js node-http` through bare node:http.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expressWithCommonMiddleware, memoryLimits } from '../src/app';
import { loadConfig } from '../src/config';
import { Metrics } from '../src/http/metrics';
import { createLogger, type Logger } from '../src/logger';
import type { Express } from 'express';

const CONSTANT = JSON.stringify({ results: [{ type: 'member_id', id: 'm-1' }], total: 1 });

/** The Express floor's app: the service's middleware stack, then a constant body at /floor (bench/ab.ts injects into it). */
export function expressFloorApp(logger: Logger): Express {
  const config = loadConfig({});
  const app = expressWithCommonMiddleware({
    logger,
    metrics: new Metrics(),
    bodyLimit: config.bodyLimit,
    bodyTimeoutMs: config.connections.bodyTimeoutMs,
    ...memoryLimits(config),
  });
  app.all('/floor', (_req, res) => {
    res.type('application/json').send(CONSTANT);
  });
  return app;
}

const expressFloor = (): http.Server => expressFloorApp(createLogger({ level: 'info', pretty: false })).listen(0, '127.0.0.1');

function nodeHttpFloor(): http.Server {
  return http
    .createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(CONSTANT);
      });
    })
    .listen(0, '127.0.0.1');
}

if (require.main === module) {
  const server = process.argv[2] === 'express' ? expressFloor() : nodeHttpFloor();
  server.on('listening', () => {
    process.stdout.write(`${JSON.stringify({ message: 'listening', port: (server.address() as AddressInfo).port })}\n`);
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}
