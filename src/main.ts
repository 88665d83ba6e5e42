// config → logger → store → serve (src/http/server.ts), and a graceful stop on SIGTERM/SIGINT.
import type { AddressInfo } from 'node:net';
import { resolveAdminToken } from './admin-token';
import { createApp } from './app';
import { ConfigError, loadConfig } from './config';
import { Metrics } from './http/metrics';
import { serve } from './http/server';
import { DeletedDeliverySweep, HistoryRetention } from './domain/retention';
import { ImportService } from './domain/import';

import { createLogger } from './logger';
import { openStore } from './store/open';

/** How often a Neo4j service reads which customers other processes are importing into: one statement. */
const IMPORT_MARKS_EVERY_MS = 1_000;

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  const logger = createLogger({ level: config.logLevel });
  const admin = resolveAdminToken(config);
  if (admin.file) {
    logger.info(admin.generated ? 'generated the administrator token' : 'using the administrator token from its file', { file: admin.file });
  }
  // With STORE=neo4j the store connects in the background: the service listens (readyz 503) until Neo4j answers.
  const { store, started } = openStore(config, logger);
  let shuttingDown = false;
  const deletedDeliveries = new DeletedDeliverySweep(store, logger);
  const retention = new HistoryRetention(store, config.historyRetentionDays, logger, Date.now, deletedDeliveries);
  const imports = new ImportService(store, { nodeMaxIds: config.nodeMaxIds });
  // Imports a stopped process left unfinished are undone: on SQLite, which only this process writes, all at start; on
  // Neo4j, which other processes may be importing into, those whose process has not said they are alive (it does every
  // twelfth of it) for NEO4J_IMPORT_STALE_MS, at start and every quarter of that.
  const abandonImports = (idleMs: number) =>
    imports
      .abandonUnfinished(idleMs)
      .then((customers) => {
        if (customers.length > 0) logger.warn('undid imports a stopped process left unfinished', { customers: customers.length });
      })
      .catch((e: unknown) => logger.warn('undoing unfinished imports failed; trying again later', { error: e instanceof Error ? e.message : String(e) }));
  let importWatch: NodeJS.Timeout | undefined;
  // On Neo4j, which other processes may be importing into, the customers marked as importing are read every
  // IMPORT_MARKS_EVERY_MS, so that this process too answers their requests import_in_progress. A read that fails is
  // done again at the next (the store is unreachable: the requests fail anyway).
  let importMarks: NodeJS.Timeout | undefined;
  void started.then(() => {
    if (shuttingDown) return;
    logger.info('store ready', { store: config.store });
    const staleMs = config.neo4j.importStaleMs;
    // Retention waits for imports under way (it leaves their entries alone): undo the ones left first.
    void abandonImports(config.store === 'sqlite' ? 0 : staleMs).then(() => {
      if (!shuttingDown) retention.start();
    });
    if (config.store === 'neo4j') {
      importWatch = setInterval(() => void abandonImports(staleMs), staleMs / 4).unref();
      importMarks = setInterval(() => void imports.readMarks().catch(() => undefined), IMPORT_MARKS_EVERY_MS).unref();
    }
  });
  const metrics = new Metrics();
  const stopping = new AbortController();
  const app = createApp({
    store,
    ...(config.benchFloorRoute ? { benchFloor: store } : {}),
    config,
    logger,
    adminToken: admin.token,
    isShuttingDown: () => shuttingDown,
    shutdown: stopping.signal,
    deletedDeliveries,
    imports,
    metrics,
  });
  const server = serve(app, logger, config.port, config.host, config.connections, (reason) => metrics.connectionDropped(reason));
  const cannotListen = (e: Error) => {
    // The port is taken or not ours to use.
    process.stderr.write(`failed to start: cannot listen on ${config.host}:${config.port}: ${e.message}\n`);
    process.exit(1);
  };
  server.once('error', cannotListen);
  server.once('listening', () => {
    server.off('error', cannotListen);
    const { port } = server.address() as AddressInfo;
    logger.info('listening', { port, host: config.host, store: config.store });
  });

  const stop = (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    retention.stop();
    clearInterval(importWatch);
    clearInterval(importMarks);
    // Calls waiting on the change feed answer now, and streams end: nothing else would end them before the deadline.
    stopping.abort();
    logger.info('shutting down', { signal });
    const forced = setTimeout(() => {
      logger.warn('requests still in flight at the shutdown deadline; closing them');
      server.closeAllConnections();
    }, config.shutdownTimeoutMs);
    forced.unref();
    server.close(() => {
      store
        .close()
        .catch((e: unknown) => logger.warn('the store did not close cleanly', { error: e instanceof Error ? e.message : String(e) }))
        .finally(() => {
          logger.info('stopped');
          process.exit(0);
        });
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((e: unknown) => {
  process.stderr.write(`failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
