// Property-based fuzzing of the whole HTTP surface with fast-check, from a fixed seed so that every run sends the
// same requests. Valid bodies of every endpoint are mutated (fields dropped or added, wrong types, huge strings,
// unicode, deep nesting, boundary numbers), paths and query strings are generated, and everything is sent with
// assorted credentials. For every answer: never a 5xx; every 4xx is a Problem; a refused request changes nothing.
// The identity protections get their own property: generated (and hostile) blocklist patterns, time zones and type
// options are put, then writes of long near-matches and of an ID at its holder limit meet them.
// History and erasure are part of the surface: _erase bodies are mutated like the others, and the history list gets
// generated query strings like the delivery list. What a request must not change includes every history entry of
// the nodes looked at, and what a search finds from the IDs a request names (an erase's ID among them); a successful
// erase, like any successful write, is free to change them. The app runs with TRAVERSAL_MAX_NODES 3, the size of
// acme's largest seeded person, so that an erase after a write joining that person is refused (422) and is checked.
// Showing deliveries is part of the surface: _eligible and _impression bodies are mutated like the others, and what a
// refused request must not change includes the impressions of the people looked at (the seeded people, and the
// person of the `user` a request names). A property of their own sends near-valid impressions and eligibility
// questions among writes that link and unlink people, and checks each answer against a model of what the run has
// counted (each ID's impressions by delivery and day, people found by search): an eligibility question counts
// nothing; a counted impression adds exactly one to its delivery (and its platform) and answers its person's counts;
// a 409 names the cap reached; a repeated idempotency key answers the first answer and counts nothing.
// Each run starts from the same seeded dataset, so a failing run replays (and shrinks) on its own.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import request from 'supertest';
import type { Response } from 'supertest';
import type { DeliveryDraft } from '../../src/domain/deliveries';
import type { IdPair, NodeAddress } from '../../src/domain/model';
import { hashToken } from '../../src/domain/tokens';
import { deliveryBody } from '../../src/http/delivery-bodies';
import { contractAjv, detach, loadContract } from '../../src/http/openapi';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store';
import type { TestStore as Store } from '../helpers/store';
import { ADMIN_TOKEN, startApp, type TestApp } from '../helpers/app';
import { contractProblems } from '../helpers/contract';
import { buildCondition, buildDelivery, buildDraft, type DeliveryAnswer as Delivery } from '../helpers/deliveries';
import { checkedPerson } from '../helpers/checked-showing';
import { seeded } from '../helpers/seeded';

const SEED = 20240611;
/**
 * Runs per property: together about 5,200 requests, some 65 s on two idle cores. The protections property took its
 * share from the other three, so that the file takes about as long as it did without it; so did history and
 * erasure (reading the history of the nodes looked at, before and after each refused request, costs about a tenth
 * more per request), from the paths and queries properties. Showing deliveries came on top: its property (about
 * 1,500 requests), and reading the impressions of the people looked at around every request (about a tenth more per
 * request in the others). Mutated bodies take the longest, so they run in SHARDS cases of their own seeds.
 */
const RUNS = { bodies: 850, paths: 650, queries: 650, protections: 300, showing: 200 };
/** Cases the bodies property is cut into, each of 1/SHARDS of its runs, from seed SEED + shard. */
const BODY_SHARDS = 4;
/**
 * Each case takes at most some 10 s on two idle cores, about twice that with the other core busy: a quarter of this.
 * fast-check stops a property between runs at the same limit, so a case that times out sends nothing afterwards.
 */
const TEST_TIMEOUT_MS = 120_000;

// ---- the seeded dataset, recreated for every run

const SECRETS = {
  acmeBearer: 'idl_bearer_fuzzAcmeBearerSecret0000000000000',
  acmeMapi: 'idl_mapi_fuzzAcmeMapiSecret00000000000000000',
  globexBearer: 'idl_bearer_fuzzGlobexBearerSecret00000000000',
  globexMapi: 'idl_mapi_fuzzGlobexMapiSecret000000000000000',
  revoked: 'idl_bearer_fuzzRevokedBearerSecret0000000000',
};

const memberTypes = [
  { type: 'member_id', secure: false },
  { type: 'device', secure: false },
  { type: 'cookie', secure: false },
  { type: 'email', secure: true },
];
/**
 * acme's member schema: device may be held by 3 nodes (d-1 has 2 holders, so one more write of it passes and the
 * next is holder_limit_reached), and ip links nothing.
 */
const acmeMemberTypes = [...memberTypes.map((t) => (t.type === 'device' ? { ...t, maxHolders: 3 } : t)), { type: 'ip', secure: false, links: false }];
/** The same declarations as a request body spells them. */
const acmeMemberBody = acmeMemberTypes.map(({ maxHolders, ...t }: { type: string; secure: boolean; links?: boolean; maxHolders?: number }) => ({
  ...t,
  ...(maxHolders !== undefined ? { max_holders: maxHolders } : {}),
}));
const id = (type: string, value: string): IdPair => ({ type, id: value });
/** The same pair as a JSON value to put into a request body. */
const pair = (type: string, value: string): Json => ({ type, id: value });

const SEEDED_NODES: Array<{ address: NodeAddress; ids: IdPair[] }> = [
  { address: { customerId: 'acme', schemaId: 'member', key: id('member_id', 'm-1') }, ids: [id('device', 'd-1'), id('email', 'one@example.com')] },
  { address: { customerId: 'acme', schemaId: 'member', key: id('member_id', 'm-2') }, ids: [id('device', 'd-1'), id('cookie', 'c-1')] },
  { address: { customerId: 'acme', schemaId: 'member', key: id('member_id', 'm-3') }, ids: [id('cookie', 'c-2')] },
  { address: { customerId: 'acme', schemaId: 'contact', key: id('email', 'one@example.com') }, ids: [id('device', 'd-9')] },
  // ssn is secure and held, so a schema that turns it off is secure_type_in_use.
  { address: { customerId: 'acme', schemaId: 'vault', key: id('ssn', 'ssn-1') }, ids: [] },
  { address: { customerId: 'globex', schemaId: 'member', key: id('member_id', 'm-1') }, ids: [id('device', 'd-1')] },
];
const SEEDED_CUSTOMERS = ['acme', 'globex'];

function draftOf(name: string): DeliveryDraft {
  return buildDraft({ name });
}

/** A fresh store holding the dataset, in `file`; returns it with the ids of acme's deliveries. */
async function seedStore(file: string): Promise<{ store: SqliteStore; acmeDeliveries: number[] }> {
  const store = new SqliteStore({ path: file });
  await store.putSchema('acme', { schemaId: 'member', idTypes: acmeMemberTypes });
  await store.putSchema('globex', { schemaId: 'member', idTypes: memberTypes });
  await store.putSchema('acme', {
    schemaId: 'contact',
    idTypes: [
      { type: 'email', secure: true },
      { type: 'device', secure: false, maxHolders: 3 },
    ],
  });
  await store.putSchema('acme', { schemaId: 'empty', idTypes: [{ type: 'member_id', secure: false }] });
  await store.putSchema('acme', { schemaId: 'vault', idTypes: [{ type: 'ssn', secure: true }] });
  // acme blocks some values (one rule is a pattern safe-regex2 does not see as hostile); globex requires a token.
  await store.putBlocklist('acme', [
    { type: 'device', values: ['d-blocked', '000000'], ignoreCase: true },
    { type: 'member_id', pattern: 'blocked-[0-9]+', ignoreCase: false },
    { type: 'cookie', pattern: '(a|a)*$', ignoreCase: false },
  ]);
  await store.putSettings('acme', { requireToken: false, timezone: 'Asia/Tokyo' });
  await store.putSettings('globex', { requireToken: true, timezone: 'UTC' });
  const tokens: Array<[string, string, 'bearer' | 'mapi', string]> = [
    ['tok_acme_bearer', 'acme', 'bearer', SECRETS.acmeBearer],
    ['tok_acme_mapi', 'acme', 'mapi', SECRETS.acmeMapi],
    ['tok_globex_bearer', 'globex', 'bearer', SECRETS.globexBearer],
    ['tok_globex_mapi', 'globex', 'mapi', SECRETS.globexMapi],
    ['tok_acme_revoked', 'acme', 'bearer', SECRETS.revoked],
  ];
  for (const [tokenId, customerId, kind, secret] of tokens) {
    await store.createToken({ tokenId, customerId, kind, label: 'seeded', createdAt: '2025-01-01T00:00:00.000Z', tokenHash: hashToken(secret) });
  }
  await store.revokeToken('acme', 'tok_acme_revoked');
  for (const node of SEEDED_NODES) await store.createNode(seeded(node.address), node.ids);
  const acmeDeliveries = [
    (await store.createDelivery('acme', draftOf('first'))).deliveryId,
    (await store.createDelivery('acme', draftOf('second'))).deliveryId,
  ];
  await store.createDelivery('globex', draftOf('globex only'));
  return { store, acmeDeliveries };
}

/**
 * The stores of the runs, each a copy of one seeded file: some 2,650 runs, and opening a copy costs less than making
 * the tables and writing the dataset each time (this file used 56 s of CPU where it used 66). In memory where the
 * machine has such a folder (/dev/shm), since no copy needs to outlive its run.
 */
const storesDir = fs.mkdtempSync(path.join(fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'idlink-fuzz-'));
afterAll(() => fs.rmSync(storesDir, { recursive: true, force: true }));
let seededFile: Promise<{ file: string; acmeDeliveries: number[] }> | undefined;
let copies = 0;

/** A fresh store holding the dataset, a copy of the seeded file; returns it with the ids of acme's deliveries. */
async function seededStore(): Promise<{ store: SqliteStore; acmeDeliveries: number[]; file: string }> {
  seededFile ??= (async () => {
    const file = path.join(storesDir, 'seeded.sqlite');
    const { store, acmeDeliveries } = await seedStore(file);
    // Closing moves every write from the write-ahead log into the file itself.
    await store.close();
    return { file, acmeDeliveries };
  })();
  const { file: seeded, acmeDeliveries } = await seededFile;
  const file = path.join(storesDir, `run-${(copies += 1)}.sqlite`);
  fs.copyFileSync(seeded, file);
  return { store: new SqliteStore({ path: file }), acmeDeliveries, file };
}

