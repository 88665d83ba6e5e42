// `npm run backup -- <file>` (dist/backup.js, what the npm script runs) against the real server while clients write:
// the copy holds every write answered before the backup started, is one moment of the database (what each client
// wrote one after another is there up to some point, and nothing after it), passes integrity_check, and a second
// server serves it. Each refusal leaves every file as it was, and a copy cut off never appears under its name.
import fs from 'node:fs';
import path from 'node:path';
import Database from '../../src/store/sqlite/driver';
import { freshDir, installCleanup, send, spawnServer, startServer, type ServerProcess } from '../helpers/server-process';
import { waitFor } from '../helpers/settling';

installCleanup();

const ROOT = path.resolve(__dirname, '../..');
const BACKUP = path.join(ROOT, 'dist', 'backup.js');
const ADMIN = 'backup-admin-token-0123456789abcdef';
const SCHEMA = { id_types: [{ type: 'member_id' }, { type: 'device' }] };
/** Nodes written before the clients start: a database of about 24 MB, which the backup copies in many steps, between which the clients' writes land. */
const SEEDED = 2000;
const WRITERS = 4;

/** The settings of a server (and of a backup of its database) on `file`. */
const settingsFor = (file: string): Record<string, string> => ({ PORT: '0', HOST: '127.0.0.1', SQLITE_PATH: file, ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'info' });

/** dist/backup.js run as `npm run backup` runs it: `node dist/backup.js <args>`. */
const runBackup = (env: Record<string, string>, cwd: string, args: string[]): ServerProcess =>
  spawnServer(env, cwd, { file: process.execPath, args: [BACKUP, ...args] });

const memberKey = (id: string) => ({ type: 'member_id', id });
const nodeOf = (id: string) => ({ schema: 'member', key: memberKey(id), ids: [{ type: 'device', id: `device-of-${id}` }] });
/** A node of the seed, with two device IDs of 1,000 characters, so that the database takes many steps of the copy. */
const seedOf = (i: number) => ({
  schema: 'member',
  key: memberKey(`seed-${i}`),
  ids: ['a', 'b'].map((side) => ({ type: 'device', id: `${side}-${i}-`.padEnd(1000, side) })),
});
const writerKey = (writer: number, n: number): string => `w${writer}-${n}`;

/** Whether the server at `base` holds the node of `id`: a search from a key no node holds is 200 with no results. */
async function holds(base: string, id: string): Promise<boolean> {
  const found = await send(base, 'POST', '/v1/acme/_search', ADMIN, { match: { from: { schema: 'member', key: memberKey(id) } } });
  expect(found.status).toBe(200);
  return (found.json as { total: number }).total > 0;
}

interface Writer {
  /** Writes sent so far: w<n>-0 … w<n>-(sent-1); each is sent once the one before was answered. */
  sent: number;
  /** Writes answered 201 so far. */
  answered: number;
}

/**
 * Clients that each create nodes one after another until stopped. `failure` is the first write answered other than
 * 201; stop() resolves once each client has its last answer, and rejects with that failure.
 */
function startWriters(base: string, count: number): { writers: Writer[]; failure: () => Error | undefined; stop: () => Promise<void> } {
  const writers: Writer[] = Array.from({ length: count }, () => ({ sent: 0, answered: 0 }));
  let stopping = false;
  let failure: Error | undefined;
  const loops = writers.map(async (writer, w) => {
    while (!stopping && !failure) {
      const id = writerKey(w, writer.sent);
      writer.sent += 1;
      const created = await send(base, 'POST', '/v1/acme/node/_create', undefined, nodeOf(id));
      if (created.status !== 201) failure ??= new Error(`the write of ${id} was answered ${created.status}: ${JSON.stringify(created.json)}`);
      else writer.answered += 1;
    }
  });
  return {
    writers,
    failure: () => failure,
    stop: async () => {
      stopping = true;
      await Promise.all(loops);
      if (failure) throw failure;
    },
  };
}

/** The last line of a backup that wrote `target`: its size in bytes and MiB. */
function wroteLine(target: string): string {
  const bytes = fs.statSync(target).size;
  return `wrote ${target}: ${bytes} bytes (${(bytes / 1048576).toFixed(1)} MiB)`;
}

