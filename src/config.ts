// The only reader of process.env: every setting is declared once here, with its variable, default and meaning,
// and checked as a JSON Schema at start-up so that a bad value stops the process with the variable's name.
import Ajv from 'ajv';

const envSchema = {
  type: 'object',
  properties: {
    PORT: { type: 'integer', minimum: 0, maximum: 65535, default: 8080, description: 'HTTP port; 0 picks any free port (the chosen one is logged).' },
    HOST: { type: 'string', minLength: 1, default: '127.0.0.1', description: 'Bind address; loopback by default, 0.0.0.0 in the container.' },
    STORE: { type: 'string', enum: ['sqlite', 'neo4j'], default: 'sqlite', description: 'Which store serves the data.' },
    SQLITE_PATH: { type: 'string', minLength: 1, default: './data/idlink.sqlite', description: 'Embedded database file; :memory: for a throw-away store.' },
    SQLITE_SYNCHRONOUS: {
      type: 'string',
      enum: ['NORMAL', 'FULL'],
      default: 'NORMAL',
      description: 'SQLite synchronous mode. NORMAL (WAL) survives a crash of the process; FULL also survives a power cut, at the cost of one fsync per write.',
    },
    SQLITE_READ_WORKERS: {
      type: 'integer',
      minimum: 0,
      maximum: 64,
      default: 2,
      description:
        'Worker threads that run the searches, graphs and _why searches visiting more than SQLITE_INLINE_NODES nodes, each on a read-only connection of its own, off the event loop; 0: all on the event loop (always so for :memory:).',
    },
    SQLITE_INLINE_NODES: {
      type: 'integer',
      minimum: 0,
      maximum: 10000000,
      default: 64,
      description:
        'The most nodes a search, graph or _why visits on the event loop; past it, it is run again, whole, on a read worker. 0: every search, graph and _why on the read workers.',
    },
    SQLITE_INLINE_IDS: {
      type: 'integer',
      minimum: 1,
      maximum: 10000000,
      default: 1024,
      description: 'The most distinct IDs a search, graph or _why reads on the event loop; past it, it is run again, whole, on a read worker.',
    },
    SQLITE_INLINE_BYTES: {
      type: 'integer',
      minimum: 1,
      maximum: 1073741824,
      default: 65536,
      description:
        'The most characters of ID types and values a search or graph answers from the event loop (counted before they are read); past it, it is run again, whole, on a read worker.',
    },
    NEO4J_URI: { type: 'string', minLength: 1, description: 'Neo4j connection URI, required when STORE=neo4j.' },
    NEO4J_USERNAME: { type: 'string', minLength: 1, default: 'neo4j', description: 'Neo4j user.' },
    NEO4J_PASSWORD: { type: 'string', description: 'Neo4j password.' },
    NEO4J_DATABASE: { type: 'string', minLength: 1, default: 'neo4j', description: 'Neo4j database every query names.' },
    NEO4J_MAX_CONNECTION_POOL_SIZE: {
      type: 'integer',
      minimum: 1,
      maximum: 10000,
      default: 100,
      description: 'Most connections the Neo4j driver keeps open; a request waiting on Neo4j holds one until it is answered.',
    },
    NEO4J_CONNECTION_ACQUISITION_TIMEOUT_MS: {
      type: 'integer',
      minimum: 1,
      maximum: 600000,
      default: 10000,
      description: 'How long a request waits for a free pooled Neo4j connection before it fails with 503 store_unavailable.',
    },
    NEO4J_SCHEMA_CHECK_MS: {
      type: 'integer',
      minimum: 100,
      maximum: 3600000,
      default: 10000,
      description:
        'How often the service checks that Neo4j has every constraint and index of cypher/schema/, and applies them again when one is missing (a database that came back empty); while a constraint is missing, requests answer 503 store_unavailable.',
    },
    NEO4J_CALL_TIMEOUT_MS: {
      type: 'integer',
      minimum: 100,
      maximum: 600000,
      default: 30000,
      description:
        "How long one call to Neo4j may take, retries included, before the request answers 503 store_unavailable (Neo4j frozen or cut off); Neo4j ends the call's transaction by the same limit (its transaction timeout). Keep it below IDLE_TIMEOUT_MS.",
    },
    NEO4J_EXPORT_TIMEOUT_MS: {
      type: 'integer',
      minimum: 1000,
      maximum: 3600000,
      default: 60000,
      description:
        "How long a _export on Neo4j may run: it holds the customer's node writes back while it reads (Neo4j Community reads without a snapshot), and past this it is cut (no end line) and the writes go on.",
    },
    NEO4J_IMPORT_STALE_MS: {
      type: 'integer',
      minimum: 15000,
      maximum: 3600000,
      default: 60000,
      description:
        'How long an _import on Neo4j may go without its process saying it is alive (it does every twelfth of this) before a service process takes it for one a stopped process left, and undoes it; service processes look every quarter of it.',
    },
    ADMIN_TOKEN: {
      type: 'string',
      pattern: '^[A-Za-z0-9_-]{22,256}$',
      description: 'Administrator secret (URL-safe, at least 22 characters = 128 bits). Generated into admin-token beside the SQLite file when unset.',
    },
    PUBLIC_BASE_URL: {
      type: 'string',
      pattern: '^https?://[^\\s]+[^/\\s]$',
      description: 'Absolute base used in link and Location headers; derived from the request when unset.',
    },
    LOG_LEVEL: { type: 'string', enum: ['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'], default: 'info', description: 'winston level.' },
    BODY_LIMIT: { type: 'string', pattern: '^[0-9]+(b|kb|mb)?$', default: '1mb', description: 'Largest request body (bytes, kb or mb).' },
    BULK_BATCH_LIMIT: {
      type: 'string',
      pattern: '^[0-9]+(b|kb|mb)?$',
      default: '1mb',
      description: 'Most bytes of lines one _bulk request gathers before it applies them (a batch also ends at 500 lines).',
    },
    BULK_MEMORY_LIMIT: {
      type: 'string',
      pattern: '^[0-9]+(b|kb|mb)?$',
      default: '32mb',
      description:
        'Most bytes of lines all _bulk requests together may hold. Each request in progress takes BULK_BATCH_LIMIT + BODY_LIMIT of it (with the defaults, 16 requests at once); one that finds no room waits up to 5 s, then gets 503 server_busy with Retry-After.',
    },
    BODY_MEMORY_LIMIT: {
      type: 'string',
      pattern: '^[0-9]+(b|kb|mb)?$',
      default: '32mb',
      description:
        'Most bytes of request bodies (all but _bulk lines) read at once. A body of at most BODY_MEMORY_LIMIT / MAX_CONNECTIONS (32 KB with the defaults) is always read; a larger one first takes its Content-Length (BODY_LIMIT when chunked, or when compressed and inflated past that share) of this, and one that finds no room waits up to 5 s, then gets 503 server_busy with Retry-After.',
    },
    RESPONSE_MEMORY_LIMIT: {
      type: 'string',
      pattern: '^[0-9]+(b|kb|mb)?$',
      default: '64mb',
      description:
        'Most bytes of answers to reads (GET, _search, _graph, _eligible) being sent at once. An answer of at most RESPONSE_MEMORY_LIMIT / MAX_CONNECTIONS (64 KB with the defaults) is always sent; a larger one takes its size of this until its last byte is handed to the operating system, and one that does not fit gets 503 server_busy with Retry-After at once. One answer larger than all of it is sent when no other is.',
    },
    BULK_LINE_TIMEOUT_MS: {
      type: 'integer',
      minimum: 100,
      maximum: 3600000,
      default: 60000,
      description:
        'How long a _bulk request may wait for its next complete line; past it the answer ends with a request_timeout line and the connection is closed.',
    },
    BULK_LINE_MIN_BYTES: {
      type: 'integer',
      minimum: 1,
      maximum: 104857600,
      default: 1024,
      description:
        'Least bytes of lines a _bulk body must bring in every BULK_LINE_RATE_WINDOW_MS after its first, counted over the whole body (whole lines or parts of one) and over the time the request waits for them (not while it applies lines or writes results); one slower ends the answer with a request_timeout line, so a trickle cannot hold a bulk slot. 1 KB per 10 s is far below the slowest mobile uplink.',
    },
    BULK_LINE_RATE_WINDOW_MS: {
      type: 'integer',
      minimum: 100,
      maximum: 3600000,
      default: 10000,
      description:
        'The window of BULK_LINE_MIN_BYTES: a _bulk body may take its first window freely, then must bring BULK_LINE_MIN_BYTES in each further one; long enough to ride out a mobile network stall.',
    },
    SEARCH_MAX_LIMIT: { type: 'integer', minimum: 1, maximum: 10000000, default: 100000, description: 'Largest accepted search limit.' },
    TRAVERSAL_MAX_NODES: { type: 'integer', minimum: 1, maximum: 10000000, default: 10000, description: 'Largest number of nodes one search may visit.' },
    TRAVERSAL_MAX_IDS: {
      type: 'integer',
      minimum: 1,
      maximum: 10000000,
      default: 50000,
      description:
        'Largest number of distinct IDs the nodes one search visits may hold, secure ones included (reading them costs the same); past it the search is 422 component_too_large. Keep it at or above NODE_MAX_IDS.',
    },
    NODE_MAX_IDS: {
      type: 'integer',
      minimum: 1,
      maximum: 10000000,
      default: 10000,
      description: 'Most IDs one node may hold (its key included); a write that would take a node past it is 409 node_id_limit_reached and adds nothing.',
    },
    HISTORY_RETENTION_DAYS: {
      type: 'integer',
      minimum: 1,
      maximum: 36500,
      default: 365,
      description: 'How long node history entries are kept; older ones are deleted at start-up and every hour after.',
    },
    CHANGES_MAX_WAITING: {
      type: 'integer',
      minimum: 1,
      maximum: 100000,
      default: 1000,
      description: 'Most _changes calls that wait for a change at once (long polls and event streams); past it, 503 server_busy.',
    },
    EXPORTS_MAX_RUNNING: {
      type: 'integer',
      minimum: 1,
      maximum: 1000,
      default: 4,
      description: 'Most _export calls that run at once, each on a store connection of its own; past it, 503 server_busy.',
    },
    CHANGES_STREAM_SECONDS: {
      type: 'integer',
      minimum: 1,
      maximum: 86400,
      default: 300,
      description: 'How long a _changes event stream lasts before the service ends it (the client reconnects with Last-Event-ID).',
    },
    CHANGES_KEEPALIVE_SECONDS: {
      type: 'integer',
      minimum: 1,
      maximum: 15,
      default: 15,
      description: 'How long a _changes event stream may stay without a line: past it, a comment line (: keep-alive) is sent.',
    },
    SHUTDOWN_TIMEOUT_MS: { type: 'integer', minimum: 0, maximum: 600000, default: 10000, description: 'How long shutdown waits for requests in flight.' },
    RATE_LIMIT_REQUESTS: {
      type: 'integer',
      minimum: 0,
      maximum: 1000000,
      default: 0,
      description:
        'Requests one verified token (or one client address, when the request carries no valid token) may make per window on /v1; 0 turns rate limiting off.',
    },
    RATE_LIMIT_WINDOW_SECONDS: { type: 'integer', minimum: 1, maximum: 86400, default: 60, description: 'Length of the rate-limit window.' },
    MAX_CONNECTIONS: {
      type: 'integer',
      minimum: 1,
      maximum: 1000000,
      default: 1024,
      description:
        'Most client connections open at once. Keep it below the open-file limit (ulimit -n) less what the store needs. A client connecting past it takes the place of a connection that waits on its client, which is closed with no answer: first the oldest one behind BODY_MIN_BYTES per BODY_RATE_WINDOW_MS while it sends its headers or body (or idles between requests), else the oldest of those, else the oldest whose answer its client is not reading. When every connection has a request being handled, or an answer being read, the new one is closed.',
    },
    HEADERS_TIMEOUT_MS: {
      type: 'integer',
      minimum: 100,
      maximum: 600000,
      default: 10000,
      description: 'How long a request line and headers may take to arrive; past it the answer is 408 request_timeout and the connection is closed.',
    },
    BODY_TIMEOUT_MS: {
      type: 'integer',
      minimum: 100,
      maximum: 3600000,
      default: 30000,
      description:
        'How long the body of a request other than _bulk may take to arrive after its headers; past it the answer is 408 request_timeout and the connection is closed. A _bulk body may stream for as long as it keeps moving (IDLE_TIMEOUT_MS).',
    },
    BODY_MIN_BYTES: {
      type: 'integer',
      minimum: 1,
      maximum: 104857600,
      default: 1024,
      description:
        'Least bytes the body of a request other than _bulk must bring in every BODY_RATE_WINDOW_MS until it is complete (a smaller body: all of it in the first window); one slower is answered 408 request_timeout and its connection closed, and the connection cap closes connections behind this rate first. 1 KB per 10 s is far below the slowest mobile uplink.',
    },
    BODY_RATE_WINDOW_MS: {
      type: 'integer',
      minimum: 100,
      maximum: 3600000,
      default: 10000,
      description: 'The window of BODY_MIN_BYTES; long enough to ride out a mobile network stall.',
    },
    IDLE_TIMEOUT_MS: {
      type: 'integer',
      minimum: 100,
      maximum: 3600000,
      default: 60000,
      description: 'How long a connection in the middle of a request may go without receiving or sending a byte before it is closed, with no answer.',
    },
    KEEP_ALIVE_TIMEOUT_MS: {
      type: 'integer',
      minimum: 100,
      maximum: 3600000,
      default: 5000,
      description: "How long an idle keep-alive connection waits for its next request; behind a load balancer, set it above the balancer's own idle timeout.",
    },
    BENCH_FLOOR_ROUTE: {
      type: 'boolean',
      default: false,
      description:
        "true: POST /floor runs the store's cheapest read (Neo4j: RETURN 1 in a read transaction; SQLite: SELECT 1) and answers a constant body, for the bench's store floor. Off in production: it needs no token.",
    },
  },
  if: { required: ['STORE'], properties: { STORE: { const: 'neo4j' } } },
  then: { properties: { NEO4J_URI: { type: 'string' } }, required: ['NEO4J_URI'] },
} as const;

