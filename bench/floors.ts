// The two floors, each run as its own process like the service: `node floors.js express` serves a constant body
// through the service's own middleware stack; `node floors.js node-http` through bare node:http.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import helmet from 'helmet';
import { Metrics } from '../src/http/metrics';
import { accessLog, JSON_TYPES, jsonBodiesOnly, requestId } from '../src/http/middleware';
import { createLogger } from '../src/logger';

const CONSTANT = JSON.stringify({ results: [{ type: 'member_id', id: 'm-1' }], total: 1 });

function expressFloor(): http.Server {
  const logger = createLogger({ level: 'info', pretty: false });
  const metrics = new Metrics();
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestId());
  app.use(accessLog(logger));
  app.use(metrics.middleware());
  app.use(helmet());
  app.use(jsonBodiesOnly());
  app.use(express.json({ limit: '1mb', strict: false, type: JSON_TYPES }));
  app.all('/floor', (_req, res) => {
    res.type('application/json').send(CONSTANT);
  });
  return app.listen(0, '127.0.0.1');
}

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

const server = process.argv[2] === 'express' ? expressFloor() : nodeHttpFloor();
server.on('listening', () => {
  process.stdout.write(`${JSON.stringify({ message: 'listening', port: (server.address() as AddressInfo).port })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