/** One Store whose backing store is replaced before every run (the app keeps the same object). */
function swappableStore(): { store: Store; swap: (next: Store, file: string) => Promise<void> } {
  let current: Store | undefined;
  let currentFile: string | undefined;
  const store = new Proxy({} as Store, {
    get: (_target, property) => {
      if (!current) throw new Error('no store yet');
      const value: unknown = Reflect.get(current, property);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(current) : value;
    },
  });
  return {
    store,
    swap: async (next, file) => {
      await current?.close();
      if (currentFile) for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${currentFile}${suffix}`, { force: true });
      current = next;
      currentFile = file;
    },
  };
}

// ---- what a refused request must not change

function isName(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9_.:-]{1,64}$/.test(value);
}

/**
 * Node addresses, IDs and customers a request names, so that a node it might have made or moved, and the person
 * holding an ID it might have erased, are looked at too.
 */
function addressesNamedBy(
  path: string,
  body: unknown,
): { customers: string[]; nodes: NodeAddress[]; ids: Array<{ customerId: string; id: IdPair }>; users: IdPair[] } {
  let customer: string | undefined;
  try {
    customer = decodeURIComponent(/^\/v1\/([^/?]+)/.exec(path)?.[1] ?? '');
  } catch {
    customer = undefined;
  }
  const customers = isName(customer) && customer !== 'delivery' ? [customer] : [];
  const nodes: NodeAddress[] = [];
  const ids: Array<{ customerId: string; id: IdPair }> = [];
  const b = body as {
    schema?: unknown;
    key?: { type?: unknown; id?: unknown };
    set?: { id?: unknown };
    id?: { type?: unknown; id?: unknown };
    user?: { type?: unknown; id?: unknown };
  } | null;
  if (
    b &&
    typeof b === 'object' &&
    typeof b.schema === 'string' &&
    b.key &&
    typeof b.key === 'object' &&
    typeof b.key.type === 'string' &&
    typeof b.key.id === 'string'
  ) {
    for (const customerId of customers) {
      nodes.push({ customerId, schemaId: b.schema, key: id(b.key.type, b.key.id) });
      if (b.set && typeof b.set === 'object' && typeof b.set.id === 'string') nodes.push({ customerId, schemaId: b.schema, key: id(b.key.type, b.set.id) });
    }
  }
  // An erase's ID.
  if (b && typeof b === 'object' && b.id && typeof b.id === 'object' && typeof b.id.type === 'string' && typeof b.id.id === 'string') {
    for (const customerId of customers) ids.push({ customerId, id: id(b.id.type, b.id.id) });
  }
  // The person an impression or an eligibility question names (of the customer of the mapi token: a seeded one).
  const users: IdPair[] = [];
  if (b && typeof b === 'object' && b.user && typeof b.user === 'object' && typeof b.user.type === 'string' && typeof b.user.id === 'string')
    users.push(id(b.user.type, b.user.id));
  return { customers, nodes, ids, users };
}

/** One ID of each seeded person (and an ID no node holds): their impressions are looked at around every request. */
const PERSON_PROBES: IdPair[] = [id('device', 'd-1'), id('member_id', 'm-3'), id('ssn', 'ssn-1'), id('member_id', 'm-1'), id('device', 'd-unheld')];
/** The day per-day counts are read for: the day of the seeded deliveries' `at`s. */
const PROBE_DAY = '2025-01-15';

/** The person of `user` (every linked ID, no traversal limit that matters): their impressions by delivery id, in all and on PROBE_DAY. */
async function impressionsOf(store: Store, customerId: string, user: IdPair, day = PROBE_DAY): Promise<Array<[number, { total: number; today: number }]>> {
  const { unlinkedTypes } = await store.customerPolicy(customerId);
  const state = await store.eligibility(checkedPerson({ customerId, user, unlinkedTypes: [...unlinkedTypes], maxNodes: 100000, maxIds: 100000 }, day));
  return [...state.person.entries()].sort(([a], [b]) => a - b);
}

/** What a search (step ALL, nothing hidden, no limit that matters) from the holders of `held` finds. */
async function linkedFrom(store: Store, customerId: string, held: IdPair): Promise<IdPair[]> {
  const linked = await store.searchWithTypes({
    customerId,
    where: { id: held },
    step: 'ALL',
    exclude: false,
    hiddenTypes: [],
    unlinkedTypes: [],
    limit: 100000,
    maxNodes: 100000,
    maxIds: 100000,
  });
  return linked.results;
}

/** Everything a client could observe of the customers, nodes and IDs involved, as one comparable value. */
async function observe(store: Store, named: ReturnType<typeof addressesNamedBy>): Promise<unknown> {
  const customers = [...new Set([...SEEDED_CUSTOMERS, ...named.customers])];
  const state: Record<string, unknown> = {};
  for (const customerId of customers) {
    state[`schemas ${customerId}`] = await store.listSchemas(customerId);
    const policy = await store.customerPolicy(customerId);
    state[`policy ${customerId}`] = { ...policy, secureTypes: [...policy.secureTypes].sort(), unlinkedTypes: [...policy.unlinkedTypes].sort() };
    state[`tokens ${customerId}`] = await store.listTokens(customerId);
    state[`deliveries ${customerId}`] = await store.listDeliveries(customerId, 0, 1000);
  }
  for (const address of [...SEEDED_NODES.map((n) => n.address), ...named.nodes]) {
    state[`node ${JSON.stringify(address)}`] = await store.getNodeIds(address);
    state[`history ${JSON.stringify(address)}`] = await store.nodeHistory(address.customerId, address.schemaId, address.key, 0, 1000);
  }
  for (const { address, ids } of SEEDED_NODES) {
    for (const held of [address.key, ...ids]) {
      state[`linked ${address.customerId} ${JSON.stringify(held)}`] = await linkedFrom(store, address.customerId, held);
    }
  }
  for (const { customerId, id: held } of named.ids) {
    state[`linked ${customerId} ${JSON.stringify(held)}`] = await linkedFrom(store, customerId, held);
  }
  for (const customerId of SEEDED_CUSTOMERS) {
    for (const user of [...PERSON_PROBES, ...named.users])
      state[`impressions ${customerId} ${JSON.stringify(user)}`] = await impressionsOf(store, customerId, user);
  }
  return state;
}

// ---- JSON values with a few things JSON.stringify cannot write (1e400, deep nesting, big integer literals)

/** JSON text sent as written; shown shortened in failure reports (fast-check's and ours). */
class RawJson {
  constructor(readonly text: string) {}
  toJSON(): string {
    return `<raw ${this.text.length > 40 ? `${this.text.slice(0, 40)}… (${this.text.length} characters)` : this.text}>`;
  }
  [fc.toStringMethod](): string {
    return this.toJSON();
  }
}

type Json = null | boolean | number | string | RawJson | Json[] | { [name: string]: Json };

function serialize(value: Json): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(serialize).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}:${serialize(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Sets an own property, even one called __proto__. */
function setOwn(target: { [name: string]: Json }, name: string, value: Json): void {
  Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
}

function clone(value: Json): Json {
  if (value instanceof RawJson || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(clone);
  const copy: { [name: string]: Json } = {};
  for (const [k, v] of Object.entries(value)) setOwn(copy, k, clone(v));
  return copy;
}

/** Every place in `root` a value sits: its container and key (the root itself is the first). */
function slots(root: Json): Array<{ parent: Json[] | { [name: string]: Json } | undefined; key: string | number; value: Json }> {
  const found: Array<{ parent: Json[] | { [name: string]: Json } | undefined; key: string | number; value: Json }> = [
    { parent: undefined, key: '', value: root },
  ];
  const walk = (value: Json) => {
    if (value instanceof RawJson || value === null || typeof value !== 'object') return;
    const entries: Array<[string | number, Json]> = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
    for (const [key, child] of entries) {
      found.push({ parent: value, key, value: child });
      walk(child);
    }
  };
  walk(root);
  return found;
}

type Mutation =
  | { kind: 'drop'; at: number }
  | { kind: 'add'; at: number; name: string; value: Json }
  | { kind: 'replace'; at: number; value: Json }
  | { kind: 'wrap in array'; at: number }
  | { kind: 'duplicate'; at: number };

/** Applies the mutations to a copy of `body`; generated values are copied in, never shared (fast-check reuses them). */
function mutate(body: Json, mutations: Mutation[]): Json {
  let root = clone(body);
  for (const m of mutations) {
    const all = slots(root);
    const slot = all[m.at % all.length]!;
    const put = (value: Json) => {
      if (slot.parent === undefined) root = value;
      else if (Array.isArray(slot.parent)) slot.parent[slot.key as number] = value;
      else setOwn(slot.parent, slot.key as string, value);
    };
    switch (m.kind) {
      case 'drop':
        if (Array.isArray(slot.parent)) slot.parent.splice(slot.key as number, 1);
        else if (slot.parent) delete slot.parent[slot.key as string];
        else root = null;
        break;
      case 'add':
        if (Array.isArray(slot.value)) slot.value.push(clone(m.value));
        else if (slot.value !== null && typeof slot.value === 'object' && !(slot.value instanceof RawJson)) setOwn(slot.value, m.name, clone(m.value));
        else put(clone(m.value));
        break;
      case 'replace':
        put(clone(m.value));
        break;
      case 'wrap in array':
        put([slot.value]);
        break;
      case 'duplicate':
        if (Array.isArray(slot.parent)) slot.parent.push(clone(slot.value));
        else put([slot.value, clone(slot.value)]);
        break;
    }
  }
  return root;
}

// ---- arbitraries

const NUMBERS: Json[] = [0, -0, 1, -1, 0.5, 1.5, 100, 101, 2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 53 - 1, 2 ** 53, -(2 ** 53), 1e21, -1e21, 1e308, -1e308, 5e-324];
const RAW_NUMBERS = ['1e400', '-1e400', '9007199254740993', '123456789012345678901234567890', '1.0', '1E2', '-0.0', '0.0000001'].map((t) => new RawJson(t));
const WORDS: Json[] = [
  '',
  ' ',
  '0',
  '1',
  'true',
  'null',
  'delivery',
  'ONE',
  'ALL',
  'bearer',
  'mapi',
  'admin',
  'member',
  'contact',
  'member_id',
  'email',
  'device',
  'cookie',
  'm-1',
  'd-1',
  'one@example.com',
];
/** Words of showing deliveries: platforms, the seeded trigger event, an idempotency key. */
const SHOWING_WORDS: Json[] = ['ios', 'android', 'other', 'IOS', 'app_open', 'k-1', 'k'.repeat(128), 'k'.repeat(129)];
/** Values acme's blocklist blocks, and names of the protections. */
const PROTECTION_WORDS: Json[] = [
  'd-blocked',
  'D-BLOCKED',
  'blocked-1',
  'aaaa',
  'ip',
  '10.0.0.1',
  'ssn',
  'vault',
  'rules',
  'values',
  'pattern',
  'UTC',
  'Asia/Tokyo',
];
/** Time-zone names and things that look like them: unknown ones, odd spellings, offsets, aliases. */
const TIME_ZONES: Json[] = [
  'UTC',
  'utc',
  'Asia/Tokyo',
  'europe/berlin',
  'Mars/Olympus',
  'Etc/GMT+5',
  'GMT+1',
  'UTC-05:00',
  '+09:00',
  'Z',
  'America/Argentina/ComodRivadavia',
  'US/Pacific-New',
  'Factory',
  'localtime',
  'posixrules',
  'EST5EDT',
  'Asia/Kolkata',
  'asia/kolkata',
  '../etc/passwd',
  'a'.repeat(64),
  'a'.repeat(65),
];
/** Patterns that could stall a backtracking engine, that RE2 cannot compile, or that are barely patterns at all. */
const HOSTILE_PATTERNS: Json[] = [
  '(a+)+$',
  '(a|a)*$',
  '(a|aa)*$',
  '(a*)*b',
  '(.*a){20}',
  '([a-z]+)*$',
  '(\\w+\\s?)*$',
  '^(a?){30}a{30}$',
  '(?i)abc',
  '(a)\\1',
  '(?=a)a',
  '(?!a)b',
  '(?<=a)b',
  '(?P<name>a)',
  '\\p{Greek}+',
  '\\C',
  '[[:alpha:]]+',
  '[',
  '(',
  '*',
  'a{1001}',
  'a{2,1}',
  '\\',
  '\\Q*\\E',
  '(?s).',
  '.*'.repeat(30),
  'a'.repeat(201),
  '😀+',
  '\u0000',
];
const AWKWARD_STRINGS: Json[] = [
  '\ud800',
  'a\udfffb',
  '\u0000',
  'nul\u0000byte',
  '\u200b',
  '\ufeffbom',
  'e\u0301',
  '😀'.repeat(600),
  'Ω≈ç√∫',
  '../../etc/passwd',
  "'; DROP TABLE nodes; --",
  'MATCH (n) DETACH DELETE n',
  '{"nested":"json"}',
  '%00',
  '%zz',
];
const DATES: Json[] = [
  '2025-01-01T00:00:00Z',
  '2025-01-01T00:00:00',
  '2025-13-01T00:00:00Z',
  '2025-02-30T00:00:00Z',
  '2025-01-01T24:00:00Z',
  '2016-12-31T23:59:60Z',
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59+14:00',
  '2025-01-01T00:00:00+99:99',
  '2025-01-01',
  '1735689600',
];
const URLS: Json[] = [
  'javascript:alert(1)',
  'http://',
  'not a url',
  'https://例え.jp/パス',
  'mailto:a@b.c',
  `https://e.com/${'a'.repeat(2100)}`,
  '//no-scheme.example',
];
const ID_PAIRS: Json[] = [
  pair('member_id', 'm-1'),
  pair('member_id', 'm-2'),
  pair('member_id', 'm-9'),
  pair('device', 'd-1'),
  pair('cookie', 'c-1'),
  pair('email', 'one@example.com'),
  pair('unknown_type', 'x'),
];

const hugeString = fc.constantFrom(65, 1025, 2084, 10_000, 100_000, 1_100_000).map((n) => new RawJson(JSON.stringify('x'.repeat(n))));
const deeplyNested = fc
  .constantFrom(64, 1000, 5000)
  .chain((depth) => fc.constantFrom(new RawJson(`${'['.repeat(depth)}${']'.repeat(depth)}`), new RawJson(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`)));
const jsonLeaf: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>(null, true, false, ...NUMBERS),
  fc.constantFrom<Json>(...RAW_NUMBERS),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom<Json>(...WORDS, ...AWKWARD_STRINGS, ...DATES, ...URLS),
  fc.constantFrom<Json>(...PROTECTION_WORDS, ...TIME_ZONES, ...HOSTILE_PATTERNS),
  fc.constantFrom<Json>(...SHOWING_WORDS),
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
);
const weirdValue: fc.Arbitrary<Json> = fc.oneof(
  { weight: 6, arbitrary: jsonLeaf },
  { weight: 1, arbitrary: hugeString },
  { weight: 1, arbitrary: deeplyNested },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json> },
  { weight: 2, arbitrary: fc.constantFrom<Json>({}, [], [null], [{}], ...ID_PAIRS) },
  { weight: 1, arbitrary: fc.array(fc.constantFrom(...ID_PAIRS), { maxLength: 5 }) },
  { weight: 1, arbitrary: fc.constantFrom(1001, 1100).map((n) => Array.from({ length: n }, (_, i) => pair('device', `bulk-${i}`))) },
  // Past the blocklist's bounds: 1,001 values, 101 rules.
  {
    weight: 1,
    arbitrary: fc.constantFrom<Json>(
      Array.from({ length: 1001 }, (_, i) => `v-${i}`),
      Array.from({ length: 101 }, (_, i) => ({ type: 'device', values: [`v-${i}`] })),
    ),
  },
);
const fieldName = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'hasOwnProperty',
    '',
    'foo',
    'schema',
    'key',
    'ids',
    'set',
    'where',
    'limit',
    'id',
    'type',
    'secure',
  ),
  fc.constantFrom('kind', 'label', 'delivery_id', 'message_id', 'condition_id', 'delivery_count', 'match', 'from', 'step', 'having', 'exclude'),
  fc.constantFrom('links', 'max_holders', 'rules', 'values', 'pattern', 'ignore_case', 'require_token', 'timezone'),
  fc.constantFrom('user', 'event_name', 'platform', 'at', 'segments', 'explain', 'idempotency_key'),
  fc.string({ maxLength: 10 }),
);
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('drop' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('add' as const), at: fc.nat(), name: fieldName, value: weirdValue }),
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), value: weirdValue }) },
  fc.record({ kind: fc.constant('wrap in array' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('duplicate' as const), at: fc.nat() }),
);

interface Credential {
  name: string;
  headers: Record<string, string>;
}

const CREDENTIALS: Credential[] = [
  { name: 'none', headers: {} },
  { name: 'admin', headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } },
  { name: 'acme bearer', headers: { Authorization: `Bearer ${SECRETS.acmeBearer}` } },
  { name: 'globex bearer', headers: { Authorization: `Bearer ${SECRETS.globexBearer}` } },
  { name: 'acme mapi', headers: { 'X-SERVICE-MAPI-TOKEN': SECRETS.acmeMapi } },
  { name: 'globex mapi', headers: { 'X-SERVICE-MAPI-TOKEN': SECRETS.globexMapi } },
  { name: 'acme bearer and mapi', headers: { Authorization: `Bearer ${SECRETS.acmeBearer}`, 'X-SERVICE-MAPI-TOKEN': SECRETS.acmeMapi } },
  { name: 'mapi secret as bearer', headers: { Authorization: `Bearer ${SECRETS.acmeMapi}` } },
  { name: 'bearer secret as mapi', headers: { 'X-SERVICE-MAPI-TOKEN': SECRETS.acmeBearer } },
  { name: 'admin as mapi', headers: { 'X-SERVICE-MAPI-TOKEN': ADMIN_TOKEN } },
  { name: 'revoked bearer', headers: { Authorization: `Bearer ${SECRETS.revoked}` } },
  { name: 'unknown well-formed', headers: { Authorization: 'Bearer idl_bearer_neverIssuedSecret0000000000000000' } },
  { name: 'garbage bearer', headers: { Authorization: 'Bearer !!not a token!!' } },
  { name: 'empty bearer', headers: { Authorization: 'Bearer ' } },
  { name: 'basic', headers: { Authorization: 'Basic dXNlcjpwYXNz' } },
  { name: 'lower-case scheme', headers: { Authorization: `bearer ${SECRETS.acmeBearer}` } },
  { name: 'garbage mapi', headers: { 'X-SERVICE-MAPI-TOKEN': 'short' } },
];
const printableHeader = fc.string({ unit: 'grapheme-ascii', maxLength: 300 }).map((s) => s.replace(/[^\x20-\x7e]/g, '').trim());
const credential: fc.Arbitrary<Credential> = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...CREDENTIALS) },
  { weight: 1, arbitrary: printableHeader.map((v) => ({ name: 'generated Authorization', headers: { Authorization: v } })) },
  { weight: 1, arbitrary: printableHeader.map((v) => ({ name: 'generated mapi', headers: { 'X-SERVICE-MAPI-TOKEN': v } })) },
);

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'HEAD' | 'OPTIONS';

interface Endpoint {
  name: string;
  method: Method;
  /** `{customer}` and `{delivery}` are filled in per request. */
  path: string;
  body?: Json;
  /**
   * Who normally calls it: half the requests to it carry such a credential, so that they get past authentication.
   * 'customer': always a bearer token of the customer or the administrator (history and erasure).
   */
  caller: 'identity' | 'customer' | 'admin' | 'mapi' | 'anyone';
}

const key = (value: string): Json => ({ type: 'member_id', id: value });
const asJson = (value: unknown): Json => JSON.parse(JSON.stringify(value)) as Json;
const BODY_ENDPOINTS: Endpoint[] = [
  {
    name: 'create',
    method: 'POST',
    path: '/v1/{customer}/node/_create',
    body: { schema: 'member', key: key('m-new'), ids: [pair('device', 'd-1'), pair('email', 'new@example.com')] },
    caller: 'identity',
  },
  {
    name: 'insert',
    method: 'POST',
    path: '/v1/{customer}/node/_insert',
    body: { schema: 'member', key: key('m-3'), ids: [pair('device', 'd-1')] },
    caller: 'identity',
  },
  {
    name: 'update',
    method: 'POST',
    path: '/v1/{customer}/node/_update',
    body: { schema: 'member', key: key('m-1'), where: pair('device', 'd-1'), set: pair('device', 'd-2') },
    caller: 'identity',
  },
  {
    name: 'upsert',
    method: 'POST',
    path: '/v1/{customer}/node/_upsert',
    body: { schema: 'member', key: key('m-2'), where: pair('cookie', 'c-9'), set: pair('cookie', 'c-3') },
    caller: 'identity',
  },
  {
    name: 'rekeying',
    method: 'POST',
    path: '/v1/{customer}/node/_rekeying',
    body: { schema: 'member', key: key('m-1'), set: { id: 'm-10' } },
    caller: 'identity',
  },
  {
    name: 'delete ID',
    method: 'POST',
    path: '/v1/{customer}/node/_delete',
    body: { schema: 'member', key: key('m-2'), where: pair('cookie', 'c-1') },
    caller: 'identity',
  },
  { name: 'delete node', method: 'POST', path: '/v1/{customer}/node/_delete', body: { schema: 'member', key: key('m-3') }, caller: 'identity' },
  {
    name: 'search by key',
    method: 'POST',
    path: '/v1/{customer}/_search',
    body: { match: { from: { schema: 'member', key: key('m-1'), exclude: true }, step: 'ONE', having: { type: 'device' } }, limit: 10 },
    caller: 'identity',
  },
  {
    name: 'search by where',
    method: 'POST',
    path: '/v1/{customer}/_search',
    body: { match: { from: { where: pair('email', 'one@example.com') } } },
    caller: 'identity',
  },
  {
    name: 'graph by key',
    method: 'POST',
    path: '/v1/{customer}/_graph',
    body: { match: { from: { schema: 'member', key: key('m-1'), exclude: true }, step: 'ONE' }, max_nodes: 2 },
    caller: 'identity',
  },
  {
    name: 'graph by where',
    method: 'POST',
    path: '/v1/{customer}/_graph',
    body: { match: { from: { where: pair('email', 'one@example.com') } }, max_nodes: 500 },
    caller: 'identity',
  },
  // m-3's cookie: m-3 loses it. d-1's person (m-1, m-2 and the contact, linked by the email): 3 nodes, as many as
  // TRAVERSAL_MAX_NODES allows, so a create that joins it first makes this erase 422.
  { name: 'erase ID', method: 'POST', path: '/v1/{customer}/_erase', body: { id: pair('cookie', 'c-2') }, caller: 'customer' },
  { name: 'erase person', method: 'POST', path: '/v1/{customer}/_erase', body: { id: pair('device', 'd-1'), scope: 'person' }, caller: 'customer' },
  { name: 'schema PUT', method: 'PUT', path: '/v1/{customer}/schema/member', body: { id_types: asJson(acmeMemberBody) }, caller: 'admin' },
  {
    name: 'new schema PUT',
    method: 'PUT',
    path: '/v1/{customer}/schema/fresh',
    body: { id_types: [{ type: 'member_id' }, { type: 'phone', secure: true, max_holders: 1000000 }, { type: 'ip', links: false }] },
    caller: 'admin',
  },
  { name: 'settings PUT', method: 'PUT', path: '/v1/{customer}/settings', body: { require_token: false, timezone: 'Europe/Berlin' }, caller: 'admin' },
  {
    name: 'blocklist PUT',
    method: 'PUT',
    path: '/v1/{customer}/blocklist',
    body: {
      rules: [
        { type: 'email', values: ['test@test.com', 'none@none'], ignore_case: true },
        { type: 'device', pattern: '^0+$' },
      ],
    },
    caller: 'admin',
  },
  { name: 'token POST', method: 'POST', path: '/v1/{customer}/token', body: { kind: 'bearer', label: 'fuzz' }, caller: 'admin' },
  { name: 'delivery POST', method: 'POST', path: '/v1/delivery', body: asJson(buildDelivery()), caller: 'mapi' },
  { name: 'delivery PUT', method: 'PUT', path: '/v1/delivery/{delivery}', body: asJson(buildDelivery({ name: 'replaced' })), caller: 'mapi' },
  // d-9's person is the contact, m-1 and m-2: as many nodes as TRAVERSAL_MAX_NODES allows, until a write joins it.
  {
    name: 'eligible',
    method: 'POST',
    path: '/v1/delivery/_eligible',
    body: { user: pair('member_id', 'm-1'), event_name: 'app_open', platform: 'ios', at: '2025-01-15T09:00:00+09:00', segments: [7], explain: true },
    caller: 'mapi',
  },
  {
    name: 'impression',
    method: 'POST',
    path: '/v1/delivery/{delivery}/_impression',
    body: { user: pair('device', 'd-9'), platform: 'android', at: '2025-01-15T09:00:05+09:00', idempotency_key: 'k-1' },
    caller: 'mapi',
  },
];
const BODILESS_ENDPOINTS: Endpoint[] = [
  { name: 'schema list', method: 'GET', path: '/v1/{customer}/schema', caller: 'admin' },
  { name: 'schema GET', method: 'GET', path: '/v1/{customer}/schema/member', caller: 'admin' },
  { name: 'schema DELETE', method: 'DELETE', path: '/v1/{customer}/schema/empty', caller: 'admin' },
  { name: 'token list', method: 'GET', path: '/v1/{customer}/token', caller: 'admin' },
  { name: 'token DELETE', method: 'DELETE', path: '/v1/{customer}/token/tok_acme_bearer', caller: 'admin' },
  { name: 'settings GET', method: 'GET', path: '/v1/{customer}/settings', caller: 'admin' },
  { name: 'blocklist GET', method: 'GET', path: '/v1/{customer}/blocklist', caller: 'admin' },
  { name: 'node history', method: 'GET', path: '/v1/{customer}/node/_history?schema=member&key_type=member_id&key_id=m-1', caller: 'customer' },
  { name: 'delivery list', method: 'GET', path: '/v1/delivery', caller: 'mapi' },
  { name: 'delivery GET', method: 'GET', path: '/v1/delivery/{delivery}', caller: 'mapi' },
  { name: 'delivery DELETE', method: 'DELETE', path: '/v1/delivery/{delivery}', caller: 'mapi' },
  { name: 'health', method: 'GET', path: '/healthz', caller: 'anyone' },
  { name: 'readiness', method: 'GET', path: '/readyz', caller: 'anyone' },
  { name: 'explorer', method: 'GET', path: '/explore', caller: 'anyone' },
];

const customerSegment = fc.constantFrom('acme', 'acme', 'acme', 'globex', 'nobody');

interface FuzzRequest {
  method: Method;
  path: string;
  credential: Credential;
  /** JSON to send, or raw text with its content type. */
  body?: { json: Json } | { raw: string; contentType: string };
  /** Whether `path` is one of the contract's templates filled in (so the contract check applies). */
  canonical: boolean;
}

const RAW_BODIES = [
  '',
  '{',
  'null',
  '[]',
  '"text"',
  '{"a":1}{"b":2}',
  '{"schema":"member",}',
  '\u0000',
  'not json',
  '{"a":1e400}',
  "{'single':'quotes'}",
  'NaN',
  '<xml/>',
];
const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/merge-patch+json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
];
const rawBody = fc.record({
  raw: fc.oneof(fc.constantFrom(...RAW_BODIES), fc.string({ maxLength: 50 })),
  contentType: fc.constantFrom(...CONTENT_TYPES),
});

const SUITED: Record<Endpoint['caller'], Credential[]> = {
  identity: CREDENTIALS.filter((c) => ['none', 'admin', 'acme bearer'].includes(c.name)),
  customer: CREDENTIALS.filter((c) => ['admin', 'acme bearer'].includes(c.name)),
  admin: CREDENTIALS.filter((c) => c.name === 'admin'),
  mapi: CREDENTIALS.filter((c) => c.name === 'acme mapi'),
  anyone: CREDENTIALS.filter((c) => c.name === 'none'),
};
const credentialFor = (endpoint: Endpoint): fc.Arbitrary<Credential> => fc.oneof(fc.constantFrom(...SUITED[endpoint.caller]), credential);

const bodyRequest: fc.Arbitrary<FuzzRequest> = fc
  .constantFrom(...BODY_ENDPOINTS)
  .chain((endpoint) =>
    fc.record({
      endpoint: fc.constant(endpoint),
      customer: customerSegment,
      mutations: fc.array(mutation, { maxLength: 4 }),
      credential: credentialFor(endpoint),
      raw: fc.oneof({ weight: 7, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: rawBody }),
    }),
  )
  .map(({ endpoint, customer, mutations, credential: cred, raw }) => ({
    method: endpoint.method,
    path: endpoint.path.replace('{customer}', customer),
    credential: cred,
    body: raw ?? { json: mutate(endpoint.body as Json, mutations) },
    canonical: true,
  }));

const SEGMENTS = [
  'v1',
  'acme',
  'globex',
  'delivery',
  'node',
  '_create',
  '_insert',
  '_search',
  '_delete',
  '_erase',
  '_history',
  'schema',
  'token',
  'member',
  'healthz',
  'docs',
  'metrics',
  '1',
  '0',
  '-1',
  '1.5',
  '999999999999999999999',
  '9007199254740993',
  '..',
  '.',
  '',
  '%2e%2e',
  '%2F',
  '%2f',
  '%00',
  '%',
  '%zz',
  '%C0%AF',
  '%E2%82%AC',
  '%F0%9F%98%80',
  '%ED%A0%80',
  ';',
  '~',
  '*',
  ':customer_id',
  '%3F',
  '%23',
  'DELIVERY',
  'V1',
  'delivery%00',
  'a'.repeat(65),
  'a'.repeat(300),
  '1'.repeat(400),
];
const segment = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...SEGMENTS) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 12 }).map(encodeURIComponent) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 8 }).map(encodeURIComponent) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 8 }).map(encodeURIComponent) },
);
const METHODS: Method[] = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'];
const ALL_ENDPOINTS = [...BODY_ENDPOINTS, ...BODILESS_ENDPOINTS];

const generatedPath = fc.oneof(
  fc.array(segment, { maxLength: 8 }).map((segments) => `/${segments.join('/')}`),
  // A real endpoint with one segment replaced.
  fc.record({ endpoint: fc.constantFrom(...ALL_ENDPOINTS), at: fc.nat(), replacement: segment }).map(({ endpoint, at, replacement }) => {
    const parts = endpoint.path.replace('{customer}', 'acme').replace('{delivery}', '1').split('/');
    parts[1 + (at % (parts.length - 1))] = replacement;
    return parts.join('/');
  }),
  fc.constantFrom(65, 1000, 8000).map((n) => `/v1/${'a'.repeat(n)}/schema`),
  fc.constantFrom(100, 1000).map((n) => `/v1/acme/schema/${'%F0%9F%98%80'.repeat(n)}`),
);
const pathRequest: fc.Arbitrary<FuzzRequest> = fc
  .record({
    method: fc.constantFrom(...METHODS),
    path: generatedPath,
    credential,
    body: fc.option(
      fc.constantFrom(...BODY_ENDPOINTS).map((e) => ({ json: e.body as Json })),
      { freq: 2 },
    ),
  })
  // Node's HTTP client cannot frame a HEAD body (the server sees stray bytes after the request), so HEAD goes without one.
  .map(({ method, path, credential: cred, body }) => ({ method, path, credential: cred, ...(body && method !== 'HEAD' ? { body } : {}), canonical: false }));

const QUERY_NAMES = [
  'count',
  'page',
  'limit',
  'foo',
  'count[]',
  'page[0]',
  'count[a]',
  '__proto__',
  'constructor',
  '',
  'x'.repeat(500),
  'schema',
  'key_type',
  'key_id',
  'key_id[]',
];
const QUERY_VALUES = [
  '',
  '0',
  '1',
  '2',
  '20',
  '100',
  '101',
  '-1',
  '1.5',
  '1e2',
  'abc',
  '%201',
  '1%20',
  '0x10',
  'Infinity',
  'NaN',
  'null',
  'true',
  '[]',
  '9007199254740993',
  '%00',
  '%',
  '%zz',
  '%F0%9F%98%80',
  '1'.repeat(400),
];
const queryPair = fc.oneof(
  fc.tuple(
    fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...QUERY_NAMES) }, { weight: 1, arbitrary: fc.string({ maxLength: 8 }).map(encodeURIComponent) }),
    fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...QUERY_VALUES) },
      { weight: 1, arbitrary: fc.integer().map(String) },
      { weight: 1, arbitrary: fc.string({ maxLength: 10 }).map(encodeURIComponent) },
    ),
    fc.boolean(),
  ),
  // Valid paging, so that some lists get past validation.
  fc.tuple(fc.constant('count'), fc.integer({ min: 1, max: 100 }).map(String), fc.constant(true)),
  fc.tuple(fc.constant('page'), fc.integer({ min: 1, max: 4 }).map(String), fc.constant(true)),
);
const queryString = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .array(queryPair, { minLength: 1, maxLength: 4 })
      .map((pairs) => `?${pairs.map(([n, v, withValue]) => (withValue ? `${n}=${v}` : n)).join('&')}`),
  },
  { weight: 1, arbitrary: fc.constantFrom('?', '?&&&', '?=1', '?count', '?count=1&count=2', '?page=1&page=2', `?count=${'9'.repeat(5000)}`) },
);
/** The history list's query without the parameters that name the key, for queries that leave some of them out. */
const HISTORY_KEY_QUERIES = [
  '',
  '?schema=member',
  '?key_type=member_id&key_id=m-1',
  '?schema=member&key_type=member_id',
  '?schema=member&key_type=device&key_id=d-1',
  '?schema=contact&key_type=email&key_id=one%40example.com',
];
const historyList = BODILESS_ENDPOINTS.find((e) => e.name === 'node history')!;
const queryRequest: fc.Arbitrary<FuzzRequest> = fc
  .oneof(
    { weight: 3, arbitrary: fc.constant(BODILESS_ENDPOINTS.find((e) => e.name === 'delivery list')!) },
    { weight: 1, arbitrary: fc.constant(historyList) },
    { weight: 1, arbitrary: fc.constantFrom(...HISTORY_KEY_QUERIES).map((q): Endpoint => ({ ...historyList, path: `${historyList.path.split('?')[0]}${q}` })) },
    { weight: 3, arbitrary: fc.constantFrom(...ALL_ENDPOINTS) },
  )
  .chain((endpoint) => fc.record({ endpoint: fc.constant(endpoint), customer: customerSegment, query: queryString, credential: credentialFor(endpoint) }))
  .map(({ endpoint, customer, query, credential: cred }) => ({
    method: endpoint.method,
    // A path with a query of its own (the history list's key) gets the generated parameters after it.
    path: `${endpoint.path.replace('{customer}', customer)}${endpoint.path.includes('?') ? query.replace(/^\?/, '&') : query}`,
    credential: cred,
    ...(endpoint.body !== undefined ? { body: { json: endpoint.body } } : {}),
    // The health endpoints document no 400, though an unknown query field gets one (see the report).
    canonical: endpoint.path.startsWith('/v1/'),
  }));

// ---- the identity protections: rules, settings and type options put, then writes that meet them

const REGEX_PIECES = [
  'a',
  'b',
  '0',
  '.',
  '*',
  '+',
  '?',
  '*?',
  '|',
  '(',
  ')',
  '(?:',
  '[',
  ']',
  '[^',
  '{2}',
  '{1,}',
  '{0,1000}',
  '^',
  '$',
  '\\',
  '\\d',
  '\\w',
  '\\s',
  '\\b',
  '\\1',
  '-',
  'é',
  '😀',
];
const generatedPattern: fc.Arbitrary<Json> = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_PATTERNS) },
  { weight: 3, arbitrary: fc.array(fc.constantFrom(...REGEX_PIECES), { maxLength: 30 }).map((pieces) => pieces.join('')) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
);
/** Values to write once a rule is in place: long near-matches of the hostile patterns, the hot d-1, blocked values. */
const probeValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(`${'a'.repeat(49)}b`, `${'a'.repeat(999)}b`, `${'a'.repeat(1023)}!`, 'a'.repeat(1024), '0'.repeat(1024), `${'ab'.repeat(511)}c`),
  fc.constantFrom('d-1', 'd-blocked', 'D-Blocked', '000000', 'blocked-7', '10.0.0.1', 'c-2'),
  fc.string({ minLength: 1, maxLength: 30 }),
);
const probeType = fc.constantFrom('device', 'cookie', 'member_id', 'ip', 'email');
/** An ID to write: often one that meets acme's seeded rules (blocked, or d-1 at its holder limit), else any. */
const probe: fc.Arbitrary<{ type: string; id: string }> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      { type: 'device', id: 'D-Blocked' },
      { type: 'device', id: 'd-1' },
      { type: 'member_id', id: 'blocked-7' },
      { type: 'cookie', id: 'a'.repeat(1024) },
      { type: 'cookie', id: `${'a'.repeat(1023)}b` },
    ),
  },
  { weight: 3, arbitrary: fc.record({ type: probeType, id: probeValue }) },
);
const generatedRule: fc.Arbitrary<Json> = fc.oneof(
  fc.record({ type: probeType, pattern: generatedPattern, ignore_case: fc.boolean() }),
  fc.record({ type: probeType, values: fc.array(probeValue, { minLength: 1, maxLength: 3 }) }),
);
/** Type options, valid and not, for acme's member schema. */
const typeOptions = fc.record(
  {
    links: fc.constantFrom<Json>(true, false, 'no', 0, null),
    max_holders: fc.constantFrom<Json>(1, 2, 3, 1000000, 0, 1000001, 1.5, '5', -1, null),
    secure: fc.boolean(),
  },
  { requiredKeys: [] },
);

/** A write of `written` into acme's seeded nodes: a new node, m-3's IDs, m-2's upsert, or m-3's new key. */
function probeWriteBody(op: 'create' | 'insert' | 'upsert' | 'rekeying', written: { type: string; id: string }): Json {
  switch (op) {
    case 'create':
      return { schema: 'member', key: key('m-probe'), ids: [written] };
    case 'insert':
      return { schema: 'member', key: key('m-3'), ids: [written] };
    case 'upsert':
      return { schema: 'member', key: key('m-2'), where: pair('cookie', 'c-9'), set: written };
    case 'rekeying':
      return { schema: 'member', key: key('m-3'), set: { id: written.id } };
  }
}

/** Mostly the credential the caller needs, so that most requests reach the protections; sometimes any. */
const adminOr = (caller: Endpoint['caller']): fc.Arbitrary<Credential> =>
  fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...SUITED[caller]) }, { weight: 1, arbitrary: credential });
const protectionBody: fc.Arbitrary<{ method: Method; path: string; body: Json; credential: Credential }> = fc.oneof(
  fc.record({ rules: fc.array(generatedRule, { maxLength: 3 }), credential: adminOr('admin') }).map(({ rules, credential: cred }) => ({
    method: 'PUT' as const,
    path: '/v1/acme/blocklist',
    body: { rules },
    credential: cred,
  })),
  fc
    .record({
      require_token: fc.option(fc.boolean(), { nil: undefined }),
      timezone: fc.option(fc.oneof(fc.constantFrom(...TIME_ZONES), fc.string({ maxLength: 20 })), { nil: undefined }),
      credential: adminOr('admin'),
    })
    .map(({ credential: cred, ...settings }) => ({
      method: 'PUT' as const,
      path: '/v1/acme/settings',
      body: Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined)) as Json,
      credential: cred,
    })),
  // acme's member schema with the options of one type changed (email with secure off is a secure_flag_conflict with
  // contact), and vault's, where ssn with secure off is secure_type_in_use.
  fc
    .record({ type: fc.constantFrom('device', 'ip', 'email', 'cookie'), options: typeOptions, credential: adminOr('admin') })
    .map(({ type, options, credential: cred }) => ({
      method: 'PUT' as const,
      path: '/v1/acme/schema/member',
      body: { id_types: acmeMemberBody.map((t) => (t.type === type ? { type, ...options } : t)) },
      credential: cred,
    })),
  fc.record({ options: typeOptions, credential: adminOr('admin') }).map(({ options, credential: cred }) => ({
    method: 'PUT' as const,
    path: '/v1/acme/schema/vault',
    body: { id_types: [{ type: 'ssn', ...options }] },
    credential: cred,
  })),
  // The writes the rules and options are for.
  fc
    .record({
      op: fc.constantFrom('create' as const, 'insert' as const, 'upsert' as const, 'rekeying' as const),
      written: probe,
      credential: adminOr('identity'),
    })
    .map(({ op, written, credential: cred }) => ({
      method: 'POST' as const,
      path: `/v1/acme/node/_${op}`,
      body: probeWriteBody(op, written),
      credential: cred,
    })),
);
const protectionRequest: fc.Arbitrary<FuzzRequest> = protectionBody.map(({ method, path, body, credential: cred }) => ({
  method,
  path,
  credential: cred,
  body: { json: body },
  canonical: true,
}));

// ---- showing deliveries: near-valid impressions and eligibility questions, among writes that move people

/**
 * acme's people: d-1's (m-1, m-2 and the contact, which holds d-9: three nodes, as many as TRAVERSAL_MAX_NODES
 * allows), m-3's (c-2), and IDs no node holds. ip never links.
 */
const SHOWING_USERS: Json[] = [
  pair('member_id', 'm-1'),
  pair('member_id', 'm-2'),
  pair('member_id', 'm-3'),
  pair('device', 'd-1'),
  pair('device', 'd-9'),
  pair('cookie', 'c-2'),
  pair('email', 'one@example.com'),
  pair('ip', '10.0.0.1'),
  pair('device', 'd-unheld'),
];
/** In acme's time zone (Asia/Tokyo): the 15th twice, the 16th twice (15:00Z is already the 16th), the 14th; then outside the period, a leap second, no offset. */
const SHOWING_ATS: Json[] = [
  '2025-01-15T09:00:00+09:00',
  '2025-01-15T23:59:59+09:00',
  '2025-01-15T15:00:00Z',
  '2025-01-16T00:00:00+09:00',
  '2025-01-14T14:59:59Z',
  '2025-02-01T00:00:00Z',
  '2016-12-31T23:59:60Z',
  '2025-01-15T00:00:00',
];
const acmeMapi = CREDENTIALS.find((c) => c.name === 'acme mapi')!;
const admin = CREDENTIALS.find((c) => c.name === 'admin')!;
const showingCredential: fc.Arbitrary<Credential> = fc.oneof(
  { weight: 12, arbitrary: fc.constant(acmeMapi) },
  { weight: 1, arbitrary: fc.constantFrom(...CREDENTIALS.filter((c) => c.name === 'globex mapi')) },
  { weight: 1, arbitrary: credential },
);
/** Optional fields are left out at random (never sent as undefined). */
/** Mostly one of `valid`, sometimes one of `invalid`. */
const mostly = (valid: Json[], invalid: Json[]): fc.Arbitrary<Json> =>
  fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...valid) }, { weight: 1, arbitrary: fc.constantFrom(...invalid) });
/** The 15th in Tokyo three times out of eight, so that per-day caps are met. */
const VALID_ATS = [SHOWING_ATS[0]!, SHOWING_ATS[0]!, SHOWING_ATS[1]!, ...SHOWING_ATS.slice(0, 6)];
const INVALID_ATS = SHOWING_ATS.slice(6);
/** An idempotency key one time in three, so that most impressions count. */
const idempotencyKey = fc.oneof(
  { weight: 2, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: mostly(['k-1', 'k-2', 'k-3'], ['', 'k'.repeat(129)]) },
);
const impressionBody: fc.Arbitrary<Json> = fc
  .record({
    fields: fc.record(
      {
        user: fc.constantFrom(...SHOWING_USERS),
        platform: mostly(['ios', 'android', 'other'], ['windows']),
        at: mostly(VALID_ATS, INVALID_ATS),
      },
      { requiredKeys: ['user'] },
    ),
    key: idempotencyKey,
  })
  .map(({ fields, key: k }) => (k === undefined ? fields : { ...fields, idempotency_key: k }));
const eligibleBody: fc.Arbitrary<Json> = fc.record(
  {
    user: fc.constantFrom(...SHOWING_USERS),
    event_name: mostly(['app_open', 'app_open', 'app_close'], ['']),
    platform: mostly(['ios', 'android', 'other'], ['windows']),
    at: mostly(VALID_ATS, INVALID_ATS),
    segments: mostly([[7], [], [1, 2], [0, 7, 7]], [[-1], 7]),
    explain: mostly([true, false, true], ['yes']),
  },
  { requiredKeys: ['user', 'event_name'] },
);
const impressionPath = fc.oneof(
  { weight: 6, arbitrary: fc.constant('/v1/delivery/{delivery}/_impression') },
  { weight: 3, arbitrary: fc.constant('/v1/delivery/{delivery2}/_impression') },
  { weight: 1, arbitrary: fc.constant('/v1/delivery/987654/_impression') },
);
const writeAs = (method: Method, path: string, body?: Json, cred: Credential = admin): FuzzRequest => ({
  method,
  path,
  credential: cred,
  ...(body !== undefined ? { body: { json: body } } : {}),
  canonical: true,
});
/** What changes people, caps and days between impressions: links made and undone, erasures, lowered caps, a deleted delivery, another time zone. */
const SHOWING_WRITES: FuzzRequest[] = [
  writeAs('POST', '/v1/acme/node/_insert', { schema: 'member', key: key('m-3'), ids: [pair('device', 'd-1')] }),
  writeAs('POST', '/v1/acme/node/_delete', { schema: 'member', key: key('m-3'), where: pair('device', 'd-1') }),
  writeAs('POST', '/v1/acme/node/_create', { schema: 'member', key: key('m-4'), ids: [pair('cookie', 'c-2'), pair('device', 'd-unheld')] }),
  writeAs('POST', '/v1/acme/node/_delete', { schema: 'member', key: key('m-2'), where: pair('device', 'd-1') }),
  writeAs('POST', '/v1/acme/_erase', { id: pair('device', 'd-9') }),
  writeAs('POST', '/v1/acme/_erase', { id: pair('member_id', 'm-3'), scope: 'person' }),
  writeAs(
    'PUT',
    '/v1/delivery/{delivery}',
    asJson(buildDelivery({ condition: buildCondition({ max_delivery_count: 4, max_total_count: 2, max_total_count_per_day: 1 }) })),
    acmeMapi,
  ),
  writeAs(
    'PUT',
    '/v1/delivery/{delivery}',
    asJson(buildDelivery({ condition: buildCondition({ max_total_count: 10, max_total_count_per_day: 5 }) })),
    acmeMapi,
  ),
  writeAs('DELETE', '/v1/delivery/{delivery2}', undefined, acmeMapi),
  writeAs('PUT', '/v1/acme/settings', { timezone: 'UTC' }),
  writeAs('PUT', '/v1/acme/settings', { timezone: 'Pacific/Chatham' }),
];
const showingRequest: fc.Arbitrary<FuzzRequest> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc
      .record({ path: impressionPath, body: impressionBody, credential: showingCredential })
      .map(({ path, body, credential: cred }) => ({ method: 'POST' as const, path, credential: cred, body: { json: body }, canonical: true })),
  },
  {
    weight: 4,
    arbitrary: fc
      .record({ body: eligibleBody, credential: showingCredential })
      .map(({ body, credential: cred }) => ({ method: 'POST' as const, path: ELIGIBLE_PATH, credential: cred, body: { json: body }, canonical: true })),
  },
  { weight: 3, arbitrary: fc.constantFrom(...SHOWING_WRITES) },
  // Mutated near-valid bodies.
  {
    weight: 2,
    arbitrary: fc
      .record({
        eligible: fc.boolean(),
        impression: impressionBody,
        question: eligibleBody,
        path: impressionPath,
        mutations: fc.array(mutation, { minLength: 1, maxLength: 2 }),
        credential: showingCredential,
      })
      .map(({ eligible, impression, question, path, mutations, credential: cred }) => ({
        method: 'POST' as const,
        path: eligible ? ELIGIBLE_PATH : path,
        credential: cred,
        body: { json: mutate(eligible ? question : impression, mutations) },
        canonical: true,
      })),
  },
);

// ---- sending and checking

const contract = loadContract();
const validateProblem = contractAjv(contract).compile(detach((contract.document.components as { schemas: Record<string, object> }).schemas.Problem) as object);

function describeRequest(r: FuzzRequest, path: string): string {
  const body =
    r.body === undefined ? '' : 'raw' in r.body ? `${r.body.contentType} ${JSON.stringify(r.body.raw.slice(0, 200))}` : serialize(r.body.json).slice(0, 300);
  return `${r.method} ${path.slice(0, 300)} as ${r.credential.name} ${body}`;
}

async function send(app: TestApp, r: FuzzRequest, path: string): Promise<Response> {
  let req = request(app.baseUrl)[r.method.toLowerCase() as 'get'](path).redirects(0);
  for (const [name, value] of Object.entries(r.credential.headers)) req = req.set(name, value);
  if (r.body === undefined) return req;
  if ('raw' in r.body) return req.set('Content-Type', r.body.contentType).send(r.body.raw);
  return req.set('Content-Type', 'application/json').send(serialize(r.body.json));
}

// ---- showing deliveries: what an answered eligibility question or impression must have done

const ELIGIBLE_PATH = '/v1/delivery/_eligible';
const IMPRESSION_PATH = /^\/v1\/delivery\/([0-9]+)\/_impression$/;
const ERASE_PATH = /^\/v1\/([^/]+)\/_erase$/;

/** The seeded customer whose mapi token a request carries in X-SERVICE-MAPI-TOKEN. */
function mapiCustomer(r: FuzzRequest): string | undefined {
  const token = r.credential.headers['X-SERVICE-MAPI-TOKEN'];
  return token === SECRETS.acmeMapi ? 'acme' : token === SECRETS.globexMapi ? 'globex' : undefined;
}

/**
 * What this run has counted, kept beside the service as a model of it (each run starts from no impressions): the
 * answers of counted impressions by customer, delivery and idempotency key, and the impressions by customer,
 * delivery, ID and calendar day. An erasure takes impressions this model does not follow, so a customer with one
 * has its person counts checked no more in that run.
 */
interface ShowingModel {
  answers: Map<string, unknown>;
  counted: Array<{ customerId: string; deliveryId: number; id: IdPair; day: string }>;
  erased: Set<string>;
}
const newModel = (): ShowingModel => ({ answers: new Map(), counted: [], erased: new Set() });

/** What an impression or a question is decided on, read before it is sent. */
interface ShowingBefore {
  customerId: string;
  deliveries: Delivery[];
  /** The IDs of the person of `user`, as a search with step ALL (never through `links: false` types) finds them. */
  component: IdPair[] | undefined;
  timeZone: string;
  /** The calendar day of `at` (of now, when absent) in the customer's time zone, and whether now is on the same day after the answer. */
  day: string | undefined;
}

/** The calendar day of `at` in `timeZone`, by Intl here (not by the service's code). */
function dayIn(at: number, timeZone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(at).map((part) => [part.type, part.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day}`;
}

const fields = (body: Json | undefined) => (body !== null && typeof body === 'object' && !Array.isArray(body) && !(body instanceof RawJson) ? body : {});

async function showingBefore(store: Store, customerId: string, user: IdPair | undefined, body: Json | undefined): Promise<ShowingBefore> {
  const policy = await store.customerPolicy(customerId);
  let component: IdPair[] | undefined;
  if (user) {
    const found = await store.searchWithTypes({
      customerId,
      where: { id: user },
      step: 'ALL',
      exclude: false,
      hiddenTypes: [],
      unlinkedTypes: [...policy.unlinkedTypes],
      limit: 100000,
      maxNodes: 100000,
      maxIds: 100000,
    });
    component = found.results.length === 0 ? [user] : found.results;
  }
  const at = fields(body).at;
  const instant = at === undefined ? Date.now() : typeof at === 'string' ? Date.parse(at) : Number.NaN;
  return {
    customerId,
    deliveries: (await store.listDeliveries(customerId, 0, 1000)).items.map(deliveryBody),
    component,
    timeZone: policy.settings.timezone,
    day: Number.isNaN(instant) ? undefined : dayIn(instant, policy.settings.timezone),
  };
}

/** The person's impressions of a delivery as the model has them: in all, and on `day`. */
function modelCounts(model: ShowingModel, customerId: string, deliveryId: number, component: IdPair[], day: string): { total: number; today: number } {
  const person = model.counted.filter(
    (i) => i.customerId === customerId && i.deliveryId === deliveryId && component.some((c) => c.type === i.id.type && c.id === i.id.id),
  );
  return { total: person.length, today: person.filter((i) => i.day === day).length };
}

// Jest's own equality (undefined properties ignored), asked only when Node's strict one says no: deep-comparing
// every observed state with expect() took a tenth of the fuzzing's CPU.
const same = (a: unknown, b: unknown): boolean => {
  if (isDeepStrictEqual(a, b)) return true;
  try {
    expect(a).toEqual(b);
    return true;
  } catch {
    return false;
  }
};

type Counts = { delivery_count: number; iphone_delivery_count: number; android_delivery_count: number };
const countsOf = (d: Delivery | undefined): Counts | undefined =>
  d && {
    delivery_count: d.condition.delivery_count,
    iphone_delivery_count: d.condition.iphone_delivery_count,
    android_delivery_count: d.condition.android_delivery_count,
  };

/**
 * An answered eligibility question changed nothing, listed the customer's deliveries in showing order as stored and,
 * with explain, every other one once. A counted impression added exactly one to its delivery (and its platform) and
 * answered the counts the model expects for its person; a replayed one (Idempotent-Replayed) answered the first
 * answer of its key and counted nothing; a 409 named the cap the model says is reached, in §4.2's order.
 */
async function showingProblems(
  store: Store,
  path: string,
  body: Json | undefined,
  user: IdPair | undefined,
  res: Response,
  before: ShowingBefore,
  model: ShowingModel,
): Promise<string[]> {
  const problems: string[] = [];
  const b = fields(body);
  const { customerId } = before;
  const after = res.status < 300 ? (await store.listDeliveries(customerId, 0, 1000)).items.map(deliveryBody) : undefined;
  if (path === ELIGIBLE_PATH && res.status === 200) {
    if (!same(after, before.deliveries)) problems.push('an eligibility question changed a delivery');
    const answer = res.body as { deliveries: Delivery[]; excluded?: Array<{ delivery_id: number; reason: string }> };
    const order = answer.deliveries.map((d) => [d.priority, d.delivery_id] as const);
    if (
      !same(
        order,
        [...order].sort((x, y) => y[0] - x[0] || x[1] - y[1]),
      )
    )
      problems.push(`eligible deliveries out of order: ${JSON.stringify(order)}`);
    for (const d of answer.deliveries) {
      if (
        !same(
          d,
          before.deliveries.find((stored) => stored.delivery_id === d.delivery_id),
        )
      )
        problems.push(`eligible delivery ${d.delivery_id} is not as stored`);
    }
    if ((b.explain === true) !== (answer.excluded !== undefined))
      problems.push(`explain ${JSON.stringify(b.explain)} but excluded is ${answer.excluded ? 'present' : 'absent'}`);
    if (answer.excluded) {
      const excludedIds = answer.excluded.map((e) => e.delivery_id);
      if (
        !same(
          excludedIds,
          [...excludedIds].sort((x, y) => x - y),
        )
      )
        problems.push('excluded is not in delivery_id order');
      const all = [...answer.deliveries.map((d) => d.delivery_id), ...excludedIds].sort((x, y) => x - y);
      if (
        !same(
          all,
          before.deliveries.map((d) => d.delivery_id),
        )
      )
        problems.push(`shown and excluded ${JSON.stringify(all)} are not the deliveries`);
    }
  }
  const impression = IMPRESSION_PATH.exec(path);
  if (!impression) return problems;
  const deliveryId = Number(impression[1]);
  const key = typeof b.idempotency_key === 'string' ? b.idempotency_key : undefined;
  const answerKey = JSON.stringify([customerId, deliveryId, key]);
  const was = before.deliveries.find((d) => d.delivery_id === deliveryId);
  // The person's counts and the cap reached before this one, as the model has them (when it can tell).
  const modelled =
    was && before.component && before.day !== undefined && !model.erased.has(customerId)
      ? modelCounts(model, customerId, deliveryId, before.component, before.day)
      : undefined;
  const c = was?.condition;
  const capBefore =
    c && modelled
      ? c.delivery_count >= c.max_delivery_count
        ? 'max_delivery_count'
        : modelled.total >= c.max_total_count
          ? 'max_total_count'
          : modelled.today >= c.max_total_count_per_day
            ? 'max_total_count_per_day'
            : undefined
      : c && c.delivery_count >= c.max_delivery_count
        ? 'max_delivery_count'
        : undefined;
  // A day that changed while the request was in flight (at absent, around midnight) is not held against the answer.
  const sameDay = b.at !== undefined || before.day === dayIn(Date.now(), before.timeZone);
  if (res.status === 409 && (res.body as { code?: string }).code === 'cap_reached') {
    const cap = (res.body as { cap?: string }).cap;
    if (key !== undefined && model.answers.has(answerKey)) problems.push(`key ${key} was counted before, yet the repeat is 409 instead of its first answer`);
    if (sameDay && (modelled || capBefore === 'max_delivery_count') && cap !== capBefore)
      problems.push(`409 naming ${cap}, but the cap reached is ${capBefore}`);
  }
  if (res.status !== 201) return problems;
  const answer = res.body as { delivery_id: number; delivery_count: number; person_total: number; person_today: number };
  if (res.headers['idempotent-replayed'] === 'true') {
    if (key === undefined || !model.answers.has(answerKey)) problems.push('replayed an answer this run never gave');
    else if (!same(res.body, model.answers.get(answerKey)))
      problems.push(`replayed ${JSON.stringify(res.body)}, not the first answer ${JSON.stringify(model.answers.get(answerKey))}`);
    if (!same(after, before.deliveries)) problems.push('a replayed impression counted');
    return problems;
  }
  if (key !== undefined && model.answers.has(answerKey)) problems.push(`key ${key} was counted again instead of replayed`);
  const expected = countsOf(was) && {
    delivery_count: countsOf(was)!.delivery_count + 1,
    iphone_delivery_count: countsOf(was)!.iphone_delivery_count + (b.platform === 'ios' ? 1 : 0),
    android_delivery_count: countsOf(was)!.android_delivery_count + (b.platform === 'android' ? 1 : 0),
  };
  const is = after?.find((d) => d.delivery_id === deliveryId);
  if (!expected || !same(countsOf(is), expected)) problems.push(`counted ${JSON.stringify(countsOf(is))}, expected ${JSON.stringify(expected)}`);
  if (answer.delivery_count !== is?.condition.delivery_count)
    problems.push(`answered delivery_count ${answer.delivery_count}, stored ${is?.condition.delivery_count}`);
  const others = (list: Delivery[] | undefined) => list?.filter((d) => d.delivery_id !== deliveryId);
  if (!same(others(after), others(before.deliveries))) problems.push('an impression changed another delivery');
  if (sameDay && capBefore !== undefined) problems.push(`counted although ${capBefore} was reached`);
  if (sameDay && modelled && !same([answer.person_total, answer.person_today], [modelled.total + 1, modelled.today + 1])) {
    problems.push(
      `answered person_total ${answer.person_total} and person_today ${answer.person_today}; the person had ${modelled.total} and ${modelled.today} on ${before.day}`,
    );
  }
  if (user && before.day !== undefined) model.counted.push({ customerId, deliveryId, id: user, day: before.day });
  if (key !== undefined) model.answers.set(answerKey, res.body);
  return problems;
}

/** Sends one request and checks the answer and the store; throws a message naming the request when anything is wrong. */
async function sendAndCheck(app: TestApp, r: FuzzRequest, acmeDeliveries: number[], model: ShowingModel = newModel()): Promise<number> {
  const path = r.path.replace('{delivery2}', String(acmeDeliveries[1])).replace('{delivery}', String(acmeDeliveries[0]));
  const json = r.body && 'json' in r.body ? r.body.json : undefined;
  const named = addressesNamedBy(path, json);
  const before = await observe(app.store, named);
  const showingCustomer = path === ELIGIBLE_PATH || IMPRESSION_PATH.test(path) ? mapiCustomer(r) : undefined;
  const decidedOn = showingCustomer ? await showingBefore(app.store, showingCustomer, named.users[0], json) : undefined;
  const res = await send(app, r, path);
  const problems: string[] = [];
  if (decidedOn) problems.push(...(await showingProblems(app.store, path, json, named.users[0], res, decidedOn, model)));
  const erased = ERASE_PATH.exec(path);
  if (erased && res.status === 200) model.erased.add(decodeURIComponent(erased[1] ?? ''));
  // A deleted delivery takes its impressions and keys with it.
  const deleted = /^\/v1\/delivery\/([0-9]+)$/.exec(path);
  const owner = mapiCustomer(r);
  if (deleted && r.method === 'DELETE' && res.status === 204 && owner) {
    const gone = Number(deleted[1]);
    model.counted = model.counted.filter((i) => !(i.customerId === owner && i.deliveryId === gone));
    for (const k of [...model.answers.keys()]) if (k.startsWith(JSON.stringify([owner, gone]).slice(0, -1) + ',')) model.answers.delete(k);
  }
  if (res.status >= 500) problems.push(`answered ${res.status}: ${res.text?.slice(0, 300)}`);
  if (res.status >= 400 && res.status < 500) {
    const type = String(res.headers['content-type'] ?? '');
    if (!type.startsWith('application/problem+json')) problems.push(`a ${res.status} with content type '${type}'`);
    else if (r.method !== 'HEAD') {
      if (!validateProblem(res.body)) problems.push(`a ${res.status} whose body is not a Problem: ${JSON.stringify(validateProblem.errors)}`);
      else if ((res.body as { status: number }).status !== res.status)
        problems.push(`a ${res.status} whose body says status ${(res.body as { status: number }).status}`);
    }
    const after = await observe(app.store, named);
    if (!isDeepStrictEqual(after, before)) {
      try {
        expect(after).toEqual(before);
      } catch (e) {
        problems.push(`refused with ${res.status} ${(res.body as { code?: string }).code} but the store changed: ${(e as Error).message.slice(0, 2000)}`);
      }
    }
  }
  if (r.canonical && r.method !== 'HEAD') problems.push(...contractProblems(r.method, path, res));
  if (problems.length > 0) throw new Error(`${describeRequest(r, path)}\n  → ${problems.join('\n  → ')}`);
  return res.status;
}

// Replayed before the generated inputs on every run: digits that overflow a double, which Ajv coerces to Infinity
// and its minimum and maximum then let through. As `count` or `page` they reached SQLite and failed with a 500.
const TOO_MANY_DIGITS = '1'.repeat(400);
const pinned = (method: Method, path: string): FuzzRequest => ({ method, path, credential: CREDENTIALS.find((c) => c.name === 'acme mapi')!, canonical: true });
/** An endpoint's valid request to acme, as the administrator. */
const asListed = (name: string): FuzzRequest => {
  const endpoint = ALL_ENDPOINTS.find((e) => e.name === name)!;
  return {
    method: endpoint.method,
    path: endpoint.path.replace('{customer}', 'acme'),
    credential: CREDENTIALS.find((c) => c.name === 'admin')!,
    ...(endpoint.body !== undefined ? { body: { json: endpoint.body } } : {}),
    canonical: true,
  };
};
// Also replayed first: erasures that succeed and then are read back, and one refused past TRAVERSAL_MAX_NODES
// (the create joins m-new to d-1's person, which then has 4 nodes), which must change nothing.
const ERASURES: FuzzRequest[][] = [
  [asListed('erase person'), asListed('erase ID'), asListed('node history'), asListed('erase person')],
  [asListed('create'), asListed('erase person'), asListed('erase ID'), asListed('node history')],
];

/** A case's own app on its own store: what one case sends, even past its timeout, never reaches another's. */
async function fuzzCase(): Promise<{ app: TestApp; reset: () => Promise<number[]>; close: () => Promise<void> }> {
  const backing = swappableStore();
  const reset = async (): Promise<number[]> => {
    const seeded = await seededStore();
    await backing.swap(seeded.store, seeded.file);
    return seeded.acmeDeliveries;
  };
  await reset();
  const app = await startApp({ store: backing.store, env: { TRAVERSAL_MAX_NODES: '3' } });
  return { app, reset, close: () => app.close() };
}

describe(`fuzzing every endpoint (fast-check seed ${SEED})`, () => {
  async function check(name: string, requests: fc.Arbitrary<FuzzRequest[]>, numRuns: number, examples: FuzzRequest[][] = [], seed = SEED): Promise<void> {
    const started = Date.now();
    const statuses = new Map<number, number>();
    const fuzz = await fuzzCase();
    try {
      await fc.assert(
        fc.asyncProperty(requests, async (sequence) => {
          const acmeDeliveries = await fuzz.reset();
          const model = newModel();
          for (const r of sequence) {
            const status = await sendAndCheck(fuzz.app, r, acmeDeliveries, model);
            statuses.set(status, (statuses.get(status) ?? 0) + 1);
          }
        }),
        { seed, numRuns, examples: examples.map((sequence) => [sequence]), interruptAfterTimeLimit: TEST_TIMEOUT_MS, markInterruptAsFailure: true },
      );
    } finally {
      await fuzz.close();
    }
    const sent = [...statuses.values()].reduce((a, b) => a + b, 0);
    const byStatus = [...statuses.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, n]) => `${status}×${n}`)
      .join(' ');
    process.stdout.write(`fuzz ${name}: ${numRuns} runs, ${sent} requests in ${Date.now() - started} ms (seed ${seed}); answers ${byStatus}\n`);
  }

  test("when a case keeps sending after it ends, then the next case's store does not change", async () => {
    const first = await fuzzCase();
    const next = await fuzzCase();
    try {
      const m3 = SEEDED_NODES[2]!.address;
      const before = await next.app.store.getNodeIds(m3);
      await first.app.store.insertIds(seeded(m3), [id('cookie', 'c-late')]);
      expect(await first.app.store.getNodeIds(m3)).toContainEqual(id('cookie', 'c-late'));
      expect(await next.app.store.getNodeIds(m3)).toEqual(before);
    } finally {
      await first.close();
      await next.close();
    }
  });

  const perShard = Math.ceil(RUNS.bodies / BODY_SHARDS);
  for (let shard = 0; shard < BODY_SHARDS; shard++) {
    test(
      `when mutated bodies of every endpoint are sent with assorted tokens, then no answer is a 5xx, every 4xx is a Problem and a refused request changes nothing (seed ${SEED + shard}, ${perShard} runs)`,
      async () => {
        await check(
          `bodies ${shard + 1}/${BODY_SHARDS}`,
          fc.array(bodyRequest, { minLength: 1, maxLength: 5 }),
          perShard,
          shard === 0 ? ERASURES : [],
          SEED + shard,
        );
      },
      TEST_TIMEOUT_MS,
    );
  }

  test(
    `when generated paths are requested with any method, then no answer is a 5xx, every 4xx is a Problem and a refused request changes nothing (seed ${SEED}, ${RUNS.paths} runs)`,
    async () => {
      await check('paths', fc.array(pathRequest, { minLength: 1, maxLength: 2 }), RUNS.paths, [[pinned('GET', `/v1/delivery/${TOO_MANY_DIGITS}`)]]);
    },
    TEST_TIMEOUT_MS,
  );

  // Jest's timeout bounds every request: a pattern that backtracked on a long near-match would take far longer.
  test(
    `when generated and hostile blocklist patterns, time zones and type options are put and then met by writes, then no answer is a 5xx, every 4xx is a Problem and a refused request changes nothing (seed ${SEED}, ${RUNS.protections} runs)`,
    async () => {
      await check('protections', fc.array(protectionRequest, { minLength: 1, maxLength: 4 }), RUNS.protections);
    },
    TEST_TIMEOUT_MS,
  );

  // Runs of 4 to 12 requests, so that caps are reached, keys repeated and people linked between impressions.
  test(
    `when near-valid impressions and eligibility questions meet writes that link and unlink people, lower caps and change the time zone, then no answer is a 5xx, a refused request counts nothing, a question counts nothing and lists the deliveries in order, a counted impression adds exactly one to its delivery and answers its person's counts, a 409 names the cap reached, and a repeated key answers the first answer (seed ${SEED}, ${RUNS.showing} runs)`,
    async () => {
      await check('showing', fc.array(showingRequest, { minLength: 4, maxLength: 12, size: 'medium' }), RUNS.showing);
    },
    TEST_TIMEOUT_MS,
  );

  test(
    `when generated query strings are sent to the list and the other endpoints, then no answer is a 5xx, every 4xx is a Problem and a refused request changes nothing (seed ${SEED}, ${RUNS.queries} runs)`,
    async () => {
      await check('queries', fc.array(queryRequest, { minLength: 1, maxLength: 2 }), RUNS.queries, [
        [pinned('GET', `/v1/delivery?count=${TOO_MANY_DIGITS}`)],
        [pinned('GET', `/v1/delivery?page=${TOO_MANY_DIGITS}`)],
      ]);
    },
    TEST_TIMEOUT_MS,
  );
});
