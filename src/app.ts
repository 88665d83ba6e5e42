// createApp wires the HTTP layer to the domain and a store. It never listens, so tests can drive it directly.
import express, { type Express, type RequestHandler } from 'express';
import helmet from 'helmet';
import { type AnswerMemoryLimits, boundAnswerMemory } from './http/answer-memory';
import { bytes } from './http/bytes';
import type { Config } from './config';
import { CustomerSettingsService } from './domain/customer-settings';
import { DeliveryService } from './domain/deliveries';
import { DeletedDeliverySweep } from './domain/retention';
import { ShowingService } from './domain/showing';
import { GovernanceService } from './domain/governance';
import { ChangeFeedService } from './domain/changes';
import { NodeService } from './domain/nodes';
import { SchemaService } from './domain/schemas';
import { SearchService } from './domain/search';
import { WhyService } from './domain/why';
import { GraphService } from './domain/graph';
import { TokenService } from './domain/tokens';
import { bearerCaller, freshTokenOnRefusal, identifyCaller, mapiCustomer } from './http/auth';
import {
  accessLog,
  bodyDeadline,
  bodyMemory,
  type BodyMemoryLimits,
  customerFromPath,
  errorHandler,
  JSON_TYPES,
  jsonBodiesOnly,
  notFound,
  notImporting,
  requestId,
  wellFormedHost,
} from './http/middleware';
import { Metrics } from './http/metrics';
import { buildRequestValidators, type Contract, loadContract } from './http/openapi';
import { rateLimiter } from './http/rate-limit';
import { adminRoutes } from './http/routes/admin';
import { benchFloorRoutes, type StoreFloor } from './http/routes/bench-floor';
import { bulkRoutes } from './http/routes/bulk';
import { deliveryRoutes } from './http/routes/delivery';
import { docsRoutes } from './http/routes/docs';
import { explorerRoutes } from './http/routes/explorer';
import { changeRoutes } from './http/routes/changes';
import { exportRoutes } from './http/routes/export';
import { importRoutes } from './http/routes/import';
import { ImportService } from './domain/import';
import { ExportService } from './domain/export';
import { governanceRoutes } from './http/routes/governance';
import { healthRoutes } from './http/routes/health';
import { nodeRoutes } from './http/routes/node';
import { searchRoutes } from './http/routes/search';
import { whyRoutes } from './http/routes/why';
import type { Logger } from './logger';
import type { StorePorts } from './domain/ports/store-ports';

export interface AppDependencies {
  store: StorePorts;
  /** Given only when the bench asks for its floor route (BENCH_FLOOR_ROUTE): POST /floor runs it; nothing is mounted otherwise. */
  benchFloor?: StoreFloor;
  config: Pick<
    Config,
    | 'bodyLimit'
    | 'bodyMemoryLimit'
    | 'responseMemoryLimit'
    | 'bulk'
    | 'searchMaxLimit'
    | 'traversalMaxNodes'
    | 'traversalMaxIds'
    | 'nodeMaxIds'
    | 'publicBaseUrl'
    | 'rateLimitRequests'
    | 'rateLimitWindowSeconds'
    | 'exportsMaxRunning'
    | 'connections'
    | 'changes'
  >;
  logger: Logger;
  adminToken: string;
  contract?: Contract;
  /** True once shutdown has begun: /readyz answers 503 from then on. */
  isShuttingDown?: () => boolean;
  /** Aborts when shutdown begins: calls waiting on the change feed answer at once. */
  shutdown?: AbortSignal;
  metrics?: Metrics;
  /** Deletes what deleted deliveries left; the service shares it with retention (src/main.ts). One of its own when absent. */
  deletedDeliveries?: DeletedDeliverySweep;
  /** Imports; the service shares it with the start-up that undoes unfinished ones (src/main.ts). One of its own when absent. */
  imports?: ImportService;
}

/**
 * The longest line an import reads: an export writes a key's whole history on one line, and a node of NODE_MAX_IDS IDs
 * on one, each longer than a request body (BODY_LIMIT) may be. One line at a time is held, by the administrator's
 * imports only.
 */
const IMPORT_LINE_BYTES = 16 * 1024 * 1024;

/** `first`, then `second` when `first` passed the request on: two handlers as one. */
const chained =
  (first: RequestHandler, second: RequestHandler): RequestHandler =>
  (req, res, next) =>
    first(req, res, (err?: unknown) => (err === undefined ? second(req, res, next) : next(err)));

/** Express with what every request goes through before its route; the benchmark's floor app uses it too. */
export function expressWithCommonMiddleware(options: {
  logger: Logger;
  metrics: Metrics;
  bodyLimit: string;
  bodyTimeoutMs: number;
  bodyMemory: BodyMemoryLimits;
  answerMemory: AnswerMemoryLimits;
}): Express {
  const app = express();
  boundAnswerMemory(app, options.answerMemory);
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('case sensitive routing', true);
  app.use(requestId());
  app.use(accessLog(options.logger));
  app.use(options.metrics.middleware());
  app.use(wellFormedHost());
  // No upgrade-insecure-requests: /docs must load its assets when served over plain HTTP (inside a cluster).
  app.use(helmet({ contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } } }));
  app.use(bodyDeadline(options.bodyTimeoutMs));
  app.use(jsonBodiesOnly());
  app.use(bodyMemory(options.bodyMemory));
  app.use(express.json({ limit: options.bodyLimit, strict: false, type: JSON_TYPES }));
  return app;
}

