// What an erase leaves on disk with the embedded store (docs/history-and-erasure.md): once erase() answered, no byte of an
// erased value is in the database file or its WAL, before any VACUUM and after one; and no table holds it.
// The bytes of values that were not erased are found the same way, so the search can fail.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from '../../src/store/sqlite/driver';
import type { IdPair, NodeAddress, SchemaRecord } from '../../src/domain/model';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store';
import { seeded } from '../helpers/seeded';

const SCHEMA: SchemaRecord = {
  schemaId: 'member',
  idTypes: [
    { type: 'member_id', secure: false },
    { type: 'email', secure: true },
    { type: 'device', secure: false, links: false },
  ],
};
const audit = { requestId: 'req-1', actor: 'admin' };
const id = (type: string, value: string): IdPair => ({ type, id: value });
const node = (customerId: string, memberId: string): NodeAddress => ({
  customerId,
  schemaId: 'member',
  key: id('member_id', memberId),
  expectedTypes: SCHEMA.idTypes,
  audit,
});

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'idlink-erasure-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The database file and its WAL and shared-memory files, as bytes. */
function diskBytes(file: string): Buffer {
  return Buffer.concat(['', '-wal', '-shm'].filter((suffix) => fs.existsSync(file + suffix)).map((suffix) => fs.readFileSync(file + suffix)));
}

/** Every row of every table, as text. */
function allRows(file: string): string {
  const db = new Database(file, { readonly: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
    // Table names come from sqlite_master, not from a client; quoted as identifiers.
    return tables.map((t) => JSON.stringify(db.prepare(`SELECT * FROM "${t.replaceAll('"', '""')}"`).all())).join('\n');
  } finally {
    db.close();
  }
}

test('when a person is erased from a database file, then no table and no byte of the file or its WAL holds their values, before and after VACUUM', async () => {
  const file = path.join(dir, 'idlink.sqlite');
  const store = new SqliteStore({ path: file });
  const customer = 'acme';
  const tag = randomUUID();
  // The person: 60 nodes linked through one email, each with its own email too; one email replaced (so only history
  // names it), one node rekeyed (so only history names its old key). Plus someone else who shares a device.
  const personal: string[] = [];
  const shared = `shared-${tag}@example.com`;
  await store.putSchema(customer, SCHEMA);
  for (let n = 0; n < 60; n += 1) {
    const own = `own-${n}-${tag}@example.com`;
    personal.push(`m-${n}-${tag}`, own);
    await store.createNode(seeded(node(customer, `m-${n}-${tag}`)), [id('email', shared), id('email', own)]);
  }
  personal.push(shared);
  const replaced = `replaced-${tag}@example.com`;
  await store.insertIds(seeded(node(customer, `m-0-${tag}`)), [id('email', replaced)]);
  await store.replaceId(seeded(node(customer, `m-0-${tag}`)), id('email', replaced), id('email', `new-${tag}@example.com`), false);
  personal.push(replaced, `new-${tag}@example.com`);
  await store.rekey(seeded(node(customer, `m-1-${tag}`)), `rekeyed-${tag}`);
  personal.push(`rekeyed-${tag}`);
  const device = `tablet-${tag}`;
  await store.insertIds(seeded(node(customer, `m-2-${tag}`)), [id('device', device)]);
  const other = `other-${tag}`;
  await store.createNode(seeded(node(customer, other)), [id('device', device)]);

  const outcome = await store.erase({
    customerId: customer,
    id: id('email', shared),
    scope: 'person',
    unlinkedTypes: ['device'],
    maxNodes: 10_000,
    maxIds: 50_000,
    audit,
  });
  expect(outcome).toEqual({ nodesDeleted: 60, idsRemoved: 0 });

  const afterErase = diskBytes(file);
  const rows = allRows(file);
  for (const value of personal) {
    expect({ value, inRows: rows.includes(value), onDisk: afterErase.includes(Buffer.from(value)) }).toEqual({ value, inRows: false, onDisk: false });
  }
  // The search can find what is there: the other person and the device they still hold.
  for (const value of [other, device]) {
    expect({ value, inRows: rows.includes(value), onDisk: afterErase.includes(Buffer.from(value)) }).toEqual({ value, inRows: true, onDisk: true });
  }
  await store.close();

  const db = new Database(file);
  db.exec('VACUUM');
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  const afterVacuum = diskBytes(file);
  for (const value of personal) expect({ value, onDisk: afterVacuum.includes(Buffer.from(value)) }).toEqual({ value, onDisk: false });
  expect(afterVacuum.includes(Buffer.from(other))).toBe(true);
});