/** A database file that no server made: one table of `megabytes` rows of 1 MB. */
function plainDatabase(file: string, megabytes = 1): void {
  const db = new Database(file);
  try {
    db.exec('CREATE TABLE filler (b BLOB)');
    db.prepare('WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) INSERT INTO filler SELECT zeroblob(1048576) FROM n').run(megabytes);
  } finally {
    db.close();
  }
}

describe('a backup while the service writes', () => {
  test('when clients write through HTTP during `npm run backup`, then the copy holds every write answered before it started, a moment of each client, passes integrity_check, and a second server serves it', async () => {
    const dir = freshDir('idlink-backup-');
    const source = path.join(dir, 'idlink.sqlite');
    const target = path.join(dir, 'copy.sqlite');
    const { base } = await startServer(settingsFor(source), dir);
    expect((await send(base, 'PUT', '/v1/acme/schema/member', ADMIN, SCHEMA)).status).toBe(201);
    const lines = Array.from({ length: SEEDED }, (_, i) => JSON.stringify({ op: 'create', body: seedOf(i) })).join('\n');
    const bulk = await fetch(`${base}/v1/acme/node/_bulk`, { method: 'POST', headers: { 'Content-Type': 'application/x-ndjson' }, body: `${lines}\n` });
    expect(bulk.status).toBe(200);
    expect((await bulk.text()).split('\n').filter((line) => line && !line.includes('"status":201'))).toEqual([]);

    const { writers, failure, stop } = startWriters(base, WRITERS);
    try {
      await waitFor(
        '5 answered writes of each client',
        () => {
          const failed = failure();
          if (failed) throw failed;
          return writers.every((w) => w.answered >= 5);
        },
        { timeoutMs: 30_000 },
      );
      const answeredBefore = writers.map((w) => w.answered);
      const backup = runBackup(settingsFor(source), dir, [target]);
      // Bounded here rather than by jest's timeout, so that the clients are stopped whatever happens.
      await waitFor(
        () => `the backup to end; stdout: ${backup.lines.join('\n')}`,
        () => backup.child.exitCode !== null || backup.child.signalCode !== null,
        { timeoutMs: 60_000, everyMs: 20 },
      );
      const ended = await backup.exited;
      const sentBeforeEnd = writers.map((w) => w.sent);
      const answeredDuring = writers.reduce((sum, w, i) => sum + w.answered - (answeredBefore[i] ?? 0), 0);
      await stop();

      expect({ ...ended, stderr: backup.stderr() }).toEqual({ code: 0, signal: null, stderr: '' });
      // The copy was taken while the clients wrote, not before or after them.
      expect(answeredDuring).toBeGreaterThan(0);
      expect(backup.lines[0]).toBe(`copying ${source} to ${target} (pages of 4096 bytes)`);
      expect(backup.lines).toContainEqual(expect.stringMatching(/^copied (\d+) \/ \1 pages$/));
      expect(backup.lines[backup.lines.length - 1]).toBe(wroteLine(target));
      expect(fs.readdirSync(dir).filter((file) => file.startsWith('copy.sqlite'))).toEqual(['copy.sqlite']);
      expect(fs.statSync(target).mode & 0o777).toBe(0o600);

      const copy = new Database(target, { readonly: true, fileMustExist: true });
      try {
        expect(copy.pragma('integrity_check')).toEqual([{ integrity_check: 'ok' }]);
      } finally {
        copy.close();
      }

      const restored = await startServer(settingsFor(target), dir);
      for (const id of ['seed-0', `seed-${SEEDED - 1}`]) expect([id, await holds(restored.base, id)]).toEqual([id, true]);
      for (const [w, sent] of sentBeforeEnd.entries()) {
        // A write sent after the backup ended cannot be in it: what the copy holds of this client is w<n>-0 … w<n>-(m-1).
        const present: number[] = [];
        for (let n = 0; n < sent; n += 1) if (await holds(restored.base, writerKey(w, n))) present.push(n);
        expect(present).toEqual(Array.from({ length: present.length }, (_, n) => n));
        expect(present.length).toBeGreaterThanOrEqual(answeredBefore[w] ?? 0);
      }
      // The copy takes writes as the original did, its unique keys included.
      expect((await send(restored.base, 'POST', '/v1/acme/node/_create', undefined, nodeOf('seed-0'))).status).toBe(409);
      expect((await send(restored.base, 'POST', '/v1/acme/node/_create', undefined, nodeOf('after-restore'))).status).toBe(201);
    } finally {
      await stop();
    }
  }, 120_000);
});