export interface Config {
  port: number;
  host: string;
  store: 'sqlite' | 'neo4j';
  sqlitePath: string;
  sqliteSynchronous: 'NORMAL' | 'FULL';
  sqliteReadWorkers: number;
  sqliteInlineNodes: number;
  /** SQLITE_INLINE_IDS and SQLITE_INLINE_BYTES: the other bounds of a read on the event loop (src/store/sqlite/sqlite-search.ts, InlineBounds). */
  sqliteInlineIds: number;
  sqliteInlineBytes: number;
  neo4j: {
    uri: string | undefined;
    username: string;
    password: string | undefined;
    database: string;
    maxConnectionPoolSize: number;
    connectionAcquisitionTimeoutMs: number;
    callTimeoutMs: number;
    schemaCheckMs: number;
    exportTimeoutMs: number;
    /** NEO4J_IMPORT_STALE_MS: src/main.ts undoes imports no process has said are alive for this long. */
    importStaleMs: number;
  };
  adminToken: string | undefined;
  publicBaseUrl: string | undefined;
  logLevel: string;
  bodyLimit: string;
  /** Most bytes of request bodies (all but _bulk's) read at once: see bodyMemory in src/http/middleware.ts. */
  bodyMemoryLimit: string;
  /** Most bytes of answers being sent at once: see boundAnswerMemory in src/http/answer-memory.ts. */
  responseMemoryLimit: string;
  bulk: { batchLimit: string; memoryLimit: string; lineTimeoutMs: number; lineMinBytes: number; lineRateWindowMs: number };
  searchMaxLimit: number;
  traversalMaxNodes: number;
  traversalMaxIds: number;
  nodeMaxIds: number;
  historyRetentionDays: number;
  changes: {
    maxWaiting: number;
    streamSeconds: number;
    keepAliveSeconds: number;
  };
  /** EXPORTS_MAX_RUNNING. */
  exportsMaxRunning: number;
  shutdownTimeoutMs: number;
  rateLimitRequests: number;
  rateLimitWindowSeconds: number;
  connections: ConnectionLimits;
  /** BENCH_FLOOR_ROUTE: mount POST /floor (src/http/routes/bench-floor.ts). */
  benchFloorRoute: boolean;
}

