// The only place that loads better-sqlite3 (src and tests import it from here, so one process never mixes two copies).
// Node 22 and later get better-sqlite3 13 (dependency alias `better-sqlite3-napi`): Node-API, with the binaries in the
// package, and the line that stays maintained; 12 aborts the process on Node 24.19+ when a connection is freed with no
// Node environment current. Node 20 gets 12, the last line that supports it (13 needs Node 22 and crashes on 20).
// Both lines have the same API for what the store uses, so the types of 12 (@types/better-sqlite3) describe both.
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

const nodeMajor = Number(process.versions.node.split('.')[0]);

/** The package loaded on this Node: `better-sqlite3-napi` (13) on Node 22+, `better-sqlite3` (12) on Node 20. */
export const sqliteDriverPackage = nodeMajor >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3';

const Database = createRequire(__filename)(sqliteDriverPackage) as typeof BetterSqlite3;

export default Database;
