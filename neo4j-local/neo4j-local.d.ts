// Types of neo4j-local.js, for the TypeScript tests that start their own local Neo4j (test/neo4j/faults.neo4j.test.ts).
import type { ChildProcess } from 'node:child_process';

export interface LocalNeo4j {
  /** bolt://127.0.0.1:<port> (the first server's) */
  uri: string;
  /** Each server's bolt:// URI, in order (one unless started with `servers`). */
  uris: string[];
  /** The password of user neo4j: the one passed to start(), or the one it generated. */
  password: string;
  /** http://127.0.0.1:<httpPort>/browser/ when started with httpPort; undefined otherwise. */
  browserUrl?: string;
  /** The server's ready line (version, port, data folder, start time); one line per server. */
  line: string;
  child: ChildProcess;
  /** SIGTERM, then SIGKILL after `graceMs` (default 60 s); resolves once the process has exited. */
  stop(graceMs?: number): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface StartOptions {
  port?: number;
  /** The password of user neo4j; a random one (returned as LocalNeo4j.password) when undefined. Auth is always on. */
  password?: string;
  /**
   * Serve Neo4j Browser on this port (127.0.0.1); off when undefined or 0. Bolt over WebSocket and /analyst/ answer
   * only pages of http://127.0.0.1:<httpPort> (and http://localhost:<httpPort>).
   */
  httpPort?: number;
  /** A folder whose database is kept across stops; a temporary one, deleted at stop, when undefined. */
  data?: string;
  /** JVM heap, e.g. '512m' (default 1g). */
  heap?: string;
  /** Page cache in MB (default 1024). */
  pageCacheMb?: number;
  /** db.transaction.timeout in seconds, for transactions that name no timeout of their own (default 30). */
  transactionTimeoutS?: number;
  /**
   * dbms.cypher.min_replan_interval in seconds: how long a query's plan is kept before changed statistics may have it
   * planned again (Neo4j's 10 s by default).
   */
  minReplanIntervalS?: number;
  /**
   * The JVM's first JIT compiler only (C1, -XX:TieredStopAtLevel=1), for a server that lives minutes, as the test
   * suites' do: far less CPU for compiling, slower code (a server that serves for long is better off without). Off by default.
   */
  quickJit?: boolean;
  /**
   * Both JIT compilers, with C2 inlining less deeply (-XX:MaxInlineLevel=6, smaller methods inlined), for a server
   * that lives one run of the test suites: far less CPU for compiling, queries about as fast. Off by default.
   */
  shallowInlining?: boolean;
  /**
   * How many database servers the one JVM runs (default 1), each on a free port and a temporary folder of its own,
   * Bolt only (no `port`, `data` or `httpPort`): they share the JVM's start and its JIT compilation.
   */
  servers?: number;
  timeoutMs?: number;
}

export function start(options?: StartOptions): Promise<LocalNeo4j>;

export interface AdminOptions {
  /** The data folder of a stopped local server (start()'s `data`, NEO4J_LOCAL_DATA): neo4j-admin's NEO4J_HOME. Created owner-only when missing. */
  data: string;
  /** JVM heap of neo4j-admin, e.g. '256m' (default 512m). */
  heap?: string;
}

export interface AdminRun {
  /** neo4j-admin's exit code: 0 when the command succeeded. */
  code: number | null;
  /** What it printed, stdout and stderr together. */
  output: string;
}

/**
 * neo4j-admin of Neo4j 5.26 on the data folder of a stopped local server: `['database', 'dump', 'neo4j',
 * '--to-path=<folder>']`, `['database', 'load', 'neo4j', '--from-path=<folder>', '--overwrite-destination=true']`, …
 */
export function admin(args: string[], options: AdminOptions): Promise<AdminRun>;
/** Why the local server cannot run here (no java or no mvn), or undefined when it can. */
export function missingTools(): string | undefined;
export function ensureBuilt(log?: (line: string) => void): void;
/** A TCP port on 127.0.0.1 that nothing listens on right now. */
export function freePort(): Promise<number>;