describe('a restore, as docs/operations.md says', () => {
  test('when the service is stopped, its database files moved aside together and the backup copied in their place, then it serves what the backup holds, and nothing written after it', async () => {
    const dir = freshDir('idlink-backup-');
    const source = path.join(dir, 'data', 'idlink.sqlite');
    const backupFile = path.join(dir, 'backup.sqlite');
    const first = await startServer(settingsFor(source), dir);
    expect((await send(first.base, 'PUT', '/v1/acme/schema/member', ADMIN, SCHEMA)).status).toBe(201);
    expect((await send(first.base, 'POST', '/v1/acme/node/_create', undefined, nodeOf('before-backup'))).status).toBe(201);
    const backup = runBackup(settingsFor(source), dir, [backupFile]);
    expect({ ...(await backup.exited), stderr: backup.stderr() }).toEqual({ code: 0, signal: null, stderr: '' });
    expect((await send(first.base, 'POST', '/v1/acme/node/_create', undefined, nodeOf('after-backup'))).status).toBe(201);
    const fed = await send(first.base, 'GET', '/v1/acme/_changes', ADMIN);
    expect(fed.status).toBe(200);
    const { next: cursor } = fed.json as { next: string };
    // Stopped by a crash, the service leaves its WAL beside the database: the case the restore must not trip on.
    first.server.child.kill('SIGKILL');
    await first.server.exited;
    expect(fs.existsSync(`${source}-wal`)).toBe(true);

    const aside = path.join(dir, 'replaced');
    fs.mkdirSync(aside);
    for (const file of fs.readdirSync(path.dirname(source)).filter((name) => name.startsWith('idlink.sqlite'))) {
      fs.renameSync(path.join(path.dirname(source), file), path.join(aside, file));
    }
    fs.copyFileSync(backupFile, source);
    const restored = await startServer(settingsFor(source), dir);
    expect({ before: await holds(restored.base, 'before-backup'), after: await holds(restored.base, 'after-backup') }).toEqual({ before: true, after: false });
    // The restored store numbers its feed on from the backup: the first write after it takes the position the lost
    // write had. A cursor given before the restore is refused, never read as one of the restored store's.
    expect((await send(restored.base, 'POST', '/v1/acme/node/_create', undefined, nodeOf('after-restore'))).status).toBe(201);
    expect(await send(restored.base, 'GET', `/v1/acme/_changes?after=${encodeURIComponent(cursor)}`, ADMIN)).toMatchObject({
      status: 400,
      json: { code: 'invalid_cursor' },
    });
  }, 60_000);
});