/** What one client connection may hold: applied by serve() (src/http/server.ts) and the body deadline middleware. */
export interface ConnectionLimits {
  maxConnections: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  /** BODY_MIN_BYTES per BODY_RATE_WINDOW_MS: the pace below which a body is cut, and its connection is closed first at the cap. */
  bodyMinBytes: number;
  bodyRateWindowMs: number;
  idleTimeoutMs: number;
  keepAliveTimeoutMs: number;
}

type RawEnv = Record<string, string | undefined>;

/** What the environment looks like once the schema has checked it and filled in defaults. */
interface ValidatedEnv {
  PORT: number;
  HOST: string;
  STORE: Config['store'];
  SQLITE_PATH: string;
  SQLITE_SYNCHRONOUS: Config['sqliteSynchronous'];
  SQLITE_READ_WORKERS: number;
  SQLITE_INLINE_NODES: number;
  SQLITE_INLINE_IDS: number;
  SQLITE_INLINE_BYTES: number;
  NEO4J_URI?: string;
  NEO4J_USERNAME: string;
  NEO4J_PASSWORD?: string;
  NEO4J_DATABASE: string;
  NEO4J_MAX_CONNECTION_POOL_SIZE: number;
  NEO4J_CONNECTION_ACQUISITION_TIMEOUT_MS: number;
  NEO4J_CALL_TIMEOUT_MS: number;
  NEO4J_SCHEMA_CHECK_MS: number;
  NEO4J_EXPORT_TIMEOUT_MS: number;
  NEO4J_IMPORT_STALE_MS: number;
  ADMIN_TOKEN?: string;
  PUBLIC_BASE_URL?: string;
  LOG_LEVEL: string;
  BODY_LIMIT: string;
  BULK_BATCH_LIMIT: string;
  BULK_MEMORY_LIMIT: string;
  BODY_MEMORY_LIMIT: string;
  RESPONSE_MEMORY_LIMIT: string;
  BULK_LINE_TIMEOUT_MS: number;
  BULK_LINE_MIN_BYTES: number;
  BULK_LINE_RATE_WINDOW_MS: number;
  SEARCH_MAX_LIMIT: number;
  TRAVERSAL_MAX_NODES: number;
  TRAVERSAL_MAX_IDS: number;
  NODE_MAX_IDS: number;
  HISTORY_RETENTION_DAYS: number;
  CHANGES_MAX_WAITING: number;
  CHANGES_STREAM_SECONDS: number;
  CHANGES_KEEPALIVE_SECONDS: number;
  EXPORTS_MAX_RUNNING: number;
  SHUTDOWN_TIMEOUT_MS: number;
  RATE_LIMIT_REQUESTS: number;
  RATE_LIMIT_WINDOW_SECONDS: number;
  MAX_CONNECTIONS: number;
  HEADERS_TIMEOUT_MS: number;
  BODY_TIMEOUT_MS: number;
  BODY_MIN_BYTES: number;
  BODY_RATE_WINDOW_MS: number;
  IDLE_TIMEOUT_MS: number;
  KEEP_ALIVE_TIMEOUT_MS: number;
  BENCH_FLOOR_ROUTE: boolean;
}