/** BODY_MEMORY_LIMIT and RESPONSE_MEMORY_LIMIT as the app applies them. */
export const memoryLimits = (
  config: Pick<Config, 'bodyLimit' | 'bodyMemoryLimit' | 'responseMemoryLimit' | 'connections'>,
): { bodyMemory: BodyMemoryLimits; answerMemory: AnswerMemoryLimits } => ({
  bodyMemory: { limitBytes: bytes(config.bodyMemoryLimit), bodyLimitBytes: bytes(config.bodyLimit), maxConnections: config.connections.maxConnections },
  answerMemory: { limitBytes: bytes(config.responseMemoryLimit), maxConnections: config.connections.maxConnections },
});

/** Under /v1, the delivery routes (which read X-SERVICE-MAPI-TOKEN); every other route reads Authorization. */
const DELIVERY_PATH = /^\/delivery(\/|$)/;

export function createApp(deps: AppDependencies): Express {
  const { config, logger } = deps;
  const contract = deps.contract ?? loadContract();
  const validators = buildRequestValidators(contract);
  const metrics = deps.metrics ?? new Metrics();
  const store = metrics.instrument(deps.store);
  const tokens = new TokenService(store, deps.adminToken);
  const bearer = bearerCaller(tokens);

  const app = expressWithCommonMiddleware({
    logger,
    metrics,
    bodyLimit: config.bodyLimit,
    bodyTimeoutMs: config.connections.bodyTimeoutMs,
    ...memoryLimits(config),
  });

  // First, so that it pays for no other router: the bench compares it with its Express floor.
  if (deps.benchFloor) app.use(benchFloorRoutes(metrics.instrument(deps.benchFloor)));
  const imports = deps.imports ?? new ImportService(store, { nodeMaxIds: config.nodeMaxIds });
  app.use('/v1/:customer_id', customerFromPath(), notImporting(imports));
  const limiter = rateLimiter(config);
  // The limiter keys on the verified caller, so it identifies the caller first, from the header the route reads.
  if (limiter)
    app.use(
      '/v1',
      identifyCaller(tokens, (req) => (DELIVERY_PATH.test(req.path) ? 'mapi' : 'bearer')),
      limiter,
    );
  // Search first: a request tries each router's routes in turn until one matches, and search ONE is the call apps
  // make most (two `npm run bench:ab` runs: 12 and 20 µs less CPU of ~330 a request). No delivery route is a POST to
  // /v1/{x}/_search, so the order changes no answer; health, metrics and docs live outside /v1.
  app.use(searchRoutes(validators, bearer, new SearchService(store, config)));
  app.use(whyRoutes(validators, bearer, new WhyService(store, config)));
  // Before the other customer routes: /v1/delivery/… is not a customer called "delivery".
  const showing = new ShowingService(store, config);
  app.use(
    deliveryRoutes(
      validators,
      {
        mapi: chained(mapiCustomer(tokens), notImporting(imports)),
        confirmed: chained(mapiCustomer(tokens, { confirmed: true }), notImporting(imports)),
        onRefusal: freshTokenOnRefusal(tokens),
      },
      bearer,
      { deliveries: new DeliveryService(store, deps.deletedDeliveries ?? new DeletedDeliverySweep(store, logger)), showing },
      config.publicBaseUrl,
    ),
  );
  app.use(healthRoutes(store, deps.isShuttingDown ?? (() => false)));
  app.get('/metrics', async (_req, res) => {
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
  app.use(docsRoutes(contract));
  app.use(explorerRoutes(validators, bearer, new GraphService(store, config)));
  const nodes = new NodeService(store, config);
  app.use(nodeRoutes(validators, bearer, nodes));
  app.use(governanceRoutes(validators, bearer, new GovernanceService(store, config), config.publicBaseUrl));
  const changes = new ChangeFeedService(store, { maxWaiting: config.changes.maxWaiting }, deps.shutdown);
  metrics.changesWaiting(() => changes.waitingCalls);
  app.use(
    changeRoutes(validators, bearer, changes, {
      durationMs: config.changes.streamSeconds * 1000,
      keepAliveMs: config.changes.keepAliveSeconds * 1000,
    }),
  );
  app.use(exportRoutes(validators, bearer, new ExportService(store, config.exportsMaxRunning)));
  app.use(importRoutes(validators, bearer, imports, contract, { maxLineBytes: Math.max(bytes(config.bodyLimit), IMPORT_LINE_BYTES) }));
  app.use(
    bulkRoutes(validators, bearer, nodes, logger, {
      maxLineBytes: bytes(config.bodyLimit),
      batchBytes: bytes(config.bulk.batchLimit),
      memoryBytes: bytes(config.bulk.memoryLimit),
      lineTimeoutMs: config.bulk.lineTimeoutMs,
      lineMinBytes: config.bulk.lineMinBytes,
      lineRateWindowMs: config.bulk.lineRateWindowMs,
    }),
  );
  app.use(adminRoutes(validators, bearer, new SchemaService(store), tokens, new CustomerSettingsService(store)));

  app.use(notFound());
  app.use(errorHandler(logger));
  return app;
}