describe('a backup beside a process that commits all the time', () => {
  test('when another process commits all through the copy, then the backup still ends (its steps grow each time SQLite starts it again), and the copy holds an unbroken run of those commits', async () => {
    const dir = freshDir('idlink-backup-');
    const source = path.join(dir, 'busy.sqlite');
    const target = path.join(dir, 'copy.sqlite');
    plainDatabase(source, 16);
    // Rows 1, 2, 3…, one commit each, as fast as SQLite takes them (no sync), through the driver module as built; it
    // prints every hundredth count it committed. Between two commits there is never room for 16 steps of the copy.
    const driver = path.join(ROOT, 'dist', 'store', 'sqlite', 'driver.js');
    const tick = [
      `const db = new (require(${JSON.stringify(driver)}).default)(process.argv[1]);`,
      "db.pragma('journal_mode = WAL');",
      "db.pragma('synchronous = OFF');",
      "db.exec('CREATE TABLE tick (n INTEGER PRIMARY KEY)');",
      "const insert = db.prepare('INSERT INTO tick (n) VALUES (?)');",
      'let n = 0;',
      'const next = () => { insert.run(++n); if (n % 100 === 0) console.log(n); setImmediate(next); };',
      'next();',
    ].join('\n');
    const writer = spawnServer({}, dir, { file: process.execPath, args: ['-e', tick, source] });
    const committed = (): number => Number(writer.lines[writer.lines.length - 1] ?? 0);
    await waitFor(
      () => `100 commits of the writer; stderr: ${writer.stderr()}`,
      () => committed() >= 100,
      { timeoutMs: 30_000 },
    );
    const committedBefore = committed();
    const backup = runBackup(settingsFor(source), dir, [target]);
    await waitFor(
      () => `the backup to end; stdout: ${backup.lines.join('\n')}`,
      () => backup.child.exitCode !== null || backup.child.signalCode !== null,
      { timeoutMs: 60_000, everyMs: 20 },
    );
    writer.child.kill('SIGKILL');
    expect({ ...(await backup.exited), stderr: backup.stderr() }).toEqual({ code: 0, signal: null, stderr: '' });
    expect(writer.child.exitCode).toBeNull();
    // Each start doubles the step, so the copy starts again at most log2(pages) times; with a step that stayed the
    // same it started again hundreds of times a second, and ended only when the writer happened to pause.
    const pages = Number(/^copied (\d+) \/ \1 pages$/.exec(backup.lines[backup.lines.length - 2] ?? '')?.[1]);
    const startedAgain = backup.lines.filter((line) => line.startsWith('the database changed during the copy; starting again')).length;
    expect(startedAgain).toBeLessThanOrEqual(Math.ceil(Math.log2(pages)));

    const copy = new Database(target, { readonly: true, fileMustExist: true });
    try {
      expect(copy.pragma('integrity_check')).toEqual([{ integrity_check: 'ok' }]);
      const { rows, last } = copy.prepare('SELECT count(*) AS rows, max(n) AS last FROM tick').get() as { rows: number; last: number };
      expect(rows).toBe(last);
      expect(last).toBeGreaterThanOrEqual(committedBefore);
    } finally {
      copy.close();
    }
  }, 120_000);
});

describe('what a backup copies and leaves', () => {
  test('when `npm run backup -- <file>` copies a database no server made, then the source is unchanged byte for byte and the copy holds its tables as they were, with no migration', async () => {
    const dir = freshDir('idlink-backup-');
    const source = path.join(dir, 'other.sqlite');
    const target = path.join(dir, 'copy.sqlite');
    plainDatabase(source);
    const before = fs.readFileSync(source);
    // npm reads its configuration and cache under HOME; --silent keeps npm's own lines out of the output.
    const npm = spawnServer({ ...settingsFor(source), HOME: process.env.HOME ?? dir }, ROOT, {
      file: 'npm',
      args: ['run', 'backup', '--silent', '--', target],
    });
    expect({ ...(await npm.exited), stderr: npm.stderr() }).toEqual({ code: 0, signal: null, stderr: '' });
    expect(npm.lines[npm.lines.length - 1]).toBe(wroteLine(target));

    expect(fs.readFileSync(source).equals(before)).toBe(true);
    const copy = new Database(target, { readonly: true, fileMustExist: true });
    try {
      expect(copy.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all()).toEqual(['filler']);
      expect(copy.prepare('SELECT count(*) AS rows, sum(length(b)) AS bytes FROM filler').get()).toEqual({ rows: 1, bytes: 1048576 });
    } finally {
      copy.close();
    }
  }, 60_000);

  test('when a backup is killed in the middle of its copy, then nothing exists under the name it was given, and the next backup to that name says what was left', async () => {
    const dir = freshDir('idlink-backup-');
    const source = path.join(dir, 'large.sqlite');
    const target = path.join(dir, 'copy.sqlite');
    // 128 MB: a copy of about a second on an idle machine, long after its first progress line.
    plainDatabase(source, 128);
    const backup = runBackup(settingsFor(source), dir, [target]);
    await waitFor(
      () => `the first progress line; stdout: ${backup.lines.join('\n')}; stderr: ${backup.stderr()}`,
      () => {
        if (backup.child.exitCode !== null) throw new Error(`the backup ended before it was killed: ${backup.lines.join('\n')}`);
        return backup.lines.some((line) => line.startsWith('copied '));
      },
      { timeoutMs: 30_000, everyMs: 5 },
    );
    backup.child.kill('SIGKILL');
    expect(await backup.exited).toEqual({ code: null, signal: 'SIGKILL' });

    expect(fs.existsSync(target)).toBe(false);
    expect(fs.statSync(`${target}.partial`).size).toBeLessThan(fs.statSync(source).size);
    const next = runBackup(settingsFor(source), dir, [target]);
    expect((await next.exited).code).toBe(2);
    expect(next.stderr()).toBe(
      `backup refused: ${target}.partial exists: another backup to ${target} is running, or one was cut off; remove it when none runs\n`,
    );
    expect(fs.existsSync(target)).toBe(false);
  }, 60_000);
});