export class ConfigError extends Error {}

const ajv = new Ajv({ coerceTypes: true, useDefaults: true, allErrors: true, strict: true });
const validateEnv = ajv.compile<ValidatedEnv>(envSchema);

/** Reads and checks the settings; throws ConfigError naming every bad variable. */
export function loadConfig(env: RawEnv = process.env, overrides: Partial<Config> = {}): Config {
  const known = Object.keys(envSchema.properties);
  const raw: Record<string, unknown> = {};
  for (const name of known) {
    const value = env[name];
    if (value !== undefined && value !== '') raw[name] = value;
  }
  if (!validateEnv(raw)) {
    const problems = (validateEnv.errors ?? [])
      .filter((e) => e.keyword !== 'if')
      .map((e) => {
        const missing: unknown = e.params.missingProperty;
        const variable = e.instancePath.slice(1) || (typeof missing === 'string' ? missing : '');
        return `${variable}: ${e.message ?? 'is invalid'}`;
      });
    throw new ConfigError(`invalid configuration: ${[...new Set(problems)].join('; ')}`);
  }
  const v = raw;
  return {
    port: v.PORT,
    host: v.HOST,
    store: v.STORE,
    sqlitePath: v.SQLITE_PATH,
    sqliteSynchronous: v.SQLITE_SYNCHRONOUS,
    sqliteReadWorkers: v.SQLITE_READ_WORKERS,
    sqliteInlineNodes: v.SQLITE_INLINE_NODES,
    sqliteInlineIds: v.SQLITE_INLINE_IDS,
    sqliteInlineBytes: v.SQLITE_INLINE_BYTES,
    neo4j: {
      uri: v.NEO4J_URI,
      username: v.NEO4J_USERNAME,
      password: v.NEO4J_PASSWORD,
      database: v.NEO4J_DATABASE,
      maxConnectionPoolSize: v.NEO4J_MAX_CONNECTION_POOL_SIZE,
      connectionAcquisitionTimeoutMs: v.NEO4J_CONNECTION_ACQUISITION_TIMEOUT_MS,
      callTimeoutMs: v.NEO4J_CALL_TIMEOUT_MS,
      schemaCheckMs: v.NEO4J_SCHEMA_CHECK_MS,
      exportTimeoutMs: v.NEO4J_EXPORT_TIMEOUT_MS,
      importStaleMs: v.NEO4J_IMPORT_STALE_MS,
    },
    adminToken: v.ADMIN_TOKEN,
    publicBaseUrl: v.PUBLIC_BASE_URL,
    logLevel: v.LOG_LEVEL,
    bodyLimit: v.BODY_LIMIT,
    bodyMemoryLimit: v.BODY_MEMORY_LIMIT,
    responseMemoryLimit: v.RESPONSE_MEMORY_LIMIT,
    bulk: {
      batchLimit: v.BULK_BATCH_LIMIT,
      memoryLimit: v.BULK_MEMORY_LIMIT,
      lineTimeoutMs: v.BULK_LINE_TIMEOUT_MS,
      lineMinBytes: v.BULK_LINE_MIN_BYTES,
      lineRateWindowMs: v.BULK_LINE_RATE_WINDOW_MS,
    },
    searchMaxLimit: v.SEARCH_MAX_LIMIT,
    traversalMaxNodes: v.TRAVERSAL_MAX_NODES,
    traversalMaxIds: v.TRAVERSAL_MAX_IDS,
    nodeMaxIds: v.NODE_MAX_IDS,
    historyRetentionDays: v.HISTORY_RETENTION_DAYS,
    changes: { maxWaiting: v.CHANGES_MAX_WAITING, streamSeconds: v.CHANGES_STREAM_SECONDS, keepAliveSeconds: v.CHANGES_KEEPALIVE_SECONDS },
    exportsMaxRunning: v.EXPORTS_MAX_RUNNING,
    shutdownTimeoutMs: v.SHUTDOWN_TIMEOUT_MS,
    rateLimitRequests: v.RATE_LIMIT_REQUESTS,
    rateLimitWindowSeconds: v.RATE_LIMIT_WINDOW_SECONDS,
    connections: {
      maxConnections: v.MAX_CONNECTIONS,
      headersTimeoutMs: v.HEADERS_TIMEOUT_MS,
      bodyTimeoutMs: v.BODY_TIMEOUT_MS,
      bodyMinBytes: v.BODY_MIN_BYTES,
      bodyRateWindowMs: v.BODY_RATE_WINDOW_MS,
      idleTimeoutMs: v.IDLE_TIMEOUT_MS,
      keepAliveTimeoutMs: v.KEEP_ALIVE_TIMEOUT_MS,
    },
    benchFloorRoute: v.BENCH_FLOOR_ROUTE,
    ...overrides,
  };
}

/** The settings as documentation: variable, default and meaning (used by the check of docs/operations.md's table). */
export function describeSettings(): Array<{ variable: string; default: string | number | boolean | undefined; description: string }> {
  return Object.entries(envSchema.properties).map(([variable, spec]) => ({
    variable,
    default: 'default' in spec ? spec.default : undefined,
    description: spec.description,
  }));
}
