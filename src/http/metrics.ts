// Prometheus metrics. Labels are route templates, methods, statuses and store operation names only:
// never ID values, customer ids, tokens or anything else a client sends.
import type { RequestHandler } from 'express';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { CONNECTION_DROP_REASONS, type ConnectionDropReason } from './connection-cap';
import { routeLabel } from './route-label';

export class Metrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'idlink_http_requests_total',
    help: 'HTTP requests by route template, method and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: 'idlink_http_request_duration_seconds',
    help: 'HTTP request latency by route template, method and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
  private readonly storeLatency = new Histogram({
    name: 'idlink_store_operation_duration_seconds',
    help: 'Store operation latency by operation and outcome.',
    labelNames: ['operation', 'outcome'] as const,
    buckets: [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1],
    registers: [this.registry],
  });
  private readonly traversal = new Histogram({
    name: 'idlink_search_traversal_nodes',
    help: 'Nodes one search visited.',
    buckets: [1, 2, 5, 10, 50, 100, 500, 1000, 5000, 10000, 50000],
    registers: [this.registry],
  });

  private readonly droppedConnections = new Counter({
    name: 'idlink_connections_dropped_total',
    help: 'Client connections closed at MAX_CONNECTIONS, by reason: oldest_waiting (one still sending its request, or idle, the slowest first, to take a new one), unread_answer (one whose answer its client was not reading, when no connection was still sending), all_busy (a new one, as every open one had a request being handled or an answer being read).',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  /** Read when the metrics are: how many _changes calls wait now (set by changesWaiting). */
  private waitingChanges: () => number = () => 0;

  constructor() {
    const waitingNow = () => this.waitingChanges();
    new Gauge({
      name: 'idlink_changes_waiting',
      help: 'Calls of _changes waiting for a change now, long polls and event streams (at most CHANGES_MAX_WAITING).',
      registers: [this.registry],
      collect() {
        this.set(waitingNow());
      },
    });
    collectDefaultMetrics({ register: this.registry, prefix: 'idlink_' });
    // Both reasons show from the start, at 0.
    for (const reason of CONNECTION_DROP_REASONS) this.droppedConnections.inc({ reason }, 0);
  }

  /** Where the gauge of waiting _changes calls reads its value. */
  changesWaiting(read: () => number): void {
    this.waitingChanges = read;
  }

  /** Counts a connection closed at the connection cap (src/http/connection-cap.ts). */
  connectionDropped(reason: ConnectionDropReason): void {
    this.droppedConnections.inc({ reason });
  }

  /** Counts and times every request once it has been answered. */
  middleware(): RequestHandler {
    return (req, res, next) => {
      const stop = this.latency.startTimer();
      res.on('finish', () => {
        const labels = { method: req.method, route: routeLabel(req, res), status: String(res.statusCode) };
        this.requests.inc(labels);
        stop(labels);
      });
      next();
    };
  }

  /**
   * The same store (any port, or all of them), with every call timed under its method's name and search traversal
   * sizes recorded.
   */
  instrument<S extends object>(store: S): S {
    // One wrapper per method, made at its first call: not a new closure on every call of every request.
    const wrappers = new Map<string, (...args: unknown[]) => Promise<unknown>>();
    return new Proxy(store, {
      get: (target, property, receiver) => {
        const value: unknown = Reflect.get(target, property, receiver);
        if (typeof value !== 'function' || typeof property !== 'string') return value;
        const made = wrappers.get(property);
        if (made) return made;
        const operation = property;
        const wrapper = async (...args: unknown[]) => {
          const stop = this.storeLatency.startTimer({ operation });
          try {
            // Looked up at the call, so that a method replaced since (a test's spy) is the one called.
            const result: unknown = await (Reflect.get(target, property) as (...a: unknown[]) => unknown).apply(target, args);
            stop({ outcome: 'ok' });
            if (operation === 'search') this.traversal.observe((result as { visitedNodes: number }).visitedNodes);
            return result;
          } catch (e) {
            stop({ outcome: 'error' });
            throw e;
          }
        };
        wrappers.set(property, wrapper);
        return wrapper;
      },
    });
  }
}