describe('what a backup refuses', () => {
  /** A case: the settings and arguments it changes, given the folder (which holds the database idlink.sqlite), and the reason expected. */
  interface RefusalCase {
    env?: (dir: string) => Record<string, string>;
    args: (dir: string) => string[];
    /** Files the case puts in the folder first. */
    files?: string[];
    reason: (dir: string) => string;
  }
  const cases: Array<[string, RefusalCase]> = [
    ['no file is named', { args: () => [], reason: () => 'name the one file to write: npm run backup -- <file>' }],
    [
      'two files are named',
      { args: (dir) => [path.join(dir, 'a.sqlite'), path.join(dir, 'b.sqlite')], reason: () => 'name the one file to write: npm run backup -- <file>' },
    ],
    [
      'the store is Neo4j',
      {
        env: () => ({ STORE: 'neo4j', NEO4J_URI: 'bolt://127.0.0.1:7687' }),
        args: (dir) => [path.join(dir, 'copy.sqlite')],
        reason: () => 'STORE is neo4j: this copies the SQLite store only; docs/operations.md says how to back up Neo4j',
      },
    ],
    [
      'SQLITE_PATH is :memory:',
      {
        env: () => ({ SQLITE_PATH: ':memory:' }),
        args: (dir) => [path.join(dir, 'copy.sqlite')],
        reason: () => 'SQLITE_PATH is :memory:, a store held inside the service process: there is no file to copy',
      },
    ],
    [
      'the database file does not exist',
      {
        env: (dir) => ({ SQLITE_PATH: path.join(dir, 'missing.sqlite') }),
        args: (dir) => [path.join(dir, 'copy.sqlite')],
        reason: (dir) => `SQLITE_PATH names no file: ${path.join(dir, 'missing.sqlite')}`,
      },
    ],
    [
      'the file to write exists',
      {
        files: ['copy.sqlite'],
        args: (dir) => [path.join(dir, 'copy.sqlite')],
        reason: (dir) => `${path.join(dir, 'copy.sqlite')} exists already: a backup never overwrites a file; name a new one`,
      },
    ],
    [
      'a WAL file of that name exists',
      {
        files: ['copy.sqlite-wal'],
        args: (dir) => [path.join(dir, 'copy.sqlite')],
        reason: (dir) => `${path.join(dir, 'copy.sqlite-wal')} exists: SQLite would read it as part of the copy; remove it, or name another file`,
      },
    ],
    [
      'the folder of the file to write does not exist',
      {
        args: (dir) => [path.join(dir, 'missing', 'copy.sqlite')],
        reason: (dir) => `the folder ${path.join(dir, 'missing')} does not exist`,
      },
    ],
    [
      'a setting is invalid',
      { env: () => ({ PORT: 'abc' }), args: (dir) => [path.join(dir, 'copy.sqlite')], reason: () => 'invalid configuration: PORT: must be integer' },
    ],
  ];

  test.each(cases)('when %s, then it exits 2 with one line saying why, and writes nothing', async (_, refusal) => {
    const dir = freshDir('idlink-backup-');
    const source = path.join(dir, 'idlink.sqlite');
    plainDatabase(source);
    for (const file of refusal.files ?? []) fs.writeFileSync(path.join(dir, file), 'kept as it is');
    const before = Object.fromEntries(fs.readdirSync(dir).map((file) => [file, fs.readFileSync(path.join(dir, file)).toString('base64')]));

    const backup = runBackup({ ...settingsFor(source), ...refusal.env?.(dir) }, dir, refusal.args(dir));
    expect({ ...(await backup.exited), stdout: backup.lines, stderr: backup.stderr() }).toEqual({
      code: 2,
      signal: null,
      stdout: [],
      stderr: `backup refused: ${refusal.reason(dir)}\n`,
    });
    const after = Object.fromEntries(fs.readdirSync(dir).map((file) => [file, fs.readFileSync(path.join(dir, file)).toString('base64')]));
    expect(after).toEqual(before);
  });
});
