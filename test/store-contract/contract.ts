// The store contract: plain Store calls, no HTTP. Every Store implementation runs this very suite
// (`describeStoreContract(name, openStore)`), so it assumes nothing of a particular store:
// - each group of tests opens its own store and closes it afterwards;
// - each test works on customer ids of its own (unique per run and per test), because a shared store
//   (Neo4j) is neither emptied between tests nor between runs; token ids and hashes are unique likewise.
// Every assertion reads back what is stored (getNodeIds, search, getSchema, ...), not merely that a call resolved.
import { randomUUID } from 'node:crypto';
import type { BlockRule } from '../../src/domain/blocklist';
import { DomainError } from '../../src/domain/errors';
import type { CustomerSettings, IdPair, IdTypeDeclaration, NodeAddress, SchemaRecord, SearchQuery, SearchResult, TokenRecord } from '../../src/domain/model';
import type { CheckedNode, NodeWrite, SchemaWithPolicy } from '../../src/domain/ports/node-writes';
import type { TestStore as Store } from '../helpers/store';
import type { StoredToken } from '../../src/domain/ports/tokens';
import { seeded } from '../helpers/seeded';

// ---- unique names

const RUN = randomUUID().slice(0, 8);
let counter = 0;
const unique = (prefix: string): string => `${prefix}-${RUN}-${++counter}`;

/** A customer id no other test (of this run or any other) uses. */
export const newCustomer = (): string => unique('cust');

// ---- fixtures

export const id = (type: string, value: string): IdPair => ({ type, id: value });

/** member_id, device and cookie are open; email is secure. */
export const MEMBER: SchemaRecord = {
  schemaId: 'member',
  idTypes: [
    { type: 'member_id', secure: false },
    { type: 'device', secure: false },
    { type: 'cookie', secure: false },
    { type: 'email', secure: true },
  ],
};

/** A schema with both type options: ip never links, and at most 5 nodes hold one device. */
export const VISIT_WITH_OPTIONS: SchemaRecord = {
  schemaId: 'visit',
  idTypes: [
    { type: 'visit_id', secure: false },
    { type: 'ip', secure: false, links: false },
    { type: 'device', secure: false, maxHolders: 5 },
  ],
};

/** A second schema sharing device and email with MEMBER. */
export const SHOP: SchemaRecord = {
  schemaId: 'shop',
  idTypes: [
    { type: 'shop_id', secure: false },
    { type: 'device', secure: false },
    { type: 'email', secure: true },
  ],
};

export const member = (customerId: string, memberId: string): NodeAddress => ({
  customerId,
  schemaId: 'member',
  key: id('member_id', memberId),
});

export const shop = (customerId: string, shopId: string): NodeAddress => ({
  customerId,
  schemaId: 'shop',
  key: id('shop_id', shopId),
});

/**
 * `node` as the domain addresses a write (src/domain/nodes.ts): with expectedTypes, the schema's declarations, options
 * included, of the key's type and of every type the write mentions (`ids`, `where`, `set`).
 */
export function asChecked(node: NodeAddress, schema: SchemaRecord, mentioned: IdPair[] = []): NodeAddress {
  const types = [...new Set([node.key, ...mentioned].map((x) => x.type))];
  const expectedTypes = types.map((type): IdTypeDeclaration => {
    const declared = schema.idTypes.find((t) => t.type === type);
    if (!declared) throw new Error(`schema '${schema.schemaId}' of the test does not declare '${type}'`);
    return declared;
  });
  return { ...node, expectedTypes };
}

/** A valid search (step ALL, no exclude, nothing hidden, limit and maxNodes 10000, maxIds 50000) for `customerId`; give the start (key and/or where) and override one thing at a time. */
export function buildQuery(overrides: Partial<SearchQuery> & { customerId: string }): SearchQuery {
  return {
    step: 'ALL',
    exclude: false,
    hiddenTypes: [],
    unlinkedTypes: [],
    limit: 10000,
    maxNodes: 10000,
    maxIds: 50000,
    ...overrides,
  };
}

const fromKey = (node: NodeAddress): Pick<SearchQuery, 'customerId' | 'key'> => ({
  customerId: node.customerId,
  key: { schemaId: node.schemaId, key: node.key },
});

const bySchemaId = (a: SchemaRecord, b: SchemaRecord): number => (a.schemaId < b.schemaId ? -1 : a.schemaId > b.schemaId ? 1 : 0);

function buildToken(customerId: string, overrides: Partial<StoredToken> = {}): StoredToken {
  const tokenId = unique('tok');
  return {
    tokenId,
    customerId,
    kind: 'bearer',
    label: 'ci',
    createdAt: new Date().toISOString(),
    tokenHash: `hash-${tokenId}`,
    ...overrides,
  };
}

/**
 * `items` reordered by index i·stride mod n, so that calls on the same thing, listed together, reach the store among
 * the others' in a race. `stride` must be coprime with the length (the order is then a permutation).
 */
export function interleaved<T>(items: T[], stride: number): T[] {
  const order = items.map((_, i) => (i * stride) % items.length);
  if (new Set(order).size !== items.length) throw new Error(`stride ${stride} is not coprime with ${items.length}`);
  return order.map((i) => items[i] as T);
}

/** The store `openStore` gives, opened before and closed after the tests of the enclosing describe block. */
export function useStore(openStore: () => Promise<Store>): () => Store {
  let store: Store | undefined;
  beforeAll(async () => {
    store = await openStore();
  });
  afterAll(async () => {
    await store?.close();
  });
  return () => {
    if (!store) throw new Error('store not opened');
    return store;
  };
}

export function describeStoreContract(name: string, openStore: () => Promise<Store>): void {
  describe(`Store contract: ${name}`, () => {
    // ------------------------------------------------------------------ lifecycle
    describe('lifecycle', () => {
      const store = useStore(openStore);

      test('when the store is open, then ping resolves', async () => {
        await expect(store().ping()).resolves.toBeUndefined();
      });

      test('when a store has been closed, then ping rejects with store_unavailable', async () => {
        const other = await openStore();
        await other.close();
        await expect(other.ping()).rejects.toMatchObject({ code: 'store_unavailable' });
      });

      test('when the store is open, then floor resolves; once closed, it rejects with store_unavailable', async () => {
        await expect(store().floor()).resolves.toBeUndefined();
        const other = await openStore();
        await other.close();
        await expect(other.floor()).rejects.toMatchObject({ code: 'store_unavailable' });
      });
    });

    // ------------------------------------------------------------------ schemas
    describe('schemas', () => {
      const store = useStore(openStore);

      test('when a schema is put the first time, then it is created, and put again, then it is replaced', async () => {
        const c = newCustomer();
        await expect(store().putSchema(c, MEMBER)).resolves.toEqual({ created: true });
        expect(await store().getSchema(c, 'member')).toEqual(MEMBER);

        const replacement: SchemaRecord = {
          schemaId: 'member',
          idTypes: [
            { type: 'member_id', secure: false },
            { type: 'phone', secure: true },
          ],
        };
        await expect(store().putSchema(c, replacement)).resolves.toEqual({ created: false });
        expect(await store().getSchema(c, 'member')).toEqual(replacement);
      });

      test('when a schema is replaced over and over, then reads meanwhile always see the types both versions declare, with their options', async () => {
        const c = newCustomer();
        const withPhone: SchemaRecord = { schemaId: 'member', idTypes: [...MEMBER.idTypes, { type: 'phone', secure: false }] };
        await store().putSchema(c, MEMBER);
        const kept = MEMBER.idTypes;
        let replacing = true;
        const replacements = (async () => {
          for (let i = 0; i < 40; i += 1) await store().putSchema(c, i % 2 === 0 ? withPhone : MEMBER);
          replacing = false;
        })();
        const seen: string[][] = [];
        const reads = Array.from({ length: 4 }, async () => {
          while (replacing) {
            const [schema, { schema: withPolicy, policy }] = await Promise.all([store().getSchema(c, 'member'), store().schemaWithPolicy(c, 'member')]);
            for (const read of [schema, withPolicy])
              seen.push(kept.filter((t) => !read?.idTypes.some((d) => d.type === t.type && d.secure === t.secure)).map((t) => t.type));
            // A secure type missing here would show its IDs to a search without a token.
            seen.push(kept.filter((t) => t.secure && !policy.secureTypes.has(t.type)).map((t) => t.type));
            // SQLite answers reads at once: give its writes, which wait for the next turn, their turn.
            await new Promise((resolve) => setImmediate(resolve));
          }
        });
        await Promise.all([replacements, ...reads]);
        expect(seen.length).toBeGreaterThan(0);
        expect(seen.filter((missing) => missing.length > 0)).toEqual([]);
      });

      test('when a schema is read back, then its types keep their declaration order and secure flags', async () => {
        const c = newCustomer();
        const schema: SchemaRecord = {
          schemaId: 'ordered',
          idTypes: [
            { type: 'zeta', secure: false },
            { type: 'alpha', secure: true },
            { type: 'Mid', secure: false },
            { type: 'beta', secure: true },
          ],
        };
        await store().putSchema(c, schema);
        expect(await store().getSchema(c, 'ordered')).toEqual(schema);
      });

      test('when a schema does not exist, then getSchema gives undefined', async () => {
        const c = newCustomer();
        await store().putSchema(c, MEMBER);
        expect(await store().getSchema(c, 'nope')).toBeUndefined();
      });

      test('when a customer has schemas, then listSchemas gives all of them and only them', async () => {
        const c = newCustomer();
        const other = newCustomer();
        expect(await store().listSchemas(c)).toEqual([]);
        await store().putSchema(c, SHOP);
        await store().putSchema(c, MEMBER);
        await store().putSchema(other, { schemaId: 'foreign', idTypes: [{ type: 'x', secure: false }] });
        const listed = await store().listSchemas(c);
        expect([...listed].sort(bySchemaId)).toEqual([MEMBER, SHOP]);
      });

      test("when a customer has a schema or none, then customerAdmission says so beside its policy, and another customer's schema counts for nothing", async () => {
        const c = newCustomer();
        const other = newCustomer();
        await store().putSchema(other, MEMBER);
        await store().putSettings(c, { requireToken: true, timezone: 'Europe/Paris' });
        expect(await store().customerAdmission(c)).toEqual({ policy: await store().customerPolicy(c), hasSchema: false });
        expect((await store().customerAdmission(c)).policy.settings.requireToken).toBe(true);
        await store().putSchema(c, SHOP);
        expect((await store().customerAdmission(c)).hasSchema).toBe(true);
        await store().deleteSchema(c, 'shop');
        expect((await store().customerAdmission(c)).hasSchema).toBe(false);
      });

      test('when schemas declare secure types, then the secureTypes of customerPolicy are their union over the customer', async () => {
        const c = newCustomer();
        expect([...(await store().customerPolicy(c)).secureTypes]).toEqual([]);
        await store().putSchema(c, MEMBER); // email secure
        await store().putSchema(c, {
          schemaId: 'contact',
          idTypes: [
            { type: 'email', secure: true },
            { type: 'phone', secure: true },
            { type: 'member_id', secure: false },
          ],
        });
        expect([...(await store().customerPolicy(c)).secureTypes].sort()).toEqual(['email', 'phone']);
        // Another customer's declarations do not leak in.
        expect([...(await store().customerPolicy(newCustomer())).secureTypes]).toEqual([]);
      });

      test('when a new schema declares a type with the other secure flag, then secure_flag_conflict and it is not created', async () => {
        const c = newCustomer();
        await store().putSchema(c, MEMBER); // email secure
        const conflicting: SchemaRecord = {
          schemaId: 'crm',
          idTypes: [
            { type: 'crm_id', secure: false },
            { type: 'email', secure: false },
          ],
        };
        await expect(store().putSchema(c, conflicting)).rejects.toMatchObject({ code: 'secure_flag_conflict' });
        expect(await store().getSchema(c, 'crm')).toBeUndefined();
        expect((await store().listSchemas(c)).map((s) => s.schemaId)).toEqual(['member']);
        expect([...(await store().customerPolicy(c)).secureTypes]).toEqual(['email']);
      });

      test('when a replacement declares a type with the other secure flag, then secure_flag_conflict and the schema is unchanged', async () => {
        const c = newCustomer();
        await store().putSchema(c, MEMBER); // email secure
        const crm: SchemaRecord = { schemaId: 'crm', idTypes: [{ type: 'crm_id', secure: false }] };
        await store().putSchema(c, crm);
        await expect(
          store().putSchema(c, {
            schemaId: 'crm',
            idTypes: [
              { type: 'crm_id', secure: false },
              { type: 'member_id', secure: true },
            ],
          }),
        ).rejects.toMatchObject({ code: 'secure_flag_conflict' });
        expect(await store().getSchema(c, 'crm')).toEqual(crm);
        expect(await store().getSchema(c, 'member')).toEqual(MEMBER);
        expect([...(await store().customerPolicy(c)).secureTypes]).toEqual(['email']);
      });

      test('when a replacement drops a type that nodes of the schema still hold, then schema_in_use and the schema is unchanged', async () => {
        const c = newCustomer();
        await store().putSchema(c, MEMBER);
        await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
        const withoutDevice: SchemaRecord = { schemaId: 'member', idTypes: MEMBER.idTypes.filter((t) => t.type !== 'device') };
        await expect(store().putSchema(c, withoutDevice)).rejects.toMatchObject({ code: 'schema_in_use' });
        expect(await store().getSchema(c, 'member')).toEqual(MEMBER);
        expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('member_id', 'm1')]);
      });

      test('when a replacement drops the key type its nodes hold, then schema_in_use', async () => {
        const c = newCustomer();
        await store().putSchema(c, MEMBER);
        await store().createNode(seeded(member(c, 'm1')), []);
        const withoutKeyType: SchemaRecord = { schemaId: 'member', idTypes: MEMBER.idTypes.filter((t) => t.type !== 'member_id') };
        await expect(store().putSchema(c, withoutKeyType)).rejects.toMatchObject({ code: 'schema_in_use' });
        expect(await store().getSchema(c, 'member')).toEqual(MEMBER);
      });

      test('when a replacement drops a type no node of the schema holds, then the schema is replaced', async () => {
        const c = newCustomer();
        await store().putSchema(c, MEMBER);
        await store().putSchema(c, SHOP);
        await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
        // Nodes of another schema holding `email` do not pin it in `member`.
        await store().createNode(seeded(shop(c, 's1')), [id('email', 'a@example.com')]);
        const withoutUnused: SchemaRecord = {
          schemaId: 'member',
          idTypes: MEMBER.idTypes.filter((t) => t.type !== 'cookie' && t.type !== 'email'),
        };
        await expect(store().putSchema(c, withoutUnused)).resolves.toEqual({ created: false });
        expect(await store().getSchema(c, 'member')).toEqual(withoutUnused);
        expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('member_id', 'm1')]);
      });

      test('when a schema does not exist, then deleteSchema rejects with schema_not_found', async () => {
        const c = newCustomer();
        await store().putSchema(c, MEMBER);
        await expect(store().deleteSchema(c, 'nope')).rejects.toMatchObject({ code: 'schema_not_found' });
        expect(await store().getSchema(c, 'member')).toEqual(MEMBER);
      });

      test('when a schema still has nodes, then deleteSchema rejects with schema_in_use and it stays', async () => {
        const c = newCustomer();
        await store().putSchema(c, MEMBER);
        await store().createNode(seeded(member(c, 'm1')), []);
        await expect(store().deleteSchema(c, 'member')).rejects.toMatchObject({ code: 'schema_in_use' });
        expect(await store().getSchema(c, 'member')).toEqual(MEMBER);
        expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('member_id', 'm1')]);
      });

      test('when a schema has no nodes (any more), then deleteSchema removes it and its secure types', async () => {
        const c = newCustomer();
        await store().putSchema(c, MEMBER);
        await store().putSchema(c, { schemaId: 'other', idTypes: [{ type: 'x', secure: false }] });
        await store().createNode(seeded(member(c, 'm1')), []);
        await store().deleteNode(seeded(member(c, 'm1')));
        await expect(store().deleteSchema(c, 'member')).resolves.toBeUndefined();
        expect(await store().getSchema(c, 'member')).toBeUndefined();
        expect((await store().listSchemas(c)).map((s) => s.schemaId)).toEqual(['other']);
        expect([...(await store().customerPolicy(c)).secureTypes]).toEqual([]);
        await expect(store().deleteSchema(c, 'member')).rejects.toMatchObject({ code: 'schema_not_found' });
      });

      test('when deletes of one schema race, then exactly one succeeds, the rest are schema_not_found, and it can be put again as new', async () => {
        const c = newCustomer();
        await store().putSchema(c, MEMBER);
        await store().putSchema(c, { schemaId: 'other', idTypes: [{ type: 'x', secure: false }] });
        const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => store().deleteSchema(c, 'member')));

        expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
        for (const o of outcomes.filter((r): r is PromiseRejectedResult => r.status === 'rejected')) {
          expect(o.reason).toMatchObject({ code: 'schema_not_found' });
        }
        expect(await store().getSchema(c, 'member')).toBeUndefined();
        expect((await store().listSchemas(c)).map((s) => s.schemaId)).toEqual(['other']);
        expect([...(await store().customerPolicy(c)).secureTypes]).toEqual([]);
        await expect(store().putSchema(c, MEMBER)).resolves.toMatchObject({ created: true });
        expect(await store().getSchema(c, 'member')).toEqual(MEMBER);
      });

      test('when node creates race the removal of their schema, then no node outlives its schema', async () => {
        const c = newCustomer();
        await store().putSchema(c, MEMBER);
        const creates = Array.from({ length: 8 }, (_, i) => store().createNode(seeded(member(c, `m${i}`)), []));
        // Issued among the creates: which of them commit first is up to the store.
        const removal = store().deleteSchema(c, 'member');
        creates.push(...Array.from({ length: 8 }, (_, i) => store().createNode(seeded(member(c, `m${8 + i}`)), [])));
        const [removed, ...created] = await Promise.allSettled([removal, ...creates]);
        const nodes = await Promise.all(created.map((_, i) => store().getNodeIds(member(c, `m${i}`))));
        if (removed?.status === 'fulfilled') {
          // Removed: then every create failed, and no node of the schema exists.
          expect(await store().getSchema(c, 'member')).toBeUndefined();
          for (const outcome of created) expect(outcome).toMatchObject({ status: 'rejected', reason: { code: 'schema_not_found' } });
          expect(nodes.filter((n) => n !== undefined)).toEqual([]);
        } else {
          // Kept because a node existed: then every create succeeded, and every node is there.
          expect(removed?.reason).toMatchObject({ code: 'schema_in_use' });
          expect(await store().getSchema(c, 'member')).toEqual(MEMBER);
          expect(created.map((o) => o.status)).toEqual(created.map(() => 'fulfilled'));
          expect(nodes.every((n) => n !== undefined)).toBe(true);
        }
      });

      test('when first puts of one schema race, then exactly one says created, and the schema is one of those put', async () => {
        const c = newCustomer();
        const versions: SchemaRecord[] = Array.from({ length: 10 }, (_, i) => ({
          schemaId: 'member',
          idTypes: [...MEMBER.idTypes, { type: `extra${i}`, secure: false }],
        }));
        const outcomes = await Promise.all(versions.map((version) => store().putSchema(c, version)));
        expect(outcomes.filter((o) => o.created)).toHaveLength(1);
        expect(versions).toContainEqual(await store().getSchema(c, 'member'));
        expect(await store().listSchemas(c)).toHaveLength(1);
      });

      test('when puts and deletes of one schema race, then each settles as a put or as not found, and what is left is one of the versions put, or nothing, with its secure types', async () => {
        const c = newCustomer();
        await store().putSchema(c, MEMBER);
        const versions: SchemaRecord[] = Array.from({ length: 6 }, (_, i) => ({
          schemaId: 'member',
          idTypes: [...MEMBER.idTypes, { type: `extra${i}`, secure: i % 2 === 0 }],
        }));
        const calls = versions.flatMap((version) => [() => store().putSchema(c, version), () => store().deleteSchema(c, 'member')]);
        const settled = await Promise.allSettled(calls.map((call) => call()));

        for (const [i, outcome] of settled.entries()) {
          if (i % 2 === 0) expect(outcome.status).toBe('fulfilled');
          else if (outcome.status === 'rejected') expect(outcome.reason).toMatchObject({ code: 'schema_not_found' });
        }
        const left = await store().getSchema(c, 'member');
        const secureTypes = [...(await store().customerPolicy(c)).secureTypes].sort();
        if (left === undefined) {
          expect(await store().listSchemas(c)).toEqual([]);
          expect(secureTypes).toEqual([]);
        } else {
          expect(versions).toContainEqual(left);
          expect(secureTypes).toEqual(
            left.idTypes
              .filter((t) => t.secure)
              .map((t) => t.type)
              .sort(),
          );
        }
      });

      test('when two customers use the same schema id, then each keeps its own schema', async () => {
        const a = newCustomer();
        const b = newCustomer();
        await store().putSchema(a, MEMBER);
        const bMember: SchemaRecord = { schemaId: 'member', idTypes: [{ type: 'email', secure: false }] };
        // A different secure flag in another customer is no conflict.
        await expect(store().putSchema(b, bMember)).resolves.toEqual({ created: true });
        expect(await store().getSchema(a, 'member')).toEqual(MEMBER);
        expect(await store().getSchema(b, 'member')).toEqual(bMember);
        await store().deleteSchema(b, 'member');
        expect(await store().getSchema(a, 'member')).toEqual(MEMBER);
      });
    });

    // ------------------------------------------------------------------ tokens
    describe('tokens', () => {
      const store = useStore(openStore);

      const record = (t: StoredToken): TokenRecord => ({
        tokenId: t.tokenId,
        customerId: t.customerId,
        kind: t.kind,
        label: t.label,
        createdAt: t.createdAt,
      });

      test('when a token is created, then findActiveToken finds it by its hash with every field', async () => {
        const c = newCustomer();
        const bearer = buildToken(c);
        const mapi = buildToken(c, { kind: 'mapi', label: null });
        await store().createToken(bearer);
        await store().createToken(mapi);
        expect(await store().findActiveToken(bearer.tokenHash)).toEqual(bearer);
        expect(await store().findActiveToken(mapi.tokenHash)).toEqual(mapi);
      });

      test('when no token has the hash, then findActiveToken gives undefined', async () => {
        const c = newCustomer();
        await store().createToken(buildToken(c));
        expect(await store().findActiveToken(`hash-${unique('unknown')}`)).toBeUndefined();
      });

      test('when tokens are listed, then only the active tokens of that customer come back, without hashes', async () => {
        const c = newCustomer();
        const other = newCustomer();
        const first = buildToken(c, { createdAt: '2024-01-01T00:00:00.000Z' });
        const second = buildToken(c, { kind: 'mapi', label: null, createdAt: '2024-01-02T00:00:00.000Z' });
        const revoked = buildToken(c);
        await store().createToken(first);
        await store().createToken(second);
        await store().createToken(revoked);
        await store().createToken(buildToken(other));
        await store().revokeToken(c, revoked.tokenId);

        const listed = await store().listTokens(c);
        const byId = (x: TokenRecord, y: TokenRecord) => (x.tokenId < y.tokenId ? -1 : 1);
        expect(listed.map((t) => ({ ...t })).sort(byId)).toEqual([record(first), record(second)].sort(byId));
        for (const t of listed) expect(t).not.toHaveProperty('tokenHash');
        expect(await store().listTokens(newCustomer())).toEqual([]);
      });

      test('when a token is revoked, then revokeToken is true once, false after, and the token is no longer found', async () => {
        const c = newCustomer();
        const token = buildToken(c);
        await store().createToken(token);
        await expect(store().revokeToken(c, token.tokenId)).resolves.toBe(true);
        expect(await store().findActiveToken(token.tokenHash)).toBeUndefined();
        expect(await store().listTokens(c)).toEqual([]);
        await expect(store().revokeToken(c, token.tokenId)).resolves.toBe(false);
      });

      test('when revokes of one token race, then exactly one is true, and the token is no longer found', async () => {
        const c = newCustomer();
        const token = buildToken(c);
        const other = buildToken(c);
        await store().createToken(token);
        await store().createToken(other);
        const revoked = await Promise.all(Array.from({ length: 10 }, () => store().revokeToken(c, token.tokenId)));

        expect(revoked.filter((r) => r)).toHaveLength(1);
        expect(await store().findActiveToken(token.tokenHash)).toBeUndefined();
        expect((await store().listTokens(c)).map((t) => t.tokenId)).toEqual([other.tokenId]);
        expect((await store().findActiveToken(other.tokenHash))?.tokenId).toBe(other.tokenId);
      });

      test('when a token id does not exist, then revokeToken is false', async () => {
        const c = newCustomer();
        await expect(store().revokeToken(c, unique('tok-missing'))).resolves.toBe(false);
      });

      test('when another customer revokes a token, then revokeToken is false and the token still works', async () => {
        const c = newCustomer();
        const token = buildToken(c);
        await store().createToken(token);
        await expect(store().revokeToken(newCustomer(), token.tokenId)).resolves.toBe(false);
        expect(await store().findActiveToken(token.tokenHash)).toEqual(token);
        expect(await store().listTokens(c)).toEqual([record(token)]);
      });
    });

    // ------------------------------------------------------------------ nodes
    describe('nodes', () => {
      const store = useStore(openStore);

      async function customerWithSchemas(): Promise<string> {
        const c = newCustomer();
        await store().putSchema(c, MEMBER);
        await store().putSchema(c, SHOP);
        return c;
      }

      /** How many IDs a search from the nodes holding `value` finds: 0 when no node holds it. */
      async function holders(customerId: string, value: IdPair): Promise<number> {
        return (await store().searchWithTypes(buildQuery({ customerId, where: { id: value } }))).total;
      }

      /** The member_id values of every node linked to `node` (step ALL). */
      async function linkedMembers(node: NodeAddress): Promise<string[]> {
        const r = await store().searchWithTypes(buildQuery({ ...fromKey(node), havingType: 'member_id' }));
        return r.results.map((x) => x.id);
      }

      describe('writes that carry their check (CheckedNode)', () => {
        /** A write to member `key` whose check records what it ran against, and refuses when `refuses` says. */
        const checkedBy = (c: string, seen: SchemaWithPolicy[], key: string, refuses = false): CheckedNode => ({
          customerId: c,
          schemaId: 'member',
          check: (read) => {
            seen.push(read);
            if (refuses) throw new DomainError('blocked_id', 'Refused by the check.');
            return member(c, key);
          },
        });

        test('when a write carries a check, then the store runs it on the schema and policy as stored, and writes the address it answers', async () => {
          const c = await customerWithSchemas();
          await store().putSettings(c, { requireToken: true, timezone: 'Asia/Tokyo' });
          const seen: SchemaWithPolicy[] = [];
          await store().createNode(checkedBy(c, seen, 'm1'), [id('device', 'd1')]);
          expect(seen).toHaveLength(1);
          expect(seen[0]?.schema).toStrictEqual(await store().getSchema(c, 'member'));
          expect(seen[0]?.policy.settings).toStrictEqual(
            await store()
              .customerPolicy(c)
              .then((p) => p.settings),
          );
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('member_id', 'm1')]);
        });

        test("when the check refuses, then its refusal is the answer and nothing is written; in a bulk batch, the line's outcome", async () => {
          const c = await customerWithSchemas();
          const seen: SchemaWithPolicy[] = [];
          await expect(store().createNode(checkedBy(c, seen, 'm1', true), [])).rejects.toMatchObject({ code: 'blocked_id' });
          expect(await store().getNodeIds(member(c, 'm1'))).toBeUndefined();
          const outcomes = await store().applyNodeWrites([
            { kind: 'create', node: checkedBy(c, seen, 'm2', true), ids: [] },
            { kind: 'create', node: checkedBy(c, seen, 'm3'), ids: [] },
          ]);
          expect(outcomes.map((o) => o?.code)).toEqual(['blocked_id', undefined]);
          expect(await store().getNodeIds(member(c, 'm2'))).toBeUndefined();
          expect(await store().getNodeIds(member(c, 'm3'))).toEqual([id('member_id', 'm3')]);
        });
      });

      describe('createNode', () => {
        test('when a node is created, then it holds its key and the given ids', async () => {
          const c = await customerWithSchemas();
          await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1'), id('cookie', 'k1'), id('email', 'a@example.com')]);
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([
            id('cookie', 'k1'),
            id('device', 'd1'),
            id('email', 'a@example.com'),
            id('member_id', 'm1'),
          ]);
        });

        test('when the ids contain the key, then the node holds the key once', async () => {
          const c = await customerWithSchemas();
          await store().createNode(seeded(member(c, 'm1')), [id('member_id', 'm1'), id('device', 'd1')]);
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('member_id', 'm1')]);
        });

        test('when a node does not exist, then getNodeIds gives undefined', async () => {
          const c = await customerWithSchemas();
          await store().createNode(seeded(member(c, 'm1')), []);
          expect(await store().getNodeIds(member(c, 'm2'))).toBeUndefined();
          expect(await store().getNodeIds({ ...member(c, 'm1'), schemaId: 'shop' })).toBeUndefined();
        });

        test('when the key is already taken, then node_exists and the first node is unchanged', async () => {
          const c = await customerWithSchemas();
          await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
          await expect(store().createNode(seeded(member(c, 'm1')), [id('cookie', 'k9')])).rejects.toMatchObject({ code: 'node_exists' });
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('member_id', 'm1')]);
          // The refused IDs were not stored anywhere.
          expect(await holders(c, id('cookie', 'k9'))).toBe(0);
        });

        test('when the same key is used in another schema or by another customer, then both nodes exist', async () => {
          const c = await customerWithSchemas();
          await store().putSchema(c, {
            schemaId: 'shop2',
            idTypes: [
              { type: 'member_id', secure: false },
              { type: 'device', secure: false },
            ],
          });
          const other = await customerWithSchemas();
          await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
          const inShop2: NodeAddress = { customerId: c, schemaId: 'shop2', key: id('member_id', 'm1') };
          await expect(store().createNode(seeded(inShop2), [id('device', 'd2')])).resolves.toBeUndefined();
          await expect(store().createNode(seeded(member(other, 'm1')), [id('cookie', 'k1')])).resolves.toBeUndefined();
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('member_id', 'm1')]);
          expect(await store().getNodeIds(inShop2)).toEqual([id('device', 'd2'), id('member_id', 'm1')]);
          expect(await store().getNodeIds(member(other, 'm1'))).toEqual([id('cookie', 'k1'), id('member_id', 'm1')]);
        });

        test('when creates of one key race, then exactly one succeeds and the rest are node_exists', async () => {
          const c = await customerWithSchemas();
          const outcomes = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => store().createNode(seeded(member(c, 'm1')), [id('device', `d${i}`)])));
          const fulfilled = outcomes.filter((o) => o.status === 'fulfilled');
          const rejected = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
          expect(fulfilled).toHaveLength(1);
          expect(rejected).toHaveLength(7);
          for (const r of rejected) expect(r.reason).toMatchObject({ code: 'node_exists' });
          const held = await store().getNodeIds(member(c, 'm1'));
          expect(held).toHaveLength(2);
          expect(held?.filter((x) => x.type === 'device')).toHaveLength(1);
        });
      });

      describe('insertIds', () => {
        test('when ids are inserted, then the node holds them too', async () => {
          const c = await customerWithSchemas();
          await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
          await store().insertIds(seeded(member(c, 'm1')), [id('cookie', 'k1'), id('device', 'd2')]);
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('cookie', 'k1'), id('device', 'd1'), id('device', 'd2'), id('member_id', 'm1')]);
        });

        test('when an inserted id is held by another node, then both nodes hold it and are linked', async () => {
          const c = await customerWithSchemas();
          await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
          await store().createNode(seeded(member(c, 'm2')), []);
          expect(await linkedMembers(member(c, 'm2'))).toEqual(['m2']);
          await store().insertIds(seeded(member(c, 'm2')), [id('device', 'd1')]);
          expect(await store().getNodeIds(member(c, 'm2'))).toEqual([id('device', 'd1'), id('member_id', 'm2')]);
          expect(await linkedMembers(member(c, 'm2'))).toEqual(['m1', 'm2']);
        });

        test('when the node does not exist, then insertIds rejects with node_not_found and stores nothing', async () => {
          const c = await customerWithSchemas();
          await expect(store().insertIds(seeded(member(c, 'ghost')), [id('device', 'd1')])).rejects.toMatchObject({ code: 'node_not_found' });
          expect(await store().getNodeIds(member(c, 'ghost'))).toBeUndefined();
          expect(await holders(c, id('device', 'd1'))).toBe(0);
        });

        test('when any inserted id is already held, then id_exists and nothing at all is added', async () => {
          const c = await customerWithSchemas();
          await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
          await expect(store().insertIds(seeded(member(c, 'm1')), [id('cookie', 'k1'), id('device', 'd1'), id('device', 'd2')])).rejects.toMatchObject({
            code: 'id_exists',
          });
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('member_id', 'm1')]);
          for (const newId of [id('cookie', 'k1'), id('device', 'd2')]) {
            expect(await holders(c, newId)).toBe(0);
          }
        });

        test('when the key itself is inserted, then id_exists', async () => {
          const c = await customerWithSchemas();
          await store().createNode(seeded(member(c, 'm1')), []);
          await expect(store().insertIds(seeded(member(c, 'm1')), [id('member_id', 'm1')])).rejects.toMatchObject({ code: 'id_exists' });
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('member_id', 'm1')]);
        });

        test('when inserts of different ids into one node run concurrently, then no write is lost', async () => {
          const c = await customerWithSchemas();
          await store().createNode(seeded(member(c, 'm1')), []);
          await Promise.all(Array.from({ length: 10 }, (_, i) => store().insertIds(seeded(member(c, 'm1')), [id('cookie', `k${i}`)])));
          const held = await store().getNodeIds(member(c, 'm1'));
          expect(
            held
              ?.filter((x) => x.type === 'cookie')
              .map((x) => x.id)
              .sort(),
          ).toEqual(['k0', 'k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7', 'k8', 'k9']);
        });
      });

      describe('replaceId (update and upsert)', () => {
        test('when update finds where, then where is replaced by set', async () => {
          const c = await customerWithSchemas();
          await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1'), id('cookie', 'k1')]);
          await store().replaceId(seeded(member(c, 'm1')), id('device', 'd1'), id('device', 'd2'), false);
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('cookie', 'k1'), id('device', 'd2'), id('member_id', 'm1')]);
        });

        test('when update replaces a shared id, then the old link is gone and the new one holds', async () => {
          const c = await customerWithSchemas();
          await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
          await store().createNode(seeded(member(c, 'm2')), [id('device', 'd1')]);
          await store().createNode(seeded(member(c, 'm3')), [id('device', 'd2')]);
          expect(await linkedMembers(member(c, 'm1'))).toEqual(['m1', 'm2']);
          await store().replaceId(seeded(member(c, 'm1')), id('device', 'd1'), id('device', 'd2'), false);
          expect(await linkedMembers(member(c, 'm1'))).toEqual(['m1', 'm3']);
          expect(await linkedMembers(member(c, 'm2'))).toEqual(['m2']);
          expect(await store().getNodeIds(member(c, 'm2'))).toEqual([id('device', 'd1'), id('member_id', 'm2')]);
        });

        test('when update does not find where, then nothing changes', async () => {
          const c = await customerWithSchemas();
          await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
          await expect(store().replaceId(seeded(member(c, 'm1')), id('device', 'dX'), id('device', 'd2'), false)).resolves.toBeUndefined();
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('member_id', 'm1')]);
          expect(await holders(c, id('device', 'd2'))).toBe(0);
        });

        test('when update sets an id the node already holds, then id_exists and nothing changes', async () => {
          const c = await customerWithSchemas();
          await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1'), id('device', 'd2')]);
          await expect(store().replaceId(seeded(member(c, 'm1')), id('device', 'd1'), id('device', 'd2'), false)).rejects.toMatchObject({
            code: 'id_exists',
          });
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('device', 'd2'), id('member_id', 'm1')]);
        });

        test('when update sets the same id as where, then nothing changes', async () => {
          const c = await customerWithSchemas();
          await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
          await expect(store().replaceId(seeded(member(c, 'm1')), id('device', 'd1'), id('device', 'd1'), false)).resolves.toBeUndefined();
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('member_id', 'm1')]);
        });

        test('when update may change the type too, then the new pair replaces the old one', async () => {
          const c = await customerWithSchemas();
          await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
          await store().replaceId(seeded(member(c, 'm1')), id('device', 'd1'), id('cookie', 'd1'), false);
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('cookie', 'd1'), id('member_id', 'm1')]);
        });

        test('when the node does not exist, then replaceId rejects with node_not_found (update and upsert)', async () => {
          const c = await customerWithSchemas();
          for (const upsert of [false, true]) {
            await expect(store().replaceId(seeded(member(c, 'ghost')), id('device', 'd1'), id('device', 'd2'), upsert)).rejects.toMatchObject({
              code: 'node_not_found',
            });
          }
          expect(await store().getNodeIds(member(c, 'ghost'))).toBeUndefined();
          expect(await holders(c, id('device', 'd2'))).toBe(0);
        });

        test('when upsert finds where, then where is replaced by set', async () => {
          const c = await customerWithSchemas();
          await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
          await store().replaceId(seeded(member(c, 'm1')), id('device', 'd1'), id('device', 'd2'), true);
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd2'), id('member_id', 'm1')]);
        });

        test('when upsert does not find where, then set is added', async () => {
          const c = await customerWithSchemas();
          await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
          await store().replaceId(seeded(member(c, 'm1')), id('device', 'dX'), id('device', 'd2'), true);
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('device', 'd2'), id('member_id', 'm1')]);
        });

        test('when upsert does not find where and set is already held, then nothing changes', async () => {
          const c = await customerWithSchemas();
          await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1'), id('device', 'd2')]);
          await expect(store().replaceId(seeded(member(c, 'm1')), id('device', 'dX'), id('device', 'd2'), true)).resolves.toBeUndefined();
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('device', 'd2'), id('member_id', 'm1')]);
        });

        test('when upsert finds where and set is already held, then id_exists and nothing changes', async () => {
          const c = await customerWithSchemas();
          await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1'), id('device', 'd2')]);
          await expect(store().replaceId(seeded(member(c, 'm1')), id('device', 'd1'), id('device', 'd2'), true)).rejects.toMatchObject({
            code: 'id_exists',
          });
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('device', 'd2'), id('member_id', 'm1')]);
        });
      });

      describe('rekey', () => {
        test('when a node is rekeyed, then the new key addresses it, is held, and the old key is gone', async () => {
          const c = await customerWithSchemas();
          await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
          await store().rekey(seeded(member(c, 'm1')), 'm9');
          expect(await store().getNodeIds(member(c, 'm1'))).toBeUndefined();
          expect(await store().getNodeIds(member(c, 'm9'))).toEqual([id('device', 'd1'), id('member_id', 'm9')]);
          // The old key is no longer held by anyone, the new key is held by the node.
          expect(await holders(c, id('member_id', 'm1'))).toBe(0);
          const byNewKey = await store().searchWithTypes(buildQuery({ customerId: c, where: { id: id('member_id', 'm9') } }));
          expect(byNewKey.results).toEqual([id('device', 'd1'), id('member_id', 'm9')]);
          // The old key can be used again.
          await expect(store().createNode(seeded(member(c, 'm1')), [])).resolves.toBeUndefined();
        });

        test('when the new key id equals the old one, then nothing changes', async () => {
          const c = await customerWithSchemas();
          await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
          await expect(store().rekey(seeded(member(c, 'm1')), 'm1')).resolves.toBeUndefined();
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('member_id', 'm1')]);
        });

        test('when the new key is taken by another node of the schema, then node_exists and both nodes are unchanged', async () => {
          const c = await customerWithSchemas();
          await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
          await store().createNode(seeded(member(c, 'm2')), [id('device', 'd2')]);
          await expect(store().rekey(seeded(member(c, 'm1')), 'm2')).rejects.toMatchObject({ code: 'node_exists' });
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('member_id', 'm1')]);
          expect(await store().getNodeIds(member(c, 'm2'))).toEqual([id('device', 'd2'), id('member_id', 'm2')]);
        });

        test('when the node does not exist, then rekey rejects with node_not_found', async () => {
          const c = await customerWithSchemas();
          await expect(store().rekey(seeded(member(c, 'ghost')), 'm9')).rejects.toMatchObject({ code: 'node_not_found' });
          expect(await store().getNodeIds(member(c, 'm9'))).toBeUndefined();
        });

        test('when the new key id is the key of a node in another schema, then rekey succeeds and links them', async () => {
          const c = await customerWithSchemas();
          await store().putSchema(c, { schemaId: 'crm', idTypes: [{ type: 'member_id', secure: false }] });
          const crm: NodeAddress = { customerId: c, schemaId: 'crm', key: id('member_id', 'm2') };
          await store().createNode(seeded(crm), []);
          await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
          await store().rekey(seeded(member(c, 'm1')), 'm2');
          expect(await store().getNodeIds(member(c, 'm2'))).toEqual([id('device', 'd1'), id('member_id', 'm2')]);
          expect(await store().getNodeIds(crm)).toEqual([id('member_id', 'm2')]);
          const linked = await store().searchWithTypes(buildQuery({ ...fromKey(crm), exclude: true }));
          expect(linked.results).toEqual([id('device', 'd1'), id('member_id', 'm2')]);
        });

        test('when two rekeys of one node race, then one wins, the other is node_not_found, and no old key stays held', async () => {
          const c = await customerWithSchemas();
          await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
          const outcomes = await Promise.allSettled([store().rekey(seeded(member(c, 'm1')), 'm8'), store().rekey(seeded(member(c, 'm1')), 'm9')]);
          expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
          const lost = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
          expect(lost?.reason).toMatchObject({ code: 'node_not_found' });
          const winner = outcomes[0]?.status === 'fulfilled' ? 'm8' : 'm9';
          expect(await store().getNodeIds(member(c, winner))).toEqual([id('device', 'd1'), id('member_id', winner)]);
          for (const gone of ['m1', 'm8', 'm9'].filter((k) => k !== winner)) expect(await store().getNodeIds(member(c, gone))).toBeUndefined();
        });

        test('when a rekey races a write to the old key, then the write either came first or finds no node', async () => {
          const c = await customerWithSchemas();
          await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
          const [rekeyed, inserted] = await Promise.allSettled([
            store().rekey(seeded(member(c, 'm1')), 'm9'),
            store().insertIds(seeded(member(c, 'm1')), [id('cookie', 'k1')]),
          ]);
          expect(rekeyed.status).toBe('fulfilled');
          const held = await store().getNodeIds(member(c, 'm9'));
          if (inserted.status === 'fulfilled') {
            expect(held).toEqual([id('cookie', 'k1'), id('device', 'd1'), id('member_id', 'm9')]);
          } else {
            expect(inserted.reason).toMatchObject({ code: 'node_not_found' });
            expect(held).toEqual([id('device', 'd1'), id('member_id', 'm9')]);
          }
          expect(await store().getNodeIds(member(c, 'm1'))).toBeUndefined();
        });
      });

      describe('removeId and deleteNode', () => {
        test('when a held id is removed, then the node no longer holds it and its link is gone', async () => {
          const c = await customerWithSchemas();
          await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1'), id('cookie', 'k1')]);
          await store().createNode(seeded(member(c, 'm2')), [id('device', 'd1')]);
          await store().removeId(seeded(member(c, 'm1')), id('device', 'd1'));
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('cookie', 'k1'), id('member_id', 'm1')]);
          expect(await store().getNodeIds(member(c, 'm2'))).toEqual([id('device', 'd1'), id('member_id', 'm2')]);
          expect(await linkedMembers(member(c, 'm2'))).toEqual(['m2']);
        });

        test('when the removed id is not held, then nothing changes', async () => {
          const c = await customerWithSchemas();
          await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
          await store().createNode(seeded(member(c, 'm2')), [id('device', 'd2')]);
          // d2 exists (held by m2) but not by m1.
          await expect(store().removeId(seeded(member(c, 'm1')), id('device', 'd2'))).resolves.toBeUndefined();
          await expect(store().removeId(seeded(member(c, 'm1')), id('device', 'dX'))).resolves.toBeUndefined();
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('member_id', 'm1')]);
          expect(await store().getNodeIds(member(c, 'm2'))).toEqual([id('device', 'd2'), id('member_id', 'm2')]);
        });

        test('when the node does not exist, then removeId rejects with node_not_found', async () => {
          const c = await customerWithSchemas();
          await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
          await expect(store().removeId(seeded(member(c, 'ghost')), id('device', 'd1'))).rejects.toMatchObject({ code: 'node_not_found' });
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('member_id', 'm1')]);
        });

        test('when a node is deleted, then it is gone with its links and its key is free again', async () => {
          const c = await customerWithSchemas();
          await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1'), id('cookie', 'k1')]);
          await store().createNode(seeded(member(c, 'm2')), [id('device', 'd1')]);
          await store().deleteNode(seeded(member(c, 'm1')));
          expect(await store().getNodeIds(member(c, 'm1'))).toBeUndefined();
          expect(await store().getNodeIds(member(c, 'm2'))).toEqual([id('device', 'd1'), id('member_id', 'm2')]);
          const byDevice = await store().searchWithTypes(buildQuery({ customerId: c, where: { id: id('device', 'd1') } }));
          expect(byDevice.results).toEqual([id('device', 'd1'), id('member_id', 'm2')]);
          expect(await holders(c, id('cookie', 'k1'))).toBe(0);
          await store().createNode(seeded(member(c, 'm1')), []);
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('member_id', 'm1')]);
        });

        test('when the node to delete does not exist, then deleteNode rejects with node_not_found', async () => {
          const c = await customerWithSchemas();
          await store().createNode(seeded(member(c, 'm1')), []);
          await expect(store().deleteNode(seeded(member(c, 'ghost')))).rejects.toMatchObject({ code: 'node_not_found' });
          await store().deleteNode(seeded(member(c, 'm1')));
          await expect(store().deleteNode(seeded(member(c, 'm1')))).rejects.toMatchObject({ code: 'node_not_found' });
        });

        test('when deletes of the same nodes race with writes to them, then each node is deleted once, every other call is node_not_found or came first, and no ID of theirs stays held', async () => {
          const c = await customerWithSchemas();
          const keys = ['m1', 'm2', 'm3', 'm4'];
          for (const k of keys) await store().createNode(seeded(member(c, k)), [id('device', `d-${k}`), id('cookie', 'shared')]);
          await store().createNode(seeded(member(c, 'kept')), [id('cookie', 'shared')]);
          type Outcome = { key: string; kind: 'delete' | 'insert' | 'remove'; result: PromiseSettledResult<void> };
          const calls = keys.flatMap((k) => [
            ...Array.from({ length: 4 }, () => ({ key: k, kind: 'delete' as const, run: () => store().deleteNode(seeded(member(c, k))) })),
            ...Array.from({ length: 3 }, (_, j) => ({
              key: k,
              kind: 'insert' as const,
              run: () => store().insertIds(seeded(member(c, k)), [id('cookie', `late-${k}-${j}`)]),
            })),
            { key: k, kind: 'remove' as const, run: () => store().removeId(seeded(member(c, k)), id('device', `d-${k}`)) },
          ]);
          // Interleaved, so that each node's calls reach the store together.
          const order = interleaved(calls, 13);
          const settled = await Promise.allSettled(order.map((call) => call.run()));
          const outcomes: Outcome[] = order.map((call, i) => ({ key: call.key, kind: call.kind, result: settled[i] as PromiseSettledResult<void> }));

          for (const o of outcomes) {
            if (o.result.status === 'rejected') expect([o.kind, o.result.reason]).toMatchObject([o.kind, { code: 'node_not_found' }]);
          }
          for (const k of keys) {
            const deletes = outcomes.filter((o) => o.key === k && o.kind === 'delete');
            expect(deletes.filter((o) => o.result.status === 'fulfilled')).toHaveLength(1);
            expect(await store().getNodeIds(member(c, k))).toBeUndefined();
            for (const gone of [id('device', `d-${k}`), ...[0, 1, 2].map((j) => id('cookie', `late-${k}-${j}`))]) {
              expect(await holders(c, gone)).toBe(0);
            }
            await expect(store().deleteNode(seeded(member(c, k)))).rejects.toMatchObject({ code: 'node_not_found' });
          }
          expect(await store().getNodeIds(member(c, 'kept'))).toEqual([id('cookie', 'shared'), id('member_id', 'kept')]);
          const linked = await store().searchWithTypes(buildQuery({ customerId: c, where: { id: id('cookie', 'shared') } }));
          expect(linked.results).toEqual([id('cookie', 'shared'), id('member_id', 'kept')]);
        });
      });

      describe('writers of every kind on one node', () => {
        test('when 50 writers of mixed kinds race on one node, then it ends as any serial order leaves it: every write applied once, nothing lost or doubled', async () => {
          const c = await customerWithSchemas();
          const range = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
          const replaced = range(10, 'r');
          const removed = range(10, 'x');
          const inserted = range(18, 'i');
          const upserted = range(8, 'u');
          await store().createNode(seeded(member(c, 'm1')), [...replaced.map((r) => id('device', r)), ...removed.map((x) => id('cookie', x))]);
          // Another node shares a replaced, a removed and an inserted ID: those Id vertices must stay, and link the two.
          await store().createNode(seeded(member(c, 'm2')), [id('device', 'r0'), id('cookie', 'x0'), id('cookie', 'i0')]);

          const m1 = member(c, 'm1');
          const writers: Array<() => Promise<void>> = [
            ...inserted.map((i) => () => store().insertIds(seeded(m1), [id('cookie', i)])),
            // Two inserts of one ID: whichever comes second finds it held.
            () => store().insertIds(seeded(m1), [id('cookie', 'twice')]),
            () => store().insertIds(seeded(m1), [id('cookie', 'twice')]),
            ...upserted.map((u) => () => store().replaceId(seeded(m1), id('device', `absent-${u}`), id('device', u), true)),
            // Two upserts of one ID: the second finds it held and changes nothing.
            () => store().replaceId(seeded(m1), id('device', 'absent-a'), id('device', 'upserted-twice'), true),
            () => store().replaceId(seeded(m1), id('device', 'absent-b'), id('device', 'upserted-twice'), true),
            ...replaced.map((r) => () => store().replaceId(seeded(m1), id('device', r), id('device', `s${r.slice(1)}`), false)),
            ...removed.map((x) => () => store().removeId(seeded(m1), id('cookie', x))),
          ];
          expect(writers).toHaveLength(50);
          // Issued interleaved, every kind among the others.
          const order = interleaved(
            writers.map((_, i) => i),
            7,
          );
          expect(new Set(order).size).toBe(50);
          const settled = await Promise.allSettled(order.map((i) => (writers[i] as () => Promise<void>)()));

          const byWriter = new Map(order.map((writer, issued) => [writer, settled[issued] as PromiseSettledResult<void>]));
          const twiceInserts = [inserted.length, inserted.length + 1].map((w) => byWriter.get(w));
          expect(twiceInserts.map((o) => o?.status).sort()).toEqual(['fulfilled', 'rejected']);
          expect(twiceInserts.find((o): o is PromiseRejectedResult => o?.status === 'rejected')?.reason).toMatchObject({ code: 'id_exists' });
          const others = [...byWriter.entries()].filter(([w]) => w !== inserted.length && w !== inserted.length + 1).map(([, o]) => o);
          expect(others.filter((o) => o.status === 'rejected')).toEqual([]);

          const byTypeThenValue = (a: IdPair, b: IdPair) => (a.type === b.type ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.type < b.type ? -1 : 1);
          const expected = [
            id('member_id', 'm1'),
            ...inserted.map((i) => id('cookie', i)),
            id('cookie', 'twice'),
            ...upserted.map((u) => id('device', u)),
            id('device', 'upserted-twice'),
            ...replaced.map((r) => id('device', `s${r.slice(1)}`)),
          ].sort(byTypeThenValue);
          expect(await store().getNodeIds(m1)).toEqual(expected);
          expect(await store().getNodeIds(member(c, 'm2'))).toEqual([id('cookie', 'i0'), id('cookie', 'x0'), id('device', 'r0'), id('member_id', 'm2')]);
          expect(await linkedMembers(m1)).toEqual(['m1', 'm2']);
          // IDs no node holds any more are gone.
          for (const gone of [...replaced.slice(1).map((r) => id('device', r)), ...removed.slice(1).map((x) => id('cookie', x))]) {
            expect(await holders(c, gone)).toBe(0);
          }
        });
      });

      describe('the limit of IDs per node (NodeAddress.maxIds)', () => {
        const limited = (c: string, memberId: string, maxIds: number): NodeAddress => ({ ...member(c, memberId), maxIds });

        test('when a write would make a node hold more than maxIds IDs, then node_id_limit_reached and nothing changes; writes that do not grow it pass', async () => {
          const c = await customerWithSchemas();
          await expect(store().createNode(seeded(limited(c, 'm1', 2)), [id('member_id', 'm1'), id('device', 'd1'), id('device', 'd2')])).rejects.toMatchObject({
            code: 'node_id_limit_reached',
          });
          expect(await store().getNodeIds(member(c, 'm1'))).toBeUndefined();
          await store().createNode(seeded(limited(c, 'm1', 2)), [id('member_id', 'm1'), id('device', 'd1')]);
          await expect(store().insertIds(seeded(limited(c, 'm1', 2)), [id('cookie', 'k1')])).rejects.toMatchObject({ code: 'node_id_limit_reached' });
          await expect(store().replaceId(seeded(limited(c, 'm1', 2)), id('cookie', 'k0'), id('cookie', 'k1'), true)).rejects.toMatchObject({
            code: 'node_id_limit_reached',
          });
          await store().replaceId(seeded(limited(c, 'm1', 2)), id('device', 'd1'), id('device', 'd2'), true);
          await store().rekey(seeded(limited(c, 'm1', 2)), 'm2');
          expect(await store().getNodeIds(member(c, 'm2'))).toEqual([id('device', 'd2'), id('member_id', 'm2')]);
          // A node already past a lowered limit keeps what it holds and may still change it without growing.
          await store().replaceId(seeded(limited(c, 'm2', 1)), id('device', 'd2'), id('device', 'd3'), false);
          expect(
            await store().applyNodeWrites([
              { kind: 'insert', node: seeded(limited(c, 'm2', 3)), ids: [id('cookie', 'k1'), id('cookie', 'k2')] },
              { kind: 'insert', node: seeded(limited(c, 'm2', 3)), ids: [id('cookie', 'k1')] },
            ]),
          ).toEqual([expect.objectContaining({ code: 'node_id_limit_reached' }), undefined]);
          expect(await store().getNodeIds(member(c, 'm2'))).toEqual([id('cookie', 'k1'), id('device', 'd3'), id('member_id', 'm2')]);
        });

        test('when a create would pass maxIds and its schema changed since the check, then it is schema_changed, alone as in bulk', async () => {
          // The schema's guard comes before the count, whichever way the create is applied.
          const c = await customerWithSchemas();
          const stale = (memberId: string): NodeAddress => ({ ...limited(c, memberId, 1), expectedTypes: [{ type: 'member_id', secure: true }] });
          await expect(store().createNode(seeded(stale('m1')), [id('device', 'd1')])).rejects.toMatchObject({ code: 'schema_changed' });
          const bulk = await store().applyNodeWrites([
            { kind: 'create', node: seeded(stale('m1')), ids: [id('device', 'd1')] },
            { kind: 'create', node: seeded(member(c, 'm2')), ids: [] },
          ]);
          expect(bulk.map((o) => o?.code)).toEqual(['schema_changed', undefined]);
          expect(await store().getNodeIds(member(c, 'm1'))).toBeUndefined();
        });

        test('when 30 inserts race into a node with room for 9 more IDs, then exactly enough succeed to fill it, and it never holds more', async () => {
          const c = await customerWithSchemas();
          await store().createNode(seeded(member(c, 'm1')), []);
          const settled = await Promise.allSettled(
            Array.from({ length: 30 }, (_, i) => store().insertIds(seeded(limited(c, 'm1', 10)), [id('cookie', `k${String(i).padStart(2, '0')}`)])),
          );
          const inserted = settled.flatMap((o, i) => (o.status === 'fulfilled' ? [id('cookie', `k${String(i).padStart(2, '0')}`)] : []));
          expect(inserted).toHaveLength(9);
          for (const o of settled) if (o.status === 'rejected') expect(o.reason).toMatchObject({ code: 'node_id_limit_reached' });
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([...inserted, id('member_id', 'm1')]);
        });
      });

      describe('applyNodeWrites (bulk)', () => {
        test('when a batch mixes good and refused writes, then each has the outcome of its single method and only the good ones change anything', async () => {
          const c = await customerWithSchemas();
          await store().createNode(seeded(member(c, 'm0')), [id('device', 'd0')]);
          const outcomes = await store().applyNodeWrites([
            { kind: 'create', node: seeded(member(c, 'm1')), ids: [id('device', 'd1')] },
            { kind: 'create', node: seeded(member(c, 'm1')), ids: [id('cookie', 'never')] },
            { kind: 'insert', node: seeded(member(c, 'm1')), ids: [id('cookie', 'k1')] },
            { kind: 'insert', node: seeded(member(c, 'm1')), ids: [id('cookie', 'k2'), id('device', 'd1')] },
            { kind: 'insert', node: seeded(member(c, 'ghost')), ids: [id('cookie', 'k3')] },
            { kind: 'replace', node: seeded(member(c, 'm0')), where: id('device', 'd0'), set: id('device', 'd1'), upsert: false },
            { kind: 'replace', node: seeded(member(c, 'm1')), where: id('cookie', 'k1'), set: id('device', 'd1'), upsert: true },
            { kind: 'removeId', node: seeded(member(c, 'm1')), id: id('cookie', 'k1') },
            { kind: 'deleteNode', node: seeded(member(c, 'ghost')) },
          ]);
          expect(outcomes.map((o) => o?.code)).toEqual([
            undefined,
            'node_exists',
            undefined,
            'id_exists',
            'node_not_found',
            undefined,
            'id_exists',
            undefined,
            'node_not_found',
          ]);
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('member_id', 'm1')]);
          expect(await store().getNodeIds(member(c, 'm0'))).toEqual([id('device', 'd1'), id('member_id', 'm0')]);
          expect(await linkedMembers(member(c, 'm0'))).toEqual(['m0', 'm1']);
          expect(await holders(c, id('cookie', 'never'))).toBe(0);
        });

        test('when a run of creates meets a taken key, a key repeated in the batch, too many IDs and a changed schema, then only those lines are refused and every other create is made', async () => {
          // On Neo4j, consecutive creates are one statement (node.create-many): each refusal must still be its line's.
          const c = await customerWithSchemas();
          await store().createNode(seeded(member(c, 'm0')), [id('device', 'd0')]);
          const create = (node: NodeAddress, ...ids: IdPair[]): NodeWrite => ({ kind: 'create', node: seeded(node), ids });
          const outcomes = await store().applyNodeWrites([
            create(member(c, 'm1'), id('device', 'shared')),
            create(member(c, 'm2'), id('device', 'shared'), id('cookie', 'k2')),
            create(member(c, 'm0'), id('cookie', 'never-1')),
            create(member(c, 'm3')),
            create(member(c, 'm1'), id('cookie', 'never-2')),
            create({ ...member(c, 'm4'), maxIds: 2 }, id('cookie', 'never-3'), id('cookie', 'never-4')),
            create({ ...member(c, 'm5'), expectedTypes: [{ type: 'member_id', secure: true }] }, id('cookie', 'never-5')),
            create(member(c, 'm6'), id('cookie', 'k6')),
            create(member(c, 'm7'), id('device', 'shared')),
          ]);
          expect(outcomes.map((o) => o?.code)).toEqual([
            undefined,
            undefined,
            'node_exists',
            undefined,
            'node_exists',
            'node_id_limit_reached',
            'schema_changed',
            undefined,
            undefined,
          ]);
          expect(await store().getNodeIds(member(c, 'm0'))).toEqual([id('device', 'd0'), id('member_id', 'm0')]);
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('device', 'shared'), id('member_id', 'm1')]);
          expect(await store().getNodeIds(member(c, 'm2'))).toEqual([id('cookie', 'k2'), id('device', 'shared'), id('member_id', 'm2')]);
          expect(await store().getNodeIds(member(c, 'm3'))).toEqual([id('member_id', 'm3')]);
          for (const gone of ['m4', 'm5']) expect(await store().getNodeIds(member(c, gone))).toBeUndefined();
          expect(await store().getNodeIds(member(c, 'm6'))).toEqual([id('cookie', 'k6'), id('member_id', 'm6')]);
          expect(await linkedMembers(member(c, 'm1'))).toEqual(['m1', 'm2', 'm7']);
          for (const never of ['never-1', 'never-2', 'never-3', 'never-4', 'never-5']) {
            expect(await holders(c, id('cookie', never))).toBe(0);
          }
        });

        test('when a run of inserts meets a missing node, an ID held, too many IDs and a changed schema, then only those lines are refused and every other insert is applied', async () => {
          // On Neo4j, consecutive inserts take each step in one statement for all (node.lock-many, node.held-many,
          // node.link-many): each refusal must still be its line's.
          const c = await customerWithSchemas();
          await store().createNode(seeded(member(c, 'm0')), [id('device', 'd0')]);
          await store().createNode(seeded(member(c, 'm1')), []);
          await store().createNode(seeded(member(c, 'm2')), [id('cookie', 'k2')]);
          await store().createNode(seeded(member(c, 'm3')), [id('device', 'd3')]);
          const insert = (node: NodeAddress, ...ids: IdPair[]): NodeWrite => ({ kind: 'insert', node: seeded(node), ids });
          const outcomes = await store().applyNodeWrites([
            insert(member(c, 'm0'), id('cookie', 'k0')),
            insert(member(c, 'ghost'), id('cookie', 'never-1')),
            insert(member(c, 'm2'), id('device', 'd2'), id('cookie', 'k2')),
            insert({ ...member(c, 'm3'), maxIds: 2 }, id('cookie', 'never-2')),
            insert(member(c, 'm1'), id('cookie', 'k1'), id('device', 'd0')),
            insert({ ...member(c, 'm3'), expectedTypes: [{ type: 'member_id', secure: true }] }, id('cookie', 'never-3')),
            insert(member(c, 'm0'), id('cookie', 'k0-again')),
            insert(member(c, 'm0'), id('cookie', 'k0')),
            insert(member(c, 'm3'), id('cookie', 'k3')),
          ]);
          expect(outcomes.map((o) => o?.code)).toEqual([
            undefined,
            'node_not_found',
            'id_exists',
            'node_id_limit_reached',
            undefined,
            'schema_changed',
            undefined,
            'id_exists',
            undefined,
          ]);
          expect(outcomes[2]?.message).toContain('cookie=k2');
          expect(await store().getNodeIds(member(c, 'm0'))).toEqual([id('cookie', 'k0'), id('cookie', 'k0-again'), id('device', 'd0'), id('member_id', 'm0')]);
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('cookie', 'k1'), id('device', 'd0'), id('member_id', 'm1')]);
          expect(await store().getNodeIds(member(c, 'm2'))).toEqual([id('cookie', 'k2'), id('member_id', 'm2')]);
          expect(await store().getNodeIds(member(c, 'm3'))).toEqual([id('cookie', 'k3'), id('device', 'd3'), id('member_id', 'm3')]);
          expect(await store().getNodeIds(member(c, 'ghost'))).toBeUndefined();
          expect(await linkedMembers(member(c, 'm0'))).toEqual(['m0', 'm1']);
          for (const never of ['never-1', 'never-2', 'never-3']) {
            expect(await holders(c, id('cookie', never))).toBe(0);
          }
        });

        test('when a run of upserts, updates and ID removals meets a missing node, a `set` held, too many IDs and a changed schema, then only those lines are refused, the others change their nodes, and the IDs no node holds any more go', async () => {
          // On Neo4j, consecutive upserts, updates and ID removals take each step in one statement for all
          // (node.lock-many, node.held-many, node.unlink-many, node.link-many): each refusal must still be its line's.
          const c = await customerWithSchemas();
          await store().createNode(seeded(member(c, 'm0')), [id('device', 'd0'), id('cookie', 'shared')]);
          await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
          await store().createNode(seeded(member(c, 'm2')), [id('device', 'd2'), id('cookie', 'k2')]);
          await store().createNode(seeded(member(c, 'm3')), [id('device', 'd3')]);
          await store().createNode(seeded(member(c, 'm4')), [id('cookie', 'shared')]);
          await store().createNode(seeded(member(c, 'm5')), [id('device', 'd5')]);
          const replace = (node: NodeAddress, where: IdPair, set: IdPair, upsert = true): NodeWrite => ({
            kind: 'replace',
            node: seeded(node),
            where,
            set,
            upsert,
          });
          const removeId = (node: NodeAddress, held: IdPair): NodeWrite => ({ kind: 'removeId', node: seeded(node), id: held });
          const outcomes = await store().applyNodeWrites([
            replace(member(c, 'm0'), id('device', 'd0'), id('device', 'd0x')),
            replace(member(c, 'ghost'), id('device', 'd0'), id('cookie', 'never-1')),
            replace(member(c, 'm2'), id('cookie', 'k2'), id('device', 'd2'), false),
            replace({ ...member(c, 'm3'), maxIds: 2 }, id('cookie', 'none'), id('cookie', 'never-2')),
            removeId(member(c, 'm4'), id('cookie', 'shared')),
            replace({ ...member(c, 'm5'), expectedTypes: [{ type: 'member_id', secure: true }] }, id('device', 'd5'), id('cookie', 'never-3')),
            removeId(member(c, 'm1'), id('device', 'd1')),
            // d0, which line 0 left orphaned, is held again.
            replace(member(c, 'm2'), id('device', 'd2'), id('device', 'd0')),
            replace(member(c, 'm3'), id('cookie', 'none'), id('cookie', 'k3')),
            removeId(member(c, 'm5'), id('cookie', 'none')),
            replace(member(c, 'm1'), id('cookie', 'none'), id('cookie', 'never-4'), false),
            replace(member(c, 'm0'), id('device', 'd0x'), id('device', 'd0x')),
          ]);
          expect(outcomes.map((o) => o?.code)).toEqual([
            undefined,
            'node_not_found',
            'id_exists',
            'node_id_limit_reached',
            undefined,
            'schema_changed',
            undefined,
            undefined,
            undefined,
            undefined,
            undefined,
            undefined,
          ]);
          expect(outcomes[2]?.message).toContain('device=d2');
          expect(await store().getNodeIds(member(c, 'm0'))).toEqual([id('cookie', 'shared'), id('device', 'd0x'), id('member_id', 'm0')]);
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('member_id', 'm1')]);
          expect(await store().getNodeIds(member(c, 'm2'))).toEqual([id('cookie', 'k2'), id('device', 'd0'), id('member_id', 'm2')]);
          expect(await store().getNodeIds(member(c, 'm3'))).toEqual([id('cookie', 'k3'), id('device', 'd3'), id('member_id', 'm3')]);
          expect(await store().getNodeIds(member(c, 'm4'))).toEqual([id('member_id', 'm4')]);
          expect(await store().getNodeIds(member(c, 'm5'))).toEqual([id('device', 'd5'), id('member_id', 'm5')]);
          expect(await linkedMembers(member(c, 'm0'))).toEqual(['m0']);
          expect(await linkedMembers(member(c, 'm2'))).toEqual(['m2']);
          for (const gone of [id('device', 'd1'), id('device', 'd2')]) {
            expect(await holders(c, gone)).toBe(0);
          }
          for (const never of ['never-1', 'never-2', 'never-3', 'never-4']) {
            expect(await holders(c, id('cookie', never))).toBe(0);
          }
        });

        test('when a run of deletes meets missing nodes, then only those lines are node_not_found, and the IDs no node holds any more go', async () => {
          // On Neo4j, consecutive deletes take each step in one statement for all (node.lock-many, node.ids-many,
          // node.delete-many), which must still remove exactly the orphaned Id vertices.
          const c = await customerWithSchemas();
          await store().createNode(seeded(member(c, 'm0')), [id('device', 'd0'), id('cookie', 'shared')]);
          await store().createNode(seeded(member(c, 'm1')), [id('device', 'd12'), id('cookie', 'shared')]);
          await store().createNode(seeded(member(c, 'm2')), [id('device', 'd12')]);
          await store().createNode(seeded(member(c, 'kept')), [id('cookie', 'shared')]);
          const remove = (k: string): NodeWrite => ({ kind: 'deleteNode', node: seeded(member(c, k)) });
          const outcomes = await store().applyNodeWrites([remove('m0'), remove('ghost'), remove('m1'), remove('m0'), remove('m2')]);
          expect(outcomes.map((o) => o?.code)).toEqual([undefined, 'node_not_found', undefined, 'node_not_found', undefined]);
          for (const gone of ['m0', 'm1', 'm2']) expect(await store().getNodeIds(member(c, gone))).toBeUndefined();
          expect(await store().getNodeIds(member(c, 'kept'))).toEqual([id('cookie', 'shared'), id('member_id', 'kept')]);
          for (const gone of [id('device', 'd0'), id('device', 'd12')]) {
            expect(await holders(c, gone)).toBe(0);
          }
          // The IDs left behind can be held again.
          await store().createNode(seeded(member(c, 'm3')), [id('device', 'd12'), id('device', 'd0')]);
          expect(await linkedMembers(member(c, 'kept'))).toEqual(['kept']);
        });

        test('when a later write in the batch depends on an earlier one, then it sees it (writes apply in order)', async () => {
          const c = await customerWithSchemas();
          const outcomes = await store().applyNodeWrites([
            { kind: 'create', node: seeded(member(c, 'm1')), ids: [] },
            { kind: 'insert', node: seeded(member(c, 'm1')), ids: [id('device', 'd1')] },
            { kind: 'deleteNode', node: seeded(member(c, 'm1')) },
            { kind: 'create', node: seeded(member(c, 'm1')), ids: [id('cookie', 'k1')] },
          ]);
          expect(outcomes).toEqual([undefined, undefined, undefined, undefined]);
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('cookie', 'k1'), id('member_id', 'm1')]);
        });

        test('when bulk batches race on the same keys and IDs, then every key is created once, by exactly one line, and holds what that line gave it', async () => {
          const c = await customerWithSchemas();
          const keys = Array.from({ length: 100 }, (_, i) => `m${i}`);
          /** The key of line i of batch b (the even batches go in key order, the odd ones in reverse). */
          const keyAt = (b: number, i: number) => (b % 2 === 0 ? keys[i] : keys[keys.length - 1 - i]);
          // Six batches over the same 100 keys, three in key order and three in reverse, with IDs shared between
          // batches: every key is raced for by all six, from both ends (on Neo4j, some 15 s of contended creates
          // on two idle cores; a busy machine takes several times that).
          const batches = Array.from({ length: 6 }, (_, b) => {
            const order = b % 2 === 0 ? keys : [...keys].reverse();
            return order.map((k): NodeWrite => ({
              kind: 'create',
              node: seeded(member(c, k)),
              ids: [id('device', `${k}-b${b}`), id('cookie', `shared-${k}`)],
            }));
          });
          const outcomes = await Promise.all(batches.map((batch) => store().applyNodeWrites(batch)));
          const held = await Promise.all(keys.map((k) => store().getNodeIds(member(c, k))));
          keys.forEach((k, index) => {
            const winners = batches.flatMap((batch, b) => batch.flatMap((_w, i) => (keyAt(b, i) === k && outcomes[b]?.[i] === undefined ? [b] : [])));
            expect(winners).toHaveLength(1);
            const losers = batches.flatMap((batch, b) => batch.flatMap((_w, i) => (keyAt(b, i) === k && b !== winners[0] ? [outcomes[b]?.[i]?.code] : [])));
            expect(new Set(losers)).toEqual(new Set(['node_exists']));
            expect(held[index]).toEqual([id('cookie', `shared-${k}`), id('device', `${k}-b${winners[0]}`), id('member_id', k)]);
          });
        });

        test('when bulk batches of inserts race on the same nodes in opposite orders, then every line is applied and each node holds what every batch gave it', async () => {
          const c = await customerWithSchemas();
          const keys = Array.from({ length: 40 }, (_, i) => `m${i}`);
          for (const k of keys) await store().createNode(seeded(member(c, k)), [id('cookie', 'shared')]);
          // Four batches over the same 40 nodes, each in its own order, each giving every node a device of its own.
          const batches = Array.from({ length: 4 }, (_, b) => {
            const order = b % 2 === 0 ? keys : [...keys].reverse();
            return order.map((k): NodeWrite => ({ kind: 'insert', node: seeded(member(c, k)), ids: [id('device', `${k}-b${b}`)] }));
          });
          const outcomes = await Promise.all(batches.map((batch) => store().applyNodeWrites(batch)));
          expect(outcomes.flat().filter((o) => o !== undefined)).toEqual([]);
          for (const k of keys) {
            expect(await store().getNodeIds(member(c, k))).toEqual([
              id('cookie', 'shared'),
              ...[0, 1, 2, 3].map((b) => id('device', `${k}-b${b}`)),
              id('member_id', k),
            ]);
          }
        });

        test('when bulk batches of upserts and ID removals race on the same nodes in opposite orders, then every line is applied once, and an Id vertex the last holder let go of is gone', async () => {
          const c = await customerWithSchemas();
          const keys = Array.from({ length: 40 }, (_, i) => `m${i}`);
          for (const k of keys) await store().createNode(seeded(member(c, k)), [id('device', `${k}-old`), id('cookie', 'shared')]);
          // Four batches over the same 40 nodes, each in its own order: two upserts that add (one a device of the
          // node's own, one an ID all come to hold), two removals (one of an ID of the node's own, one of the ID all held).
          const nowhere = id('device', 'nowhere');
          const lines: Array<(k: string) => NodeWrite> = [
            (k) => ({ kind: 'replace', node: seeded(member(c, k)), where: nowhere, set: id('device', `${k}-new`), upsert: true }),
            (k) => ({ kind: 'replace', node: seeded(member(c, k)), where: nowhere, set: id('cookie', 'together'), upsert: true }),
            (k) => ({ kind: 'removeId', node: seeded(member(c, k)), id: id('device', `${k}-old`) }),
            (k) => ({ kind: 'removeId', node: seeded(member(c, k)), id: id('cookie', 'shared') }),
          ];
          const batches = lines.map((line, b) => (b % 2 === 0 ? keys : [...keys].reverse()).map(line));
          const outcomes = await Promise.all(batches.map((batch) => store().applyNodeWrites(batch)));
          expect(outcomes.flat().filter((o) => o !== undefined)).toEqual([]);
          for (const k of keys)
            expect(await store().getNodeIds(member(c, k))).toEqual([id('cookie', 'together'), id('device', `${k}-new`), id('member_id', k)]);
          expect(await linkedMembers(member(c, 'm0'))).toHaveLength(40);
          for (const gone of [id('cookie', 'shared'), id('device', 'm0-old'), id('device', 'm39-old')]) {
            expect(await holders(c, gone)).toBe(0);
          }
        });

        test('when bulk batches of deletes race single deletes of the same nodes, then each node is deleted once, by one line or call, and every other is node_not_found', async () => {
          const c = await customerWithSchemas();
          const keys = Array.from({ length: 60 }, (_, i) => `m${i}`);
          /** The key of line i of batch b (the even batches go in key order, the odd ones in reverse). */
          const keyAt = (b: number, i: number) => (b % 2 === 0 ? keys[i] : keys[keys.length - 1 - i]);
          for (const k of keys) await store().createNode(seeded(member(c, k)), [id('device', `d-${k}`), id('cookie', 'shared')]);
          await store().createNode(seeded(member(c, 'kept')), [id('cookie', 'shared')]);
          // Four batches over the same 60 nodes, each in its own order, beside a single delete of every third node.
          const batches = Array.from({ length: 4 }, (_, b) => {
            const order = b % 2 === 0 ? keys : [...keys].reverse();
            return order.map((k): NodeWrite => ({ kind: 'deleteNode', node: seeded(member(c, k)) }));
          });
          const singles = keys.filter((_, i) => i % 3 === 0);
          const [outcomes, single] = await Promise.all([
            Promise.all(batches.map((batch) => store().applyNodeWrites(batch))),
            Promise.allSettled(singles.map((k) => store().deleteNode(seeded(member(c, k))))),
          ]);

          for (const k of keys) {
            const byLines = batches.flatMap((batch, b) => batch.flatMap((_w, i) => (keyAt(b, i) === k ? [outcomes[b]?.[i]?.code ?? 'deleted'] : [])));
            const bySingle = singles.includes(k) ? [single[singles.indexOf(k)]] : [];
            const deletions = byLines.filter((o) => o === 'deleted').length + bySingle.filter((o) => o?.status === 'fulfilled').length;
            expect([k, deletions]).toEqual([k, 1]);
            for (const o of byLines) if (o !== 'deleted') expect([k, o]).toEqual([k, 'node_not_found']);
            for (const o of bySingle) if (o?.status === 'rejected') expect(o.reason).toMatchObject({ code: 'node_not_found' });
            expect(await store().getNodeIds(member(c, k))).toBeUndefined();
            expect((await store().searchWithTypes(buildQuery({ customerId: c, where: { id: id('device', `d-${k}`) } }))).total).toBe(0);
          }
          expect(await store().getNodeIds(member(c, 'kept'))).toEqual([id('cookie', 'shared'), id('member_id', 'kept')]);
        });

        test('when the batch is empty, then it resolves to no outcomes', async () => {
          await expect(store().applyNodeWrites([])).resolves.toEqual([]);
        });
      });
    });

    // ------------------------------------------------------------------ search
    describe('search', () => {
      const store = useStore(openStore);

      async function customerWithSchemas(): Promise<string> {
        const c = newCustomer();
        await store().putSchema(c, MEMBER);
        await store().putSchema(c, SHOP);
        return c;
      }

      const search = (q: SearchQuery): Promise<SearchResult> => store().searchWithTypes(q);

      /** A (device d1) B (cookie k1) C: a chain of three member nodes. */
      async function chain(c: string): Promise<void> {
        await store().createNode(seeded(member(c, 'a')), [id('device', 'd1')]);
        await store().createNode(seeded(member(c, 'b')), [id('device', 'd1'), id('cookie', 'k1')]);
        await store().createNode(seeded(member(c, 'c')), [id('cookie', 'k1'), id('email', 'c@example.com')]);
      }

      test('when starting from a key, then the results are the IDs of every node linked to it', async () => {
        const c = await customerWithSchemas();
        await chain(c);
        await store().createNode(seeded(member(c, 'lonely')), [id('device', 'd9')]);
        const r = await search(buildQuery(fromKey(member(c, 'a'))));
        expect(r.results).toEqual([
          id('cookie', 'k1'),
          id('device', 'd1'),
          id('email', 'c@example.com'),
          id('member_id', 'a'),
          id('member_id', 'b'),
          id('member_id', 'c'),
        ]);
        expect(r.total).toBe(6);
      });

      test('when starting from where, then every node holding it is a start node', async () => {
        const c = await customerWithSchemas();
        await store().createNode(seeded(member(c, 'a')), [id('device', 'd1')]);
        await store().createNode(seeded(member(c, 'b')), [id('device', 'd1')]);
        await store().createNode(seeded(member(c, 'x')), [id('device', 'd2')]);
        // exclude:true with nothing else linked proves both holders were start nodes.
        const excluded = await search(buildQuery({ customerId: c, where: { id: id('device', 'd1') }, exclude: true }));
        expect(excluded).toMatchObject({ results: [], total: 0 });
        const r = await search(buildQuery({ customerId: c, where: { id: id('device', 'd1') }, step: 'ONE' }));
        expect(r.results).toEqual([id('device', 'd1'), id('member_id', 'a'), id('member_id', 'b')]);
        expect(r.total).toBe(3);
      });

      test("when where is restricted to a schema, then only that schema's holders are start nodes", async () => {
        const c = await customerWithSchemas();
        await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
        await store().createNode(seeded(shop(c, 's1')), [id('device', 'd1')]);
        const fromShop = await search(buildQuery({ customerId: c, where: { schemaId: 'shop', id: id('device', 'd1') }, exclude: true }));
        expect(fromShop.results).toEqual([id('device', 'd1'), id('member_id', 'm1')]);
        const fromMember = await search(buildQuery({ customerId: c, where: { schemaId: 'member', id: id('device', 'd1') }, exclude: true }));
        expect(fromMember.results).toEqual([id('device', 'd1'), id('shop_id', 's1')]);
        const fromAll = await search(buildQuery({ customerId: c, where: { id: id('device', 'd1') }, exclude: true }));
        expect(fromAll).toMatchObject({ results: [], total: 0 });
        const noneThere = await search(buildQuery({ customerId: c, where: { schemaId: 'shop', id: id('member_id', 'm1') } }));
        expect(noneThere).toMatchObject({ results: [], total: 0 });
      });

      test('when key and where are both given, then the keyed node starts only if it holds where', async () => {
        const c = await customerWithSchemas();
        await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
        await store().createNode(seeded(member(c, 'm2')), [id('device', 'd2')]);
        const holds = await search(buildQuery({ ...fromKey(member(c, 'm1')), where: { schemaId: 'member', id: id('device', 'd1') } }));
        expect(holds.results).toEqual([id('device', 'd1'), id('member_id', 'm1')]);
        expect(holds.total).toBe(2);
        // m2 holds d2, but the keyed node m1 does not: no start node at all.
        const notHeld = await search(buildQuery({ ...fromKey(member(c, 'm1')), where: { schemaId: 'member', id: id('device', 'd2') } }));
        expect(notHeld).toMatchObject({ results: [], total: 0 });
      });

      test('when there is no start node, then the result is empty with total 0', async () => {
        const c = await customerWithSchemas();
        await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
        expect(await search(buildQuery(fromKey(member(c, 'ghost'))))).toMatchObject({ results: [], total: 0 });
        expect(await search(buildQuery({ customerId: c, key: { schemaId: 'nope', key: id('member_id', 'm1') } }))).toMatchObject({
          results: [],
          total: 0,
        });
        expect(await search(buildQuery({ customerId: c, where: { id: id('device', 'dX') } }))).toMatchObject({ results: [], total: 0 });
      });

      test('when step is ONE, then only the start node and nodes sharing an ID with it are targets; ALL reaches the rest', async () => {
        const c = await customerWithSchemas();
        await chain(c);
        const one = await search(buildQuery({ ...fromKey(member(c, 'a')), step: 'ONE' }));
        // B's cookie k1 is B's own ID, so it appears; C's IDs do not.
        expect(one.results).toEqual([id('cookie', 'k1'), id('device', 'd1'), id('member_id', 'a'), id('member_id', 'b')]);
        expect(one.total).toBe(4);
        const all = await search(buildQuery({ ...fromKey(member(c, 'a')), step: 'ALL' }));
        expect(all.results).toContainEqual(id('member_id', 'c'));
        expect(all.results).toContainEqual(id('email', 'c@example.com'));
        expect(all.total).toBe(6);
      });

      test('when a chain is long, then ALL reaches its far end and ONE only the neighbour', async () => {
        const c = await customerWithSchemas();
        const length = 30;
        const name = (i: number) => `n${String(i).padStart(2, '0')}`;
        // Node i shares device l{i-1} with node i-1 and device l{i} with node i+1.
        for (let i = 0; i < length; i += 1) {
          await store().createNode(seeded(member(c, name(i))), i === 0 ? [id('device', 'l0')] : [id('device', `l${i - 1}`), id('device', `l${i}`)]);
        }
        const all = await search(buildQuery({ ...fromKey(member(c, 'n00')), havingType: 'member_id' }));
        expect(all.total).toBe(length);
        expect(all.results[length - 1]).toEqual(id('member_id', 'n29'));
        const one = await search(buildQuery({ ...fromKey(member(c, 'n00')), havingType: 'member_id', step: 'ONE' }));
        expect(one.results).toEqual([id('member_id', 'n00'), id('member_id', 'n01')]);
      });

      test('when step is ALL, then links cross schemas', async () => {
        const c = await customerWithSchemas();
        await store().createNode(seeded(member(c, 'm1')), [id('device', 'd1')]);
        await store().createNode(seeded(shop(c, 's1')), [id('device', 'd1'), id('email', 's@example.com')]);
        await store().putSchema(c, {
          schemaId: 'crm',
          idTypes: [
            { type: 'crm_id', secure: false },
            { type: 'email', secure: true },
          ],
        });
        await store().createNode(seeded({ customerId: c, schemaId: 'crm', key: id('crm_id', 'r1') }), [id('email', 's@example.com')]);
        const r = await search(buildQuery(fromKey(member(c, 'm1'))));
        expect(r.results).toEqual([id('crm_id', 'r1'), id('device', 'd1'), id('email', 's@example.com'), id('member_id', 'm1'), id('shop_id', 's1')]);
        expect(r.total).toBe(5);
      });

      test("when exclude is true, then the start node's own IDs go unless another target holds them", async () => {
        const c = await customerWithSchemas();
        await store().createNode(seeded(member(c, 'a')), [id('device', 'd1'), id('cookie', 'ka')]);
        await store().createNode(seeded(member(c, 'b')), [id('device', 'd1'), id('cookie', 'kb')]);
        const r = await search(buildQuery({ ...fromKey(member(c, 'a')), exclude: true }));
        expect(r.results).toEqual([id('cookie', 'kb'), id('device', 'd1'), id('member_id', 'b')]);
        expect(r.total).toBe(3);
        const one = await search(buildQuery({ ...fromKey(member(c, 'a')), exclude: true, step: 'ONE' }));
        expect(one.results).toEqual([id('cookie', 'kb'), id('device', 'd1'), id('member_id', 'b')]);
      });

      test('when exclude is true and nothing else is linked, then the result is empty', async () => {
        const c = await customerWithSchemas();
        await store().createNode(seeded(member(c, 'a')), [id('device', 'd1')]);
        expect(await search(buildQuery({ ...fromKey(member(c, 'a')), exclude: true }))).toMatchObject({ results: [], total: 0 });
      });

      test('when havingType is given, then only IDs of that type are results and counted', async () => {
        const c = await customerWithSchemas();
        await chain(c);
        const r = await search(buildQuery({ ...fromKey(member(c, 'a')), havingType: 'member_id' }));
        expect(r.results).toEqual([id('member_id', 'a'), id('member_id', 'b'), id('member_id', 'c')]);
        expect(r.total).toBe(3);
        const none = await search(buildQuery({ ...fromKey(member(c, 'a')), havingType: 'shop_id' }));
        expect(none).toMatchObject({ results: [], total: 0 });
      });

      test('when types are hidden, then their IDs are neither results nor counted, but links through them still count', async () => {
        const c = await customerWithSchemas();
        await store().createNode(seeded(member(c, 'a')), [id('email', 'x@example.com'), id('device', 'd1')]);
        await store().createNode(seeded(member(c, 'b')), [id('email', 'x@example.com')]);
        const r = await search(buildQuery({ ...fromKey(member(c, 'a')), hiddenTypes: ['email'] }));
        expect(r.results).toEqual([id('device', 'd1'), id('member_id', 'a'), id('member_id', 'b')]);
        expect(r.total).toBe(3);
        const hiddenMany = await search(buildQuery({ ...fromKey(member(c, 'a')), hiddenTypes: ['email', 'member_id'] }));
        expect(hiddenMany.results).toEqual([id('device', 'd1')]);
        expect(hiddenMany.total).toBe(1);
        const askedHidden = await search(buildQuery({ ...fromKey(member(c, 'a')), hiddenTypes: ['email'], havingType: 'email' }));
        expect(askedHidden).toMatchObject({ results: [], total: 0 });
      });

      test('when IDs are sorted, then by type then id in code-point order (not locale, not UTF-16)', async () => {
        const c = newCustomer();
        await store().putSchema(c, {
          schemaId: 'order',
          idTypes: [
            { type: 'member_id', secure: false },
            { type: 'cookie', secure: false },
            { type: 'Zone', secure: false },
            { type: 'éclair', secure: false },
          ],
        });
        const node: NodeAddress = { customerId: c, schemaId: 'order', key: id('member_id', 'm') };
        await store().createNode(seeded(node), [
          id('cookie', '😀'),
          id('cookie', 'a'),
          id('cookie', '\uFFFD'),
          id('cookie', 'é'),
          id('cookie', 'Z'),
          id('cookie', 'b'),
          id('cookie', '10'),
          id('cookie', '9'),
          id('éclair', 'x'),
          id('Zone', 'z'),
        ]);
        const expected = [
          id('Zone', 'z'),
          id('cookie', '10'),
          id('cookie', '9'),
          id('cookie', 'Z'),
          id('cookie', 'a'),
          id('cookie', 'b'),
          id('cookie', 'é'),
          id('cookie', '\uFFFD'),
          id('cookie', '😀'),
          id('member_id', 'm'),
          id('éclair', 'x'),
        ];
        const r = await search(buildQuery(fromKey(node)));
        expect(r.results).toEqual(expected);
        expect(r.total).toBe(expected.length);
        // A non-BMP value works as a where condition too.
        const byEmoji = await search(buildQuery({ customerId: c, where: { id: id('cookie', '😀') }, havingType: 'cookie', limit: 1 }));
        expect(byEmoji.results).toEqual([id('cookie', '10')]);
      });

      test('when limit cuts between values that UTF-16 and code points order differently, then the first ones in code-point order', async () => {
        const c = await customerWithSchemas();
        // In UTF-16 code units the emoji (a surrogate pair) sorts before U+E000 and U+FFFD; in code points after.
        await store().createNode(seeded(member(c, 'm')), [id('cookie', '\uFFFD'), id('cookie', '😀'), id('cookie', '\uE000'), id('cookie', 'a')]);
        const first = async (limit: number) => (await search(buildQuery({ ...fromKey(member(c, 'm')), havingType: 'cookie', limit }))).results;
        expect(await first(2)).toEqual([id('cookie', 'a'), id('cookie', '\uE000')]);
        expect(await first(3)).toEqual([id('cookie', 'a'), id('cookie', '\uE000'), id('cookie', '\uFFFD')]);
        expect(await first(1)).toEqual([id('cookie', 'a')]);
      });

      test('when limit is below the number of results, then the first ones are given and total counts all', async () => {
        const c = await customerWithSchemas();
        await chain(c);
        const r = await search(buildQuery({ ...fromKey(member(c, 'a')), limit: 2 }));
        expect(r.results).toEqual([id('cookie', 'k1'), id('device', 'd1')]);
        expect(r.total).toBe(6);
        const one = await search(buildQuery({ ...fromKey(member(c, 'a')), limit: 1, havingType: 'member_id' }));
        expect(one.results).toEqual([id('member_id', 'a')]);
        expect(one.total).toBe(3);
        const exact = await search(buildQuery({ ...fromKey(member(c, 'a')), limit: 6 }));
        expect(exact.results).toHaveLength(6);
        expect(exact.total).toBe(6);
      });

      test('when the component has more nodes than maxNodes, then component_too_large; with exactly maxNodes it succeeds', async () => {
        const c = await customerWithSchemas();
        for (let i = 0; i < 5; i += 1) await store().createNode(seeded(member(c, `m${i}`)), [id('device', 'shared')]);
        await expect(search(buildQuery({ ...fromKey(member(c, 'm0')), maxNodes: 4 }))).rejects.toMatchObject({ code: 'component_too_large' });
        const fits = await search(buildQuery({ ...fromKey(member(c, 'm0')), maxNodes: 5, havingType: 'member_id' }));
        expect(fits.results.map((x) => x.id)).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
        expect(fits.total).toBe(5);
      });

      test('when more start nodes than maxNodes hold where, then component_too_large', async () => {
        const c = await customerWithSchemas();
        for (let i = 0; i < 3; i += 1) await store().createNode(seeded(member(c, `m${i}`)), [id('device', 'shared')]);
        await expect(search(buildQuery({ customerId: c, where: { id: id('device', 'shared') }, step: 'ONE', maxNodes: 2 }))).rejects.toMatchObject({
          code: 'component_too_large',
        });
        const fits = await search(buildQuery({ customerId: c, where: { id: id('device', 'shared') }, step: 'ONE', maxNodes: 3 }));
        expect(fits.total).toBe(4);
      });

      test('when the nodes a search visits hold more IDs than maxIds, hidden ones included, then component_too_large; with exactly maxIds it succeeds', async () => {
        const c = await customerWithSchemas();
        // a {a, d1}, b {b, d1, k1}, c {c, k1, email}: 6 IDs in all.
        await chain(c);
        const tooMany = { code: 'component_too_large', message: expect.stringContaining('more than 5 IDs') };
        await expect(search(buildQuery({ ...fromKey(member(c, 'a')), maxIds: 5 }))).rejects.toMatchObject(tooMany);
        await expect(search(buildQuery({ ...fromKey(member(c, 'a')), maxIds: 5, hiddenTypes: ['email'], havingType: 'device' }))).rejects.toMatchObject(
          tooMany,
        );
        expect((await search(buildQuery({ ...fromKey(member(c, 'a')), maxIds: 6 }))).total).toBe(6);
        // ONE from b visits all three nodes; the IDs of the nodes it reaches count, and those of excluded start nodes.
        await expect(search(buildQuery({ ...fromKey(member(c, 'b')), step: 'ONE', maxIds: 5 }))).rejects.toMatchObject(tooMany);
        await expect(search(buildQuery({ ...fromKey(member(c, 'b')), step: 'ONE', exclude: true, maxIds: 5 }))).rejects.toMatchObject(tooMany);
        await expect(search(buildQuery({ customerId: c, where: { id: id('cookie', 'k1') }, step: 'ONE', maxIds: 5 }))).rejects.toMatchObject(tooMany);
        await expect(
          search(buildQuery({ customerId: c, where: { id: id('cookie', 'k1'), schemaId: 'member' }, step: 'ONE', maxIds: 5 })),
        ).rejects.toMatchObject(tooMany);
        // ONE from c visits c and b: 5 IDs.
        expect((await search(buildQuery({ ...fromKey(member(c, 'c')), step: 'ONE', maxIds: 5 }))).total).toBe(5);
        expect((await search(buildQuery({ customerId: c, where: { id: id('email', 'c@example.com') }, step: 'ONE', maxIds: 5 }))).total).toBe(5);
      });

      test('when step is ONE, then maxNodes counts only the nodes ONE visits', async () => {
        const c = await customerWithSchemas();
        await chain(c);
        await store().createNode(seeded(member(c, 'd')), [id('email', 'c@example.com')]);
        // ONE from a visits a and b (2 nodes); the component has 4.
        const one = await search(buildQuery({ ...fromKey(member(c, 'a')), step: 'ONE', maxNodes: 2, havingType: 'member_id' }));
        expect(one.results).toEqual([id('member_id', 'a'), id('member_id', 'b')]);
        await expect(search(buildQuery({ ...fromKey(member(c, 'a')), maxNodes: 3 }))).rejects.toMatchObject({ code: 'component_too_large' });
      });

      test('when small and large components hold the same mix of IDs, then filters, order, limit and total agree', async () => {
        // Stores may read results differently for few and for many target nodes; both must give the same answers.
        const c = await customerWithSchemas();
        const values = ['Z', 'a', 'é', '😀', '\uFFFD', '10', '9'];
        const build = async (prefix: string, size: number) => {
          for (let i = 0; i < size; i += 1) {
            const extra = [id('device', `${prefix}-hub`), id('cookie', `${prefix}-${values[i % values.length]}-${i}`)];
            if (i % 5 === 0) extra.push(id('email', `${prefix}-${i}@example.com`));
            await store().createNode(seeded(member(c, `${prefix}-${String(i).padStart(3, '0')}`)), extra);
          }
        };
        await build('few', 6);
        await build('many', 120);
        for (const [prefix, size] of [
          ['few', 6],
          ['many', 120],
        ] as const) {
          const start = fromKey(member(c, `${prefix}-000`));
          const everything = await search(buildQuery({ ...start, limit: 100000 }));
          const codePoints = (s: string) => [...s].map((ch) => ch.codePointAt(0) as number);
          const byCodePoint = (a: IdPair, b: IdPair) => {
            for (const [x, y] of [
              [a.type, b.type],
              [a.id, b.id],
            ] as const) {
              const [p, q] = [codePoints(x), codePoints(y)];
              for (let i = 0; i < Math.min(p.length, q.length); i += 1) if (p[i] !== q[i]) return (p[i] as number) - (q[i] as number);
              if (p.length !== q.length) return p.length - q.length;
            }
            return 0;
          };
          expect(everything.results).toEqual([...everything.results].sort(byCodePoint));
          expect(everything.total).toBe(size * 2 + 1 + Math.ceil(size / 5));
          const hidden = await search(buildQuery({ ...start, hiddenTypes: ['email'], limit: 3 }));
          expect(hidden.total).toBe(size * 2 + 1);
          expect(hidden.results).toEqual(everything.results.filter((r) => r.type !== 'email').slice(0, 3));
          const cookies = await search(buildQuery({ ...start, havingType: 'cookie', hiddenTypes: ['email'], limit: 2 }));
          expect(cookies.total).toBe(size);
          expect(cookies.results).toEqual(everything.results.filter((r) => r.type === 'cookie').slice(0, 2));
        }
      });

      test('when one ID is held by 200 nodes, then ALL finds all of them and what lies beyond', async () => {
        const c = await customerWithSchemas();
        const count = 200;
        for (let i = 0; i < count; i += 1) {
          await store().createNode(seeded(member(c, `m${String(i).padStart(3, '0')}`)), [id('device', 'popular')]);
        }
        // One holder also leads on to a shop node.
        await store().insertIds(seeded(member(c, 'm137')), [id('cookie', 'bridge')]);
        await store().createNode(seeded(shop(c, 's1')), [id('device', 'elsewhere')]);
        await store().insertIds(seeded(member(c, 'm137')), [id('device', 'elsewhere')]);
        const r = await search(buildQuery({ ...fromKey(member(c, 'm000')), havingType: 'member_id' }));
        expect(r.total).toBe(count);
        expect(r.results[0]).toEqual(id('member_id', 'm000'));
        expect(r.results[count - 1]).toEqual(id('member_id', 'm199'));
        const shops = await search(buildQuery({ ...fromKey(member(c, 'm000')), havingType: 'shop_id' }));
        expect(shops.results).toEqual([id('shop_id', 's1')]);
        const byDevice = await search(buildQuery({ customerId: c, where: { id: id('device', 'popular') }, step: 'ONE', havingType: 'member_id', limit: 10 }));
        expect(byDevice.results).toHaveLength(10);
        expect(byDevice.total).toBe(count);
      });
    });

    // ------------------------------------------------------------------ tenant isolation
    describe('tenant isolation', () => {
      const store = useStore(openStore);

      async function twoCustomers(): Promise<{ a: string; b: string }> {
        const a = newCustomer();
        const b = newCustomer();
        for (const c of [a, b]) {
          await store().putSchema(c, MEMBER);
          await store().putSchema(c, SHOP);
        }
        return { a, b };
      }

      test('when two customers hold identical IDs, then each search sees only its own nodes', async () => {
        const { a, b } = await twoCustomers();
        await store().createNode(seeded(member(a, 'm1')), [id('device', 'd1'), id('cookie', 'ka')]);
        await store().createNode(seeded(member(a, 'm2')), [id('device', 'd1')]);
        await store().createNode(seeded(member(b, 'm1')), [id('device', 'd1'), id('cookie', 'kb')]);
        const bByWhere = await store().searchWithTypes(buildQuery({ customerId: b, where: { id: id('device', 'd1') } }));
        expect(bByWhere.results).toEqual([id('cookie', 'kb'), id('device', 'd1'), id('member_id', 'm1')]);
        expect(bByWhere.total).toBe(3);
        const bByKey = await store().searchWithTypes(buildQuery(fromKey(member(b, 'm1'))));
        expect(bByKey.results).toEqual([id('cookie', 'kb'), id('device', 'd1'), id('member_id', 'm1')]);
        const aByKey = await store().searchWithTypes(buildQuery(fromKey(member(a, 'm1'))));
        expect(aByKey.results).toEqual([id('cookie', 'ka'), id('device', 'd1'), id('member_id', 'm1'), id('member_id', 'm2')]);
        expect(await store().searchWithTypes(buildQuery({ customerId: b, where: { id: id('cookie', 'ka') } }))).toMatchObject({ results: [], total: 0 });
        expect(await store().searchWithTypes(buildQuery(fromKey(member(b, 'm2'))))).toMatchObject({ results: [], total: 0 });
      });

      test("when a customer addresses another customer's node, then it is not found and not touched", async () => {
        const { a, b } = await twoCustomers();
        await store().createNode(seeded(member(a, 'm1')), [id('device', 'd1')]);
        const aBefore = [id('device', 'd1'), id('member_id', 'm1')];
        expect(await store().getNodeIds(member(b, 'm1'))).toBeUndefined();
        await expect(store().insertIds(seeded(member(b, 'm1')), [id('cookie', 'k1')])).rejects.toMatchObject({ code: 'node_not_found' });
        await expect(store().replaceId(seeded(member(b, 'm1')), id('device', 'd1'), id('device', 'd2'), true)).rejects.toMatchObject({
          code: 'node_not_found',
        });
        await expect(store().removeId(seeded(member(b, 'm1')), id('device', 'd1'))).rejects.toMatchObject({ code: 'node_not_found' });
        await expect(store().rekey(seeded(member(b, 'm1')), 'm9')).rejects.toMatchObject({ code: 'node_not_found' });
        await expect(store().deleteNode(seeded(member(b, 'm1')))).rejects.toMatchObject({ code: 'node_not_found' });
        expect(await store().getNodeIds(member(a, 'm1'))).toEqual(aBefore);
      });

      test("when a customer writes IDs another customer also holds, then the other customer's nodes are unchanged", async () => {
        const { a, b } = await twoCustomers();
        await store().createNode(seeded(member(a, 'm1')), [id('device', 'd1'), id('cookie', 'k1')]);
        await store().createNode(seeded(member(b, 'm1')), [id('device', 'd1')]);
        await store().insertIds(seeded(member(b, 'm1')), [id('cookie', 'k1')]);
        await store().replaceId(seeded(member(b, 'm1')), id('device', 'd1'), id('device', 'd2'), false);
        await store().removeId(seeded(member(b, 'm1')), id('cookie', 'k1'));
        await store().rekey(seeded(member(b, 'm1')), 'm2');
        expect(await store().getNodeIds(member(a, 'm1'))).toEqual([id('cookie', 'k1'), id('device', 'd1'), id('member_id', 'm1')]);
        expect(await store().getNodeIds(member(b, 'm2'))).toEqual([id('device', 'd2'), id('member_id', 'm2')]);
        await store().deleteNode(seeded(member(b, 'm2')));
        expect(await store().getNodeIds(member(a, 'm1'))).toEqual([id('cookie', 'k1'), id('device', 'd1'), id('member_id', 'm1')]);
        const aByWhere = await store().searchWithTypes(buildQuery({ customerId: a, where: { id: id('device', 'd1') } }));
        expect(aByWhere.results).toEqual([id('cookie', 'k1'), id('device', 'd1'), id('member_id', 'm1')]);
      });

      test("when a customer has nodes, then another customer's schemas are not in use by them", async () => {
        const { a, b } = await twoCustomers();
        await store().createNode(seeded(member(a, 'm1')), [id('device', 'd1')]);
        const withoutDevice: SchemaRecord = { schemaId: 'member', idTypes: MEMBER.idTypes.filter((t) => t.type !== 'device') };
        await expect(store().putSchema(b, withoutDevice)).resolves.toEqual({ created: false });
        await store().deleteSchema(b, 'shop');
        await expect(store().deleteSchema(b, 'member')).resolves.toBeUndefined();
        expect(await store().listSchemas(b)).toEqual([]);
        expect(await store().getSchema(a, 'member')).toEqual(MEMBER);
        expect(await store().getNodeIds(member(a, 'm1'))).toEqual([id('device', 'd1'), id('member_id', 'm1')]);
      });
    });

    // ------------------------------------------------------------------ identity protections
    // docs/keeping-people-apart.md: the options `links` and `maxHolders` of a declared type, the secure flag that stays on while
    // IDs of its type are held, and the policy (settings, blocked values, type options) a customer is checked against.
    describe('identity protections', () => {
      const store = useStore(openStore);
      const search = (q: SearchQuery): Promise<SearchResult> => store().searchWithTypes(q);
      const sortedSchemas = async (c: string): Promise<SchemaRecord[]> => [...(await store().listSchemas(c))].sort(bySchemaId);
      /** The declaration of `type` in `schema` (the test's own fixtures). */
      const declarationOf = (schema: SchemaRecord, type: string): IdTypeDeclaration => {
        const declared = schema.idTypes.find((t) => t.type === type);
        if (!declared) throw new Error(`schema '${schema.schemaId}' of the test does not declare '${type}'`);
        return declared;
      };
      /** The type names of the customer's policy, sorted. */
      const policyTypes = async (c: string): Promise<{ secure: string[]; unlinked: string[] }> => {
        const policy = await store().customerPolicy(c);
        return { secure: [...policy.secureTypes].sort(), unlinked: [...policy.unlinkedTypes].sort() };
      };

      describe('declarations with links and maxHolders', () => {
        test('when types are declared with links and maxHolders, then getSchema and listSchemas give them back canonical: links only when false, maxHolders only when set', async () => {
          const c = newCustomer();
          const put: SchemaRecord = {
            schemaId: 'visit',
            idTypes: [
              { type: 'visit_id', secure: false },
              { type: 'ip', secure: false, links: false },
              { type: 'email', secure: true, maxHolders: 7 },
              { type: 'device', secure: false, links: false, maxHolders: 1 },
              { type: 'cookie', secure: false, links: true, maxHolders: 1_000_000 },
              { type: 'phone', secure: true, links: true },
            ],
          };
          const canonical: SchemaRecord = {
            schemaId: 'visit',
            idTypes: [
              { type: 'visit_id', secure: false },
              { type: 'ip', secure: false, links: false },
              { type: 'email', secure: true, maxHolders: 7 },
              { type: 'device', secure: false, links: false, maxHolders: 1 },
              { type: 'cookie', secure: false, maxHolders: 1_000_000 },
              { type: 'phone', secure: true },
            ],
          };
          await expect(store().putSchema(c, put)).resolves.toEqual({ created: true });
          // Strict: a `links: true`, or a `maxHolders` left undefined or as a driver integer, is not canonical.
          expect(await store().getSchema(c, 'visit')).toStrictEqual(canonical);
          const plain: SchemaRecord = { schemaId: 'plain', idTypes: [{ type: 'plain_id', secure: false }] };
          await store().putSchema(c, plain);
          expect(await sortedSchemas(c)).toStrictEqual([plain, canonical]);
          // Replaced without options, the types have none any more.
          const bare: SchemaRecord = { schemaId: 'visit', idTypes: canonical.idTypes.map((t) => ({ type: t.type, secure: t.secure })) };
          await expect(store().putSchema(c, bare)).resolves.toEqual({ created: false });
          expect(await store().getSchema(c, 'visit')).toStrictEqual(bare);
          expect(await sortedSchemas(c)).toStrictEqual([plain, bare]);
        });

        test('when another schema declares a type with other links or maxHolders, then type_option_conflict and nothing is stored', async () => {
          const c = newCustomer();
          const visit = VISIT_WITH_OPTIONS;
          await store().putSchema(c, visit);
          const conflicting: IdTypeDeclaration[] = [
            { type: 'ip', secure: false }, // links absent (true) against false
            { type: 'ip', secure: false, links: true },
            { type: 'ip', secure: false, links: false, maxHolders: 5 }, // a limit where there is none
            { type: 'device', secure: false }, // no limit against 5
            { type: 'device', secure: false, maxHolders: 6 },
            { type: 'device', secure: false, links: false, maxHolders: 5 }, // links false against absent (true)
          ];
          for (const declaration of conflicting) {
            const shop: SchemaRecord = { schemaId: 'shop', idTypes: [{ type: 'shop_id', secure: false }, declaration] };
            await expect(store().putSchema(c, shop)).rejects.toMatchObject({ code: 'type_option_conflict' });
          }
          expect(await store().getSchema(c, 'shop')).toBeUndefined();
          expect(await sortedSchemas(c)).toStrictEqual([visit]);
          expect(await policyTypes(c)).toEqual({ secure: [], unlinked: ['ip'] });
        });

        test('when declarations agree once absent options take their defaults, then there is no conflict', async () => {
          const c = newCustomer();
          const visit: SchemaRecord = {
            schemaId: 'visit',
            idTypes: [
              { type: 'visit_id', secure: false },
              { type: 'ip', secure: false, links: false, maxHolders: 5 },
              { type: 'cookie', secure: false },
            ],
          };
          await store().putSchema(c, visit);
          const shop: SchemaRecord = {
            schemaId: 'shop',
            idTypes: [
              { type: 'shop_id', secure: false },
              { type: 'cookie', secure: false, links: true },
              { type: 'ip', secure: false, links: false, maxHolders: 5 },
            ],
          };
          await expect(store().putSchema(c, shop)).resolves.toEqual({ created: true });
          expect(await store().getSchema(c, 'shop')).toStrictEqual({
            schemaId: 'shop',
            idTypes: [
              { type: 'shop_id', secure: false },
              { type: 'cookie', secure: false },
              { type: 'ip', secure: false, links: false, maxHolders: 5 },
            ],
          });
          expect(await store().getSchema(c, 'visit')).toStrictEqual(visit);
        });

        test('when a replacement changes the options of a type only it declares, then it is replaced; of a type another schema declares too, then type_option_conflict and both stay', async () => {
          const c = newCustomer();
          const visit = VISIT_WITH_OPTIONS;
          const shop: SchemaRecord = {
            schemaId: 'shop',
            idTypes: [
              { type: 'shop_id', secure: false },
              { type: 'device', secure: false, maxHolders: 5 },
            ],
          };
          await store().putSchema(c, visit);
          await store().putSchema(c, shop);
          // ip is visit's alone: its own earlier declaration is no conflict.
          const ipLinking: SchemaRecord = {
            schemaId: 'visit',
            idTypes: [
              { type: 'visit_id', secure: false },
              { type: 'ip', secure: false, maxHolders: 9 },
              { type: 'device', secure: false, maxHolders: 5 },
            ],
          };
          await expect(store().putSchema(c, ipLinking)).resolves.toEqual({ created: false });
          expect(await store().getSchema(c, 'visit')).toStrictEqual(ipLinking);
          expect(await policyTypes(c)).toEqual({ secure: [], unlinked: [] });
          // device is shop's too: neither schema can change it alone.
          const deviceRaised: SchemaRecord = { ...ipLinking, idTypes: ipLinking.idTypes.map((t) => (t.type === 'device' ? { ...t, maxHolders: 6 } : t)) };
          await expect(store().putSchema(c, deviceRaised)).rejects.toMatchObject({ code: 'type_option_conflict' });
          const shopUnlinked: SchemaRecord = {
            schemaId: 'shop',
            idTypes: [
              { type: 'shop_id', secure: false },
              { type: 'device', secure: false, links: false, maxHolders: 5 },
            ],
          };
          await expect(store().putSchema(c, shopUnlinked)).rejects.toMatchObject({ code: 'type_option_conflict' });
          expect(await store().getSchema(c, 'visit')).toStrictEqual(ipLinking);
          expect(await store().getSchema(c, 'shop')).toStrictEqual(shop);
          expect(await policyTypes(c)).toEqual({ secure: [], unlinked: [] });
        });

        test('when a put breaks several rules, then it is refused for the first of secure_flag_conflict, type_option_conflict, secure_type_in_use, schema_in_use, and nothing changes', async () => {
          const c = newCustomer();
          const a: SchemaRecord = {
            schemaId: 'a',
            idTypes: [
              { type: 'a_id', secure: false },
              { type: 'email', secure: true },
              { type: 'tag', secure: false },
              { type: 'ip', secure: false, links: false },
            ],
          };
          const b: SchemaRecord = {
            schemaId: 'b',
            idTypes: [
              { type: 'b_id', secure: false },
              { type: 'phone', secure: true },
              { type: 'ip', secure: false, links: false },
            ],
          };
          await store().putSchema(c, a);
          await store().putSchema(c, b);
          await store().createNode(seeded({ customerId: c, schemaId: 'a', key: id('a_id', 'n1') }), [id('email', 'n1@example.com'), id('tag', 't1')]);
          // Unless fixed, the replacement drops tag (held: schema_in_use), turns email off (held: secure_type_in_use),
          // lets ip link (b: type_option_conflict) and declares phone open (b: secure_flag_conflict): in the opposite
          // order of the checks, so that the declaration order cannot be what decides.
          const replacement = (fixed: { phone?: boolean; ip?: boolean; email?: boolean; tag?: boolean }): SchemaRecord => ({
            schemaId: 'a',
            idTypes: [
              { type: 'a_id', secure: false },
              ...(fixed.tag ? [{ type: 'tag', secure: false }] : []),
              { type: 'email', secure: fixed.email === true },
              fixed.ip ? { type: 'ip', secure: false, links: false } : { type: 'ip', secure: false },
              { type: 'phone', secure: fixed.phone === true },
            ],
          });
          const steps: Array<[Parameters<typeof replacement>[0], string]> = [
            [{}, 'secure_flag_conflict'],
            [{ phone: true }, 'type_option_conflict'],
            [{ phone: true, ip: true }, 'secure_type_in_use'],
            [{ phone: true, ip: true, email: true }, 'schema_in_use'],
          ];
          for (const [fixed, code] of steps) {
            await expect(store().putSchema(c, replacement(fixed))).rejects.toMatchObject({ code });
            expect(await store().getSchema(c, 'a')).toStrictEqual(a);
            expect(await store().getSchema(c, 'b')).toStrictEqual(b);
            expect(await policyTypes(c)).toEqual({ secure: ['email', 'phone'], unlinked: ['ip'] });
          }
          const allFixed = replacement({ phone: true, ip: true, email: true, tag: true });
          await expect(store().putSchema(c, allFixed)).resolves.toEqual({ created: false });
          expect(await store().getSchema(c, 'a')).toStrictEqual(allFixed);
        });
      });

      describe('the secure flag is one-way while IDs of its type are held', () => {
        const emailOpen: SchemaRecord = { schemaId: 'member', idTypes: MEMBER.idTypes.map((t) => (t.type === 'email' ? { ...t, secure: false } : t)) };

        test('when a secure type held by nodes is turned off, then secure_type_in_use and nothing changes, until no node holds an ID of it', async () => {
          const c = newCustomer();
          await store().putSchema(c, MEMBER);
          await store().createNode(seeded(member(c, 'm1')), [id('email', 'a@example.com')]);
          await store().createNode(seeded(member(c, 'm2')), [id('email', 'b@example.com'), id('device', 'd2')]);
          await store().createNode(seeded(member(c, 'm3')), [id('email', 'b@example.com')]);
          const stillSecure = async () => {
            await expect(store().putSchema(c, emailOpen)).rejects.toMatchObject({ code: 'secure_type_in_use' });
            expect(await store().getSchema(c, 'member')).toStrictEqual(MEMBER);
            expect((await policyTypes(c)).secure).toEqual(['email']);
          };
          await stillSecure();
          // Each way an ID goes (removed, replaced, its node deleted), and one held ID is enough to refuse.
          await store().removeId(seeded(member(c, 'm1')), id('email', 'a@example.com'));
          await stillSecure();
          await store().replaceId(seeded(member(c, 'm2')), id('email', 'b@example.com'), id('cookie', 'k2'), false);
          await stillSecure();
          await store().deleteNode(seeded(member(c, 'm3')));
          await expect(store().putSchema(c, emailOpen)).resolves.toEqual({ created: false });
          expect(await store().getSchema(c, 'member')).toStrictEqual(emailOpen);
          expect((await policyTypes(c)).secure).toEqual([]);
          expect(await store().getNodeIds(member(c, 'm2'))).toEqual([id('cookie', 'k2'), id('device', 'd2'), id('member_id', 'm2')]);
        });

        test('when nodes are keyed by a secure type, then it stays secure while they exist', async () => {
          const c = newCustomer();
          const contact: SchemaRecord = {
            schemaId: 'contact',
            idTypes: [
              { type: 'email', secure: true },
              { type: 'cookie', secure: false },
            ],
          };
          const open: SchemaRecord = {
            schemaId: 'contact',
            idTypes: [
              { type: 'email', secure: false },
              { type: 'cookie', secure: false },
            ],
          };
          await store().putSchema(c, contact);
          const node: NodeAddress = { customerId: c, schemaId: 'contact', key: id('email', 'k@example.com') };
          await store().createNode(seeded(node), []);
          await expect(store().putSchema(c, open)).rejects.toMatchObject({ code: 'secure_type_in_use' });
          expect(await store().getSchema(c, 'contact')).toStrictEqual(contact);
          await store().deleteNode(seeded(node));
          await expect(store().putSchema(c, open)).resolves.toEqual({ created: false });
          expect(await store().getSchema(c, 'contact')).toStrictEqual(open);
        });

        test('when only another customer holds IDs of the type, then turning it off is allowed', async () => {
          const c = newCustomer();
          const other = newCustomer();
          await store().putSchema(c, MEMBER);
          await store().putSchema(other, MEMBER);
          await store().createNode(seeded(member(other, 'm1')), [id('email', 'a@example.com')]);
          await expect(store().putSchema(c, emailOpen)).resolves.toEqual({ created: false });
          expect(await store().getSchema(c, 'member')).toStrictEqual(emailOpen);
          await expect(store().putSchema(other, emailOpen)).rejects.toMatchObject({ code: 'secure_type_in_use' });
          expect(await store().getSchema(other, 'member')).toStrictEqual(MEMBER);
        });

        test('when creates adding IDs of a secure type race a put turning it off, then either the put is refused and they all succeed, or it succeeds and they are all schema_changed', async () => {
          for (let round = 0; round < 5; round += 1) {
            const c = newCustomer();
            await store().putSchema(c, MEMBER);
            const email = (i: number) => id('email', `e${i}@example.com`);
            const create = (i: number) => store().createNode(seeded(asChecked(member(c, `m${i}`), MEMBER, [email(i)])), [email(i)]);
            // Issued around the put: which commits first is up to the store.
            const before = [0, 1].map(create);
            const put = store().putSchema(c, emailOpen);
            const after = [2, 3].map(create);
            const [putOutcome, ...creates] = await Promise.allSettled([put, ...before, ...after]);
            const held = await Promise.all([0, 1, 2, 3].map((i) => store().getNodeIds(member(c, `m${i}`))));
            if (putOutcome?.status === 'fulfilled') {
              // The put came first: no create may have added an ID of the type it turned off.
              expect(await store().getSchema(c, 'member')).toStrictEqual(emailOpen);
              for (const o of creates) expect(o).toMatchObject({ status: 'rejected', reason: { code: 'schema_changed' } });
              expect(held.filter((n) => n !== undefined)).toEqual([]);
            } else {
              expect(putOutcome?.reason).toMatchObject({ code: 'secure_type_in_use' });
              expect(await store().getSchema(c, 'member')).toStrictEqual(MEMBER);
              expect(creates.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
              held.forEach((ids, i) => expect(ids).toEqual([email(i), id('member_id', `m${i}`)]));
            }
          }
        });

        test('when a type is turned secure, then it is allowed even while nodes hold IDs of it, and keeps its other options', async () => {
          const c = newCustomer();
          const visit: SchemaRecord = {
            schemaId: 'visit',
            idTypes: [
              { type: 'visit_id', secure: false },
              { type: 'ip', secure: false, links: false, maxHolders: 4 },
            ],
          };
          await store().putSchema(c, visit);
          await store().createNode(seeded({ customerId: c, schemaId: 'visit', key: id('visit_id', 'v1') }), [id('ip', '192.0.2.1')]);
          const ipSecure: SchemaRecord = {
            schemaId: 'visit',
            idTypes: [
              { type: 'visit_id', secure: false },
              { type: 'ip', secure: true, links: false, maxHolders: 4 },
            ],
          };
          await expect(store().putSchema(c, ipSecure)).resolves.toEqual({ created: false });
          expect(await store().getSchema(c, 'visit')).toStrictEqual(ipSecure);
          expect(await policyTypes(c)).toEqual({ secure: ['ip'], unlinked: ['ip'] });
          // And now it is held, it cannot go back.
          await expect(store().putSchema(c, visit)).rejects.toMatchObject({ code: 'secure_type_in_use' });
          expect(await store().getSchema(c, 'visit')).toStrictEqual(ipSecure);
        });
      });

      describe('types that never link (links: false)', () => {
        const PERSON: SchemaRecord = {
          schemaId: 'person',
          idTypes: [
            { type: 'person_id', secure: false },
            { type: 'cookie', secure: false },
            { type: 'device', secure: false, links: false },
            { type: 'ip', secure: false, links: false },
          ],
        };
        const ACCOUNT: SchemaRecord = {
          schemaId: 'account',
          idTypes: [
            { type: 'account_id', secure: false },
            { type: 'cookie', secure: false },
            { type: 'device', secure: false, links: false },
          ],
        };
        const UNLINKED = ['device', 'ip'];
        const person = (c: string, key: string): NodeAddress => ({ customerId: c, schemaId: 'person', key: id('person_id', key) });
        const account = (c: string, key: string): NodeAddress => ({ customerId: c, schemaId: 'account', key: id('account_id', key) });
        const DEV = id('device', 'dev');
        const IP = id('ip', 'ip1');
        const people = (...keys: string[]): IdPair[] => keys.map((k) => id('person_id', k));
        const byTypeThenValue = (a: IdPair, b: IdPair) => (a.type === b.type ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.type < b.type ? -1 : 1);
        /** The distinct IDs of `parts` in the order a search gives them (ASCII here: code-point order is JS order). */
        const union = (...parts: IdPair[][]): IdPair[] => {
          const seen = new Map(parts.flat().map((x) => [`${x.type}\u0000${x.id}`, x]));
          return [...seen.values()].sort(byTypeThenValue);
        };
        const A = union([id('cookie', 'ca'), id('cookie', 'ca3'), DEV, IP], people('a1', 'a2', 'a3'));
        const B = union([id('cookie', 'cb'), DEV, IP], people('b1', 'b2'));
        const X = union([id('account_id', 'x1'), id('account_id', 'x2'), id('cookie', 'cx'), DEV]);

        /**
         * People linked only by cookies: A = a1 (ca) a2 (ca3) a3, B = b1 (cb) b2, lonely z1, and in the account schema
         * X = x1 (cx) x2. The device `dev` (links: false) is held by a1, b1 and x1, the ip `ip1` (links: false) by a3 and
         * b2. With `unlinked` false: the same graph without those two IDs. Written as the domain addresses writes.
         */
        async function households(unlinked = true): Promise<string> {
          const c = newCustomer();
          await store().putSchema(c, PERSON);
          await store().putSchema(c, ACCOUNT);
          const nodes: Array<[NodeAddress, SchemaRecord, IdPair[]]> = [
            [person(c, 'a1'), PERSON, [id('cookie', 'ca'), DEV]],
            [person(c, 'a2'), PERSON, [id('cookie', 'ca'), id('cookie', 'ca3')]],
            [person(c, 'a3'), PERSON, [id('cookie', 'ca3'), IP]],
            [person(c, 'b1'), PERSON, [id('cookie', 'cb'), DEV]],
            [person(c, 'b2'), PERSON, [id('cookie', 'cb'), IP]],
            [person(c, 'z1'), PERSON, [id('cookie', 'cz')]],
            [account(c, 'x1'), ACCOUNT, [id('cookie', 'cx'), DEV]],
            [account(c, 'x2'), ACCOUNT, [id('cookie', 'cx')]],
          ];
          for (const [node, schema, held] of nodes) {
            const ids = unlinked ? held : held.filter((x) => !UNLINKED.includes(x.type));
            await store().createNode(seeded(asChecked(node, schema, ids)), ids);
          }
          return c;
        }

        const fromKeyUnlinked = (node: NodeAddress, overrides: Partial<SearchQuery> = {}): SearchQuery =>
          buildQuery({ ...fromKey(node), unlinkedTypes: UNLINKED, ...overrides });
        const fromWhereUnlinked = (c: string, where: NonNullable<SearchQuery['where']>, overrides: Partial<SearchQuery> = {}): SearchQuery =>
          buildQuery({ customerId: c, where, unlinkedTypes: UNLINKED, ...overrides });

        test('when people share IDs of links: false types, then ALL and ONE from a key do not merge them, and each still holds and returns those IDs', async () => {
          const c = await households();
          for (const [keys, component] of [
            [['a1', 'a2', 'a3'], A],
            [['b1', 'b2'], B],
          ] as const) {
            for (const k of keys) {
              const all = await search(fromKeyUnlinked(person(c, k)));
              expect(all.results).toEqual(component);
              expect(all.total).toBe(component.length);
            }
          }
          for (const k of ['x1', 'x2']) expect(await search(fromKeyUnlinked(account(c, k)))).toMatchObject({ results: X, total: 4 });
          // ONE: the start node and the nodes sharing a linking ID with it; their device and ip are their own IDs.
          const oneFromA1 = union([id('cookie', 'ca'), id('cookie', 'ca3'), DEV], people('a1', 'a2'));
          expect(await search(fromKeyUnlinked(person(c, 'a1'), { step: 'ONE' }))).toMatchObject({ results: oneFromA1, total: 5 });
          const oneFromA3 = union([id('cookie', 'ca'), id('cookie', 'ca3'), IP], people('a2', 'a3'));
          expect(await search(fromKeyUnlinked(person(c, 'a3'), { step: 'ONE' }))).toMatchObject({ results: oneFromA3, total: 5 });
          expect(await search(fromKeyUnlinked(person(c, 'b1'), { step: 'ONE' }))).toMatchObject({ results: B, total: 5 });
          expect(await search(fromKeyUnlinked(person(c, 'z1')))).toMatchObject({ results: [id('cookie', 'cz'), id('person_id', 'z1')], total: 2 });
          expect(await store().getNodeIds(person(c, 'a1'))).toEqual([id('cookie', 'ca'), DEV, id('person_id', 'a1')]);
          expect(await store().getNodeIds(person(c, 'b2'))).toEqual([id('cookie', 'cb'), IP, id('person_id', 'b2')]);
          // Filters apply to them as to any ID.
          expect(await search(fromKeyUnlinked(person(c, 'a1'), { havingType: 'device' }))).toMatchObject({ results: [DEV], total: 1 });
          const hidden = await search(fromKeyUnlinked(person(c, 'a1'), { hiddenTypes: ['device'] }));
          expect(hidden).toMatchObject({ results: A.filter((x) => x.type !== 'device'), total: 6 });
          // Told nothing of links: false, the same graph is one component.
          const linking = await search(buildQuery(fromKey(person(c, 'a1'))));
          expect(linking).toMatchObject({ results: union(A, B, X), total: 13 });
        });

        test('when where is a linking ID, then the start nodes reach no one through the links: false IDs they hold (ALL and ONE)', async () => {
          const c = await households();
          expect(await search(fromWhereUnlinked(c, { id: id('cookie', 'ca') }))).toMatchObject({ results: A, total: 7 });
          // ONE from a2 and a3 (holders of ca3) reaches a1 through ca, and no one through dev or ip1.
          expect(await search(fromWhereUnlinked(c, { id: id('cookie', 'ca3') }, { step: 'ONE' }))).toMatchObject({ results: A, total: 7 });
          expect(await search(fromWhereUnlinked(c, { id: id('cookie', 'cb') }, { step: 'ONE' }))).toMatchObject({ results: B, total: 5 });
          expect(await search(fromWhereUnlinked(c, { schemaId: 'account', id: id('cookie', 'cx') }))).toMatchObject({ results: X, total: 4 });
          // key and where: the keyed node starts only if it holds where, and then reaches its own component.
          expect(await search(fromKeyUnlinked(person(c, 'b1'), { where: { schemaId: 'person', id: DEV } }))).toMatchObject({ results: B, total: 5 });
        });

        test("when where is an ID of a links: false type, then all its holders start and ALL reaches each holder's own component only", async () => {
          const c = await households();
          // dev: held by a1, b1 and x1; z1 holds neither and stays out.
          expect(await search(fromWhereUnlinked(c, { id: DEV }))).toMatchObject({ results: union(A, B, X), total: 13 });
          // ip1: held by a3 and b2.
          expect(await search(fromWhereUnlinked(c, { id: IP }))).toMatchObject({ results: union(A, B), total: 10 });
          // ONE: the holders and the nodes sharing a linking ID with one of them (not a3, two steps from a1).
          const oneFromDev = union([id('cookie', 'ca'), id('cookie', 'ca3'), DEV], people('a1', 'a2'), B, X);
          expect(await search(fromWhereUnlinked(c, { id: DEV }, { step: 'ONE' }))).toMatchObject({ results: oneFromDev, total: 12 });
          const oneFromIp = union([id('cookie', 'ca'), id('cookie', 'ca3'), IP], people('a2', 'a3'), B);
          expect(await search(fromWhereUnlinked(c, { id: IP }, { step: 'ONE' }))).toMatchObject({ results: oneFromIp, total: 9 });
          expect(await search(fromWhereUnlinked(c, { id: DEV }, { havingType: 'person_id' }))).toMatchObject({
            results: people('a1', 'a2', 'a3', 'b1', 'b2'),
            total: 5,
          });
          const hidden = await search(fromWhereUnlinked(c, { id: DEV }, { hiddenTypes: ['device', 'cookie'], limit: 3 }));
          expect(hidden).toMatchObject({ results: [id('account_id', 'x1'), id('account_id', 'x2'), IP], total: 8 });
        });

        test("when where on an ID of a links: false type names a schema, then only that schema's holders start, and holders in other schemas and their components stay out", async () => {
          const c = await households();
          const inPerson = await search(fromWhereUnlinked(c, { schemaId: 'person', id: DEV }));
          expect(inPerson).toMatchObject({ results: union(A, B), total: 10 });
          expect(inPerson.results.filter((x) => x.type === 'account_id' || x.id === 'cx')).toEqual([]);
          expect(await search(fromWhereUnlinked(c, { schemaId: 'account', id: DEV }))).toMatchObject({ results: X, total: 4 });
          const onePerson = union([id('cookie', 'ca'), id('cookie', 'ca3'), DEV], people('a1', 'a2'), B);
          expect(await search(fromWhereUnlinked(c, { schemaId: 'person', id: DEV }, { step: 'ONE' }))).toMatchObject({ results: onePerson, total: 9 });
          expect(await search(fromWhereUnlinked(c, { schemaId: 'account', id: DEV }, { step: 'ONE' }))).toMatchObject({ results: X, total: 4 });
          expect(await search(fromWhereUnlinked(c, { schemaId: 'account', id: IP }))).toMatchObject({ results: [], total: 0 });
        });

        test('when many holders of a links: false ID in a schema share one component, then ALL from the ID answers what ALL from any one of them does, and is bounded as it', async () => {
          const c = newCustomer();
          const VISITOR: SchemaRecord = {
            schemaId: 'visitor',
            idTypes: [
              { type: 'visitor_id', secure: false },
              { type: 'cookie', secure: false },
              { type: 'ip', secure: false, links: false },
            ],
          };
          for (const schema of [PERSON, ACCOUNT, VISITOR]) await store().putSchema(c, schema);
          const visitor = (key: string): NodeAddress => ({ customerId: c, schemaId: 'visitor', key: id('visitor_id', key) });
          const SHARED = id('cookie', 'shared');
          const holders = Array.from({ length: 40 }, (_, i) => `p${String(i).padStart(2, '0')}`);
          const nodes: Array<[NodeAddress, SchemaRecord, IdPair[]]> = [
            ...holders.map((k): [NodeAddress, SchemaRecord, IdPair[]] => [person(c, k), PERSON, [SHARED, IP]]),
            // Linked to the holders by the cookie: reached, though in other schemas (v1 holds the ip too).
            [visitor('v1'), VISITOR, [SHARED, IP]],
            [account(c, 'x1'), ACCOUNT, [SHARED]],
            // Holds the ip alone, in another schema: not a start node, and nothing links it to one.
            [visitor('v2'), VISITOR, [IP, id('cookie', 'alone')]],
          ];
          for (const [node, schema, held] of nodes) await store().createNode(seeded(asChecked(node, schema, held)), held);
          const component = union([SHARED, IP, id('visitor_id', 'v1'), id('account_id', 'x1')], people(...holders));

          const fromIp = (overrides: Partial<SearchQuery> = {}) => search(fromWhereUnlinked(c, { schemaId: 'person', id: IP }, overrides));
          expect(await fromIp()).toEqual({ results: component, total: 44, visitedNodes: 42 });
          expect(await search(fromKeyUnlinked(person(c, 'p17')))).toEqual({ results: component, total: 44, visitedNodes: 42 });
          // The start nodes' own IDs go with exclude; the others hold the cookie and the ip too.
          expect(await fromIp({ exclude: true })).toMatchObject({ results: [id('account_id', 'x1'), SHARED, IP, id('visitor_id', 'v1')], total: 4 });
          // 42 nodes holding 44 distinct IDs: the bounds hold there, exactly.
          await expect(fromIp({ maxNodes: 41 })).rejects.toMatchObject({ code: 'component_too_large' });
          await expect(fromIp({ maxIds: 43 })).rejects.toMatchObject({ code: 'component_too_large' });
          expect((await fromIp({ maxNodes: 42, maxIds: 44 })).total).toBe(44);
        });

        test("when exclude is true, then the start nodes' IDs go unless another target holds them, and a links: false ID brings no one in", async () => {
          const c = await households();
          // a1 alone holds dev in A: it goes; a3, a target, holds ip1: it stays.
          const fromA1 = union([id('cookie', 'ca'), id('cookie', 'ca3'), IP], people('a2', 'a3'));
          expect(await search(fromKeyUnlinked(person(c, 'a1'), { exclude: true }))).toMatchObject({ results: fromA1, total: 5 });
          expect(await search(fromKeyUnlinked(person(c, 'b1'), { exclude: true, step: 'ONE' }))).toMatchObject({
            results: [id('cookie', 'cb'), IP, id('person_id', 'b2')],
            total: 3,
          });
          // From dev, the start nodes a1, b1 and x1 are excluded; a2, a3, b2 and x2 are the targets.
          const fromDev = union(fromA1, [id('cookie', 'cb'), IP, id('person_id', 'b2')], [id('account_id', 'x2'), id('cookie', 'cx')]);
          expect(await search(fromWhereUnlinked(c, { id: DEV }, { exclude: true }))).toMatchObject({ results: fromDev, total: 9 });
          const fromDevInPerson = union(fromA1, [id('cookie', 'cb'), IP, id('person_id', 'b2')]);
          expect(await search(fromWhereUnlinked(c, { schemaId: 'person', id: DEV }, { exclude: true }))).toMatchObject({ results: fromDevInPerson, total: 7 });
          const oneFromDev = union(
            [id('cookie', 'ca'), id('cookie', 'ca3'), id('person_id', 'a2')],
            [id('cookie', 'cb'), IP, id('person_id', 'b2')],
            [id('account_id', 'x2'), id('cookie', 'cx')],
          );
          expect(await search(fromWhereUnlinked(c, { id: DEV }, { exclude: true, step: 'ONE' }))).toMatchObject({ results: oneFromDev, total: 8 });
        });

        test('when the nodes a search visits hold IDs of links: false types, then maxIds counts those IDs too, while maxNodes counts only the nodes reached', async () => {
          const c = await households();
          const tooLarge = { code: 'component_too_large' };
          // ALL from a1 visits a1, a2, a3, which hold 7 distinct IDs, dev and ip1 among them (5 without).
          await expect(search(fromKeyUnlinked(person(c, 'a1'), { maxIds: 6 }))).rejects.toMatchObject(tooLarge);
          await expect(search(fromKeyUnlinked(person(c, 'a1'), { maxIds: 6, hiddenTypes: UNLINKED }))).rejects.toMatchObject(tooLarge);
          expect((await search(fromKeyUnlinked(person(c, 'a1'), { maxIds: 7, maxNodes: 3 }))).total).toBe(7);
          // ONE from a1 visits a1 and a2: a1, ca, dev, a2, ca3.
          await expect(search(fromKeyUnlinked(person(c, 'a1'), { step: 'ONE', maxIds: 4 }))).rejects.toMatchObject(tooLarge);
          expect((await search(fromKeyUnlinked(person(c, 'a1'), { step: 'ONE', maxIds: 5, maxNodes: 2 }))).total).toBe(5);
          // Where dev in person: a1, a2, a3, b1, b2 hold 10 distinct IDs, dev and ip1 once each (8 without them).
          await expect(search(fromWhereUnlinked(c, { schemaId: 'person', id: DEV }, { maxIds: 9 }))).rejects.toMatchObject(tooLarge);
          await expect(search(fromWhereUnlinked(c, { schemaId: 'person', id: DEV }, { maxNodes: 4 }))).rejects.toMatchObject(tooLarge);
          expect((await search(fromWhereUnlinked(c, { schemaId: 'person', id: DEV }, { maxIds: 10, maxNodes: 5 }))).total).toBe(10);
          // Where dev: seven nodes holding 13 distinct IDs.
          await expect(search(fromWhereUnlinked(c, { id: DEV }, { maxIds: 12 }))).rejects.toMatchObject(tooLarge);
          await expect(search(fromWhereUnlinked(c, { id: DEV }, { maxNodes: 6 }))).rejects.toMatchObject(tooLarge);
          expect((await search(fromWhereUnlinked(c, { id: DEV }, { maxIds: 13, maxNodes: 7 }))).total).toBe(13);
          // ONE from dev: a1, b1, x1 and a2, b2, x2 hold 12 distinct IDs, dev counted once.
          await expect(search(fromWhereUnlinked(c, { id: DEV }, { step: 'ONE', maxIds: 11 }))).rejects.toMatchObject(tooLarge);
          await expect(search(fromWhereUnlinked(c, { id: DEV }, { step: 'ONE', maxNodes: 5 }))).rejects.toMatchObject(tooLarge);
          expect((await search(fromWhereUnlinked(c, { id: DEV }, { step: 'ONE', maxIds: 12, maxNodes: 6 }))).total).toBe(12);
        });

        test('when the links: false IDs are left out of the same graph, then every search reaches the same people and the same other IDs', async () => {
          const withShared = await households(true);
          const without = await households(false);
          const linkingOnly = (r: SearchResult) => r.results.filter((x) => !UNLINKED.includes(x.type));
          const starts: Array<(c: string) => Pick<SearchQuery, 'customerId' | 'key' | 'where'>> = [
            ...['a1', 'a2', 'a3', 'b1', 'b2', 'z1'].map((k) => (c: string) => fromKey(person(c, k))),
            ...['x1', 'x2'].map((k) => (c: string) => fromKey(account(c, k))),
            ...['ca', 'ca3', 'cb', 'cx'].map((v) => (c: string) => ({ customerId: c, where: { id: id('cookie', v) } })),
          ];
          for (const start of starts) {
            for (const step of ['ALL', 'ONE'] as const) {
              for (const exclude of [false, true]) {
                const shared = await search(buildQuery({ ...start(withShared), step, exclude, unlinkedTypes: UNLINKED }));
                const plain = await search(buildQuery({ ...start(without), step, exclude, unlinkedTypes: UNLINKED }));
                expect(linkingOnly(shared)).toEqual(plain.results);
                expect(shared.visitedNodes).toBe(plain.visitedNodes);
              }
            }
          }
        });

        test("when a type's links option is switched, then customerPolicy.unlinkedTypes follows at once, and searches given it link through the type or not", async () => {
          const c = await households();
          const fromA3 = async () => search(buildQuery({ ...fromKey(person(c, 'a3')), unlinkedTypes: [...(await store().customerPolicy(c)).unlinkedTypes] }));
          expect(await policyTypes(c)).toEqual({ secure: [], unlinked: ['device', 'ip'] });
          expect((await fromA3()).results).toEqual(A);
          // ip is person's alone, and held: switching its links is allowed all the same.
          const ipLinking: SchemaRecord = { schemaId: 'person', idTypes: PERSON.idTypes.map((t) => (t.type === 'ip' ? { type: 'ip', secure: false } : t)) };
          await expect(store().putSchema(c, ipLinking)).resolves.toEqual({ created: false });
          expect(await policyTypes(c)).toEqual({ secure: [], unlinked: ['device'] });
          // a3 and b2 share ip1, which now links A and B.
          expect((await fromA3()).results).toEqual(union(A, B));
          await store().putSchema(c, PERSON);
          expect(await policyTypes(c)).toEqual({ secure: [], unlinked: ['device', 'ip'] });
          expect((await fromA3()).results).toEqual(A);
        });
      });

      describe('holder limits (maxHolders)', () => {
        const VISIT: SchemaRecord = {
          schemaId: 'visit',
          idTypes: [
            { type: 'visit_id', secure: false, maxHolders: 2 },
            { type: 'cookie', secure: false },
            { type: 'ip', secure: false, maxHolders: 3 },
          ],
        };
        /** Another schema with the same ip declaration: its nodes count among the holders too. */
        const KIOSK: SchemaRecord = {
          schemaId: 'kiosk',
          idTypes: [
            { type: 'kiosk_id', secure: false },
            { type: 'ip', secure: false, maxHolders: 3 },
          ],
        };
        const HOT = id('ip', '198.51.100.7');
        /** The refusal, whose message names the type and the limit but never the value (it may be secure, and messages reach logs). */
        const limitReached = { code: 'holder_limit_reached', message: expect.not.stringContaining(HOT.id) };
        const absent = id('cookie', 'absent');

        async function customerWithLimits(): Promise<string> {
          const c = newCustomer();
          await store().putSchema(c, VISIT);
          await store().putSchema(c, KIOSK);
          return c;
        }

        /** A write to visit node `key` mentioning `mentioned`, addressed as the domain does (expectedTypes from `schema`). */
        const visit = (c: string, key: string, mentioned: IdPair[] = [], schema: SchemaRecord = VISIT): NodeAddress =>
          asChecked({ customerId: c, schemaId: 'visit', key: id('visit_id', key) }, schema, mentioned);
        const kiosk = (c: string, key: string, mentioned: IdPair[] = []): NodeAddress =>
          asChecked({ customerId: c, schemaId: 'kiosk', key: id('kiosk_id', key) }, KIOSK, mentioned);

        /** The keys of the nodes holding `held`, as `type=value` (these nodes share no other ID: ONE from it reaches its holders only). */
        async function holdersOf(c: string, held: IdPair): Promise<string[]> {
          const r = await search(buildQuery({ customerId: c, where: { id: held }, step: 'ONE', hiddenTypes: ['cookie', 'ip'] }));
          return r.results.map((x) => `${x.type}=${x.id}`);
        }

        test('when nodes are created with an ID of a limited type, then the maxHolders-th succeeds, counted over all schemas, and the next is holder_limit_reached and not created', async () => {
          const c = await customerWithLimits();
          await store().createNode(seeded(visit(c, 'v1', [HOT])), [HOT]);
          await store().createNode(seeded(kiosk(c, 'k1', [HOT])), [HOT]);
          const withCookie = (n: string) => [id('cookie', `c${n}`), HOT];
          // The third holder: exactly at the limit.
          await expect(store().createNode(seeded(visit(c, 'v2', withCookie('2'))), withCookie('2'))).resolves.toBeUndefined();
          await expect(store().createNode(seeded(visit(c, 'v3', withCookie('3'))), withCookie('3'))).rejects.toMatchObject(limitReached);
          await expect(store().createNode(seeded(kiosk(c, 'k2', [HOT])), [HOT])).rejects.toMatchObject(limitReached);
          expect(await store().getNodeIds(visit(c, 'v3'))).toBeUndefined();
          expect(await store().getNodeIds(kiosk(c, 'k2'))).toBeUndefined();
          expect((await search(buildQuery({ customerId: c, where: { id: id('cookie', 'c3') } }))).total).toBe(0);
          expect(await holdersOf(c, HOT)).toEqual(['kiosk_id=k1', 'visit_id=v1', 'visit_id=v2']);
          // Without that ID the same node is created; another customer counts its own holders.
          await expect(store().createNode(seeded(visit(c, 'v3', [id('cookie', 'c3')])), [id('cookie', 'c3')])).resolves.toBeUndefined();
          const other = await customerWithLimits();
          await expect(store().createNode(seeded(visit(other, 'v1', [HOT])), [HOT])).resolves.toBeUndefined();
          expect(await holdersOf(other, HOT)).toEqual(['visit_id=v1']);
          expect(await holdersOf(c, HOT)).toEqual(['kiosk_id=k1', 'visit_id=v1', 'visit_id=v2']);
        });

        test('when insertIds would add a holder past the limit, then holder_limit_reached and none of its IDs is added; up to the limit it succeeds', async () => {
          const c = await customerWithLimits();
          const FREE = id('ip', '203.0.113.9');
          await store().createNode(seeded(visit(c, 'v1', [HOT])), [HOT]);
          await store().createNode(seeded(visit(c, 'v2', [HOT])), [HOT]);
          await store().createNode(seeded(visit(c, 'v3')), []);
          await store().createNode(seeded(visit(c, 'v4', [id('cookie', 'c4')])), [id('cookie', 'c4')]);
          await expect(store().insertIds(seeded(visit(c, 'v3', [HOT])), [HOT])).resolves.toBeUndefined();
          const adding = [id('cookie', 'c4b'), FREE, HOT];
          await expect(store().insertIds(seeded(visit(c, 'v4', adding)), adding)).rejects.toMatchObject(limitReached);
          expect(await store().getNodeIds(visit(c, 'v4'))).toEqual([id('cookie', 'c4'), id('visit_id', 'v4')]);
          expect((await search(buildQuery({ customerId: c, where: { id: FREE } }))).total).toBe(0);
          expect(await holdersOf(c, HOT)).toEqual(['visit_id=v1', 'visit_id=v2', 'visit_id=v3']);
          await expect(store().insertIds(seeded(visit(c, 'v4', [FREE])), [FREE])).resolves.toBeUndefined();
          expect(await store().getNodeIds(visit(c, 'v4'))).toEqual([id('cookie', 'c4'), FREE, id('visit_id', 'v4')]);
        });

        test('when replaceId would set an ID whose holders are at the limit, then holder_limit_reached on the update and on the upsert path, and the node is unchanged', async () => {
          const c = await customerWithLimits();
          const own = (n: string) => id('ip', `10.0.0.${n}`);
          for (const n of ['1', '2']) await store().createNode(seeded(visit(c, `v${n}`, [HOT])), [HOT]);
          for (const n of ['3', '4']) await store().createNode(seeded(visit(c, `v${n}`, [own(n)])), [own(n)]);
          // Update, the third holder: at the limit.
          await expect(store().replaceId(seeded(visit(c, 'v3', [own('3'), HOT])), own('3'), HOT, false)).resolves.toBeUndefined();
          expect(await store().getNodeIds(visit(c, 'v3'))).toEqual([HOT, id('visit_id', 'v3')]);
          const v4 = [own('4'), id('visit_id', 'v4')];
          // where held (update, with and without upsert), then where not held (upsert adds set).
          for (const upsert of [false, true]) {
            await expect(store().replaceId(seeded(visit(c, 'v4', [own('4'), HOT])), own('4'), HOT, upsert)).rejects.toMatchObject(limitReached);
          }
          await expect(store().replaceId(seeded(visit(c, 'v4', [absent, HOT])), absent, HOT, true)).rejects.toMatchObject(limitReached);
          expect(await store().getNodeIds(visit(c, 'v4'))).toEqual(v4);
          expect(await holdersOf(c, HOT)).toEqual(['visit_id=v1', 'visit_id=v2', 'visit_id=v3']);
          // An update whose where is not held adds nothing, so it is no holder either.
          await expect(store().replaceId(seeded(visit(c, 'v4', [absent, HOT])), absent, HOT, false)).resolves.toBeUndefined();
          expect(await store().getNodeIds(visit(c, 'v4'))).toEqual(v4);
        });

        test('when a node already holds the limited ID, then writes keeping it add no holder and pass at the limit; each holder that goes frees a place', async () => {
          const c = await customerWithLimits();
          for (const n of ['1', '2', '3']) await store().createNode(seeded(visit(c, `v${n}`, [HOT])), [HOT]);
          await expect(store().replaceId(seeded(visit(c, 'v1', [absent, HOT])), absent, HOT, true)).resolves.toBeUndefined();
          await expect(store().replaceId(seeded(visit(c, 'v1', [HOT])), HOT, HOT, false)).resolves.toBeUndefined();
          expect(
            await store().applyNodeWrites([{ kind: 'replace', node: seeded(visit(c, 'v2', [absent, HOT])), where: absent, set: HOT, upsert: true }]),
          ).toEqual([undefined]);
          await expect(store().insertIds(seeded(visit(c, 'v1', [HOT])), [HOT])).rejects.toMatchObject({ code: 'id_exists' });
          expect(await store().getNodeIds(visit(c, 'v1'))).toEqual([HOT, id('visit_id', 'v1')]);
          expect(await holdersOf(c, HOT)).toEqual(['visit_id=v1', 'visit_id=v2', 'visit_id=v3']);

          await store().createNode(seeded(visit(c, 'v4')), []);
          await store().createNode(seeded(visit(c, 'v5')), []);
          await expect(store().insertIds(seeded(visit(c, 'v4', [HOT])), [HOT])).rejects.toMatchObject(limitReached);
          // v1 moves to another ip: a place for v4.
          const OTHER = id('ip', '192.0.2.1');
          await store().replaceId(seeded(visit(c, 'v1', [HOT, OTHER])), HOT, OTHER, false);
          await expect(store().insertIds(seeded(visit(c, 'v4', [HOT])), [HOT])).resolves.toBeUndefined();
          await expect(store().insertIds(seeded(visit(c, 'v5', [HOT])), [HOT])).rejects.toMatchObject(limitReached);
          // v2 removes it: a place for v5.
          await store().removeId(seeded(visit(c, 'v2', [HOT])), HOT);
          await expect(store().insertIds(seeded(visit(c, 'v5', [HOT])), [HOT])).resolves.toBeUndefined();
          await expect(store().createNode(seeded(visit(c, 'v6', [HOT])), [HOT])).rejects.toMatchObject(limitReached);
          // v3 is deleted: a place for v6.
          await store().deleteNode(seeded(visit(c, 'v3')));
          await expect(store().createNode(seeded(visit(c, 'v6', [HOT])), [HOT])).resolves.toBeUndefined();
          expect(await holdersOf(c, HOT)).toEqual(['visit_id=v4', 'visit_id=v5', 'visit_id=v6']);
          expect(await store().getNodeIds(visit(c, 'v1'))).toEqual([OTHER, id('visit_id', 'v1')]);
        });

        test('when a node is created or rekeyed with a key ID that maxHolders nodes hold, then holder_limit_reached and nothing changes; a node holding it already may take it as key', async () => {
          const c = await customerWithLimits();
          // visit_id allows 2 holders: p2 and p3 hold p9 besides their keys.
          const P9 = id('visit_id', 'p9');
          await store().createNode(seeded(visit(c, 'p1')), []);
          await store().createNode(seeded(visit(c, 'p2', [P9])), [P9]);
          await store().createNode(seeded(visit(c, 'p3', [P9])), [P9]);
          await expect(store().createNode(seeded(visit(c, 'p9')), [])).rejects.toMatchObject({ code: 'holder_limit_reached' });
          expect(await store().getNodeIds(visit(c, 'p9'))).toBeUndefined();
          await expect(store().rekey(seeded(visit(c, 'p1')), 'p9')).rejects.toMatchObject({ code: 'holder_limit_reached' });
          expect(await store().getNodeIds(visit(c, 'p1'))).toEqual([id('visit_id', 'p1')]);
          expect(await store().getNodeIds(visit(c, 'p9'))).toBeUndefined();
          // p2 holds p9 already: taking it as key adds no holder.
          await expect(store().rekey(seeded(visit(c, 'p2')), 'p9')).resolves.toBeUndefined();
          expect(await store().getNodeIds(visit(c, 'p9'))).toEqual([P9]);
          expect(await store().getNodeIds(visit(c, 'p2'))).toBeUndefined();
          // p7 has one holder: a rekey onto it makes the second, at the limit.
          const P7 = id('visit_id', 'p7');
          await store().insertIds(seeded(visit(c, 'p3', [P7])), [P7]);
          await expect(store().rekey(seeded(visit(c, 'p1')), 'p7')).resolves.toBeUndefined();
          expect(await store().getNodeIds(visit(c, 'p7'))).toEqual([P7]);
          expect(await store().getNodeIds(visit(c, 'p1'))).toBeUndefined();
          expect(await store().getNodeIds(visit(c, 'p3'))).toEqual([id('visit_id', 'p3'), P7, P9]);
        });

        test('when bulk writes add holders, then each is checked, in order, against the holders the writes before it left', async () => {
          const c = await customerWithLimits();
          await store().createNode(seeded(visit(c, 'v1', [HOT])), [HOT]);
          const outcomes = await store().applyNodeWrites([
            { kind: 'create', node: seeded(visit(c, 'v2', [HOT])), ids: [HOT] },
            { kind: 'create', node: seeded(visit(c, 'v3', [id('cookie', 'c3'), HOT])), ids: [id('cookie', 'c3'), HOT] },
            { kind: 'create', node: seeded(visit(c, 'v4', [HOT])), ids: [HOT] },
            { kind: 'create', node: seeded(visit(c, 'v4')), ids: [] },
            { kind: 'insert', node: seeded(visit(c, 'v4', [HOT])), ids: [HOT] },
            { kind: 'replace', node: seeded(visit(c, 'v4', [absent, HOT])), where: absent, set: HOT, upsert: true },
            { kind: 'removeId', node: seeded(visit(c, 'v2', [HOT])), id: HOT },
            { kind: 'replace', node: seeded(visit(c, 'v4', [absent, HOT])), where: absent, set: HOT, upsert: true },
            { kind: 'create', node: seeded(kiosk(c, 'k1', [HOT])), ids: [HOT] },
          ]);
          expect(outcomes.map((o) => o?.code)).toEqual([
            undefined,
            undefined,
            'holder_limit_reached',
            undefined,
            'holder_limit_reached',
            'holder_limit_reached',
            undefined,
            undefined,
            'holder_limit_reached',
          ]);
          expect(await store().getNodeIds(visit(c, 'v4'))).toEqual([HOT, id('visit_id', 'v4')]);
          expect(await store().getNodeIds(visit(c, 'v2'))).toEqual([id('visit_id', 'v2')]);
          expect(await store().getNodeIds(kiosk(c, 'k1'))).toBeUndefined();
          expect(await holdersOf(c, HOT)).toEqual(['visit_id=v1', 'visit_id=v3', 'visit_id=v4']);
        });

        test("when maxHolders is lowered below today's holders, then the put is accepted, the holders keep the ID, and new holders are refused until enough have gone", async () => {
          const c = newCustomer();
          await store().putSchema(c, VISIT);
          for (const n of ['1', '2', '3']) await store().createNode(seeded(visit(c, `v${n}`, [HOT])), [HOT]);
          const withIpLimit = (maxHolders: number): SchemaRecord => ({
            schemaId: 'visit',
            idTypes: VISIT.idTypes.map((t) => (t.type === 'ip' ? { ...t, maxHolders } : t)),
          });
          const lowered = withIpLimit(1);
          await expect(store().putSchema(c, lowered)).resolves.toEqual({ created: false });
          expect(await store().getSchema(c, 'visit')).toStrictEqual(lowered);
          expect(await holdersOf(c, HOT)).toEqual(['visit_id=v1', 'visit_id=v2', 'visit_id=v3']);
          await store().createNode(seeded(visit(c, 'v4', [], lowered)), []);
          await expect(store().insertIds(seeded(visit(c, 'v4', [HOT], lowered)), [HOT])).rejects.toMatchObject(limitReached);
          await store().removeId(seeded(visit(c, 'v1', [HOT], lowered)), HOT);
          await store().removeId(seeded(visit(c, 'v2', [HOT], lowered)), HOT);
          // One holder left: as many as the limit.
          await expect(store().insertIds(seeded(visit(c, 'v4', [HOT], lowered)), [HOT])).rejects.toMatchObject(limitReached);
          await store().deleteNode(seeded(visit(c, 'v3', [], lowered)));
          await expect(store().insertIds(seeded(visit(c, 'v4', [HOT], lowered)), [HOT])).resolves.toBeUndefined();
          expect(await holdersOf(c, HOT)).toEqual(['visit_id=v4']);
          // Raised, the limit admits more at once.
          const raised = withIpLimit(2);
          await store().putSchema(c, raised);
          await expect(store().createNode(seeded(visit(c, 'v5', [HOT], raised)), [HOT])).resolves.toBeUndefined();
          await expect(store().createNode(seeded(visit(c, 'v6', [HOT], raised)), [HOT])).rejects.toMatchObject(limitReached);
          expect(await holdersOf(c, HOT)).toEqual(['visit_id=v4', 'visit_id=v5']);
        });

        test('when a write was checked against options the schema no longer declares, then schema_changed and nothing is written', async () => {
          const c = newCustomer();
          await store().putSchema(c, VISIT);
          await store().createNode(seeded(visit(c, 'v1')), []);
          const now: SchemaRecord = {
            schemaId: 'visit',
            idTypes: [
              { type: 'visit_id', secure: false, maxHolders: 4 },
              { type: 'cookie', secure: false, links: false },
              { type: 'ip', secure: false, maxHolders: 1 },
            ],
          };
          await store().putSchema(c, now);
          const at = (key: string, ...expectedTypes: IdTypeDeclaration[]): NodeAddress => ({
            customerId: c,
            schemaId: 'visit',
            key: id('visit_id', key),
            expectedTypes,
          });
          const keyNow = declarationOf(now, 'visit_id');
          const ipWas = declarationOf(VISIT, 'ip');
          // A write that knows of no limit must not pass one either.
          const ipUnlimited: IdTypeDeclaration = { type: 'ip', secure: false };
          const changed = { code: 'schema_changed' };
          await expect(store().createNode(seeded(at('v2', keyNow, ipWas)), [HOT])).rejects.toMatchObject(changed);
          await expect(store().createNode(seeded(at('v2', keyNow, ipUnlimited)), [HOT])).rejects.toMatchObject(changed);
          await expect(store().insertIds(seeded(at('v1', keyNow, ipWas)), [HOT])).rejects.toMatchObject(changed);
          await expect(store().replaceId(seeded(at('v1', keyNow, declarationOf(now, 'cookie'), ipWas)), absent, HOT, true)).rejects.toMatchObject(changed);
          // links changed: the cookie declaration as it was.
          await expect(store().insertIds(seeded(at('v1', keyNow, declarationOf(VISIT, 'cookie'))), [id('cookie', 'k1')])).rejects.toMatchObject(changed);
          // The key type's limit changed.
          await expect(store().rekey(seeded(at('v1', declarationOf(VISIT, 'visit_id'))), 'v9')).rejects.toMatchObject(changed);
          const bulk = await store().applyNodeWrites([
            { kind: 'insert', node: seeded(at('v1', keyNow, ipWas)), ids: [HOT] },
            { kind: 'create', node: seeded(at('v3', declarationOf(VISIT, 'visit_id'))), ids: [] },
          ]);
          expect(bulk.map((o) => o?.code)).toEqual(['schema_changed', 'schema_changed']);
          expect(await store().getNodeIds(visit(c, 'v1'))).toEqual([id('visit_id', 'v1')]);
          for (const gone of ['v2', 'v3', 'v9']) expect(await store().getNodeIds(visit(c, gone))).toBeUndefined();
          expect((await search(buildQuery({ customerId: c, where: { id: HOT } }))).total).toBe(0);
          // Checked against what is declared now, the same writes go through.
          await expect(store().insertIds(seeded(at('v1', keyNow, declarationOf(now, 'ip'))), [HOT])).resolves.toBeUndefined();
          await expect(store().rekey(seeded(at('v1', keyNow)), 'v9')).resolves.toBeUndefined();
          expect(await store().getNodeIds(visit(c, 'v9'))).toEqual([HOT, id('visit_id', 'v9')]);
        });
      });

      describe('holder limits under concurrency', () => {
        const LIMITED: SchemaRecord = {
          schemaId: 'visit',
          idTypes: [
            { type: 'visit_id', secure: false },
            { type: 'cookie', secure: false },
            { type: 'ip', secure: false, maxHolders: 5 },
          ],
        };
        const at = (c: string, key: string, mentioned: IdPair[] = []): NodeAddress =>
          asChecked({ customerId: c, schemaId: 'visit', key: id('visit_id', key) }, LIMITED, mentioned);
        const keyOf = (i: number) => `v${String(i).padStart(3, '0')}`;
        const holderKeys = async (c: string, held: IdPair): Promise<SearchResult> =>
          search(buildQuery({ customerId: c, where: { id: held }, step: 'ONE', havingType: 'visit_id' }));

        test('when 100 creates of different nodes race to hold one ID whose type allows 5 holders, then exactly 5 succeed, 95 are holder_limit_reached, and the ID has 5 holders', async () => {
          const c = newCustomer();
          await store().putSchema(c, LIMITED);
          const HOT = id('ip', '198.51.100.77');
          const keys = Array.from({ length: 100 }, (_, i) => keyOf(i));
          const settled = await Promise.allSettled(keys.map((k) => store().createNode(seeded(at(c, k, [HOT])), [HOT])));
          const created = keys.filter((_, i) => settled[i]?.status === 'fulfilled');
          expect(created).toHaveLength(5);
          const refusals = settled.flatMap((o) => (o.status === 'rejected' ? [(o.reason as { code?: unknown }).code] : []));
          expect(refusals).toEqual(Array.from({ length: 95 }, () => 'holder_limit_reached'));
          const holders = await holderKeys(c, HOT);
          expect(holders.results).toEqual(created.map((k) => id('visit_id', k)));
          expect(holders.total).toBe(5);
          const refusedNodes = await Promise.all(keys.filter((k) => !created.includes(k)).map((k) => store().getNodeIds(at(c, k))));
          expect(refusedNodes.filter((n) => n !== undefined)).toEqual([]);
        });

        test('when a limit is lowered while creates race to add holders, then the put is accepted and no create passes the limit it was checked against', async () => {
          for (let round = 0; round < 5; round += 1) {
            const c = newCustomer();
            await store().putSchema(c, LIMITED);
            const HOT = id('ip', '198.51.100.79');
            for (const k of ['h0', 'h1', 'h2', 'h3']) await store().createNode(seeded(at(c, k, [HOT])), [HOT]);
            const lowered: SchemaRecord = { schemaId: 'visit', idTypes: LIMITED.idTypes.map((t) => (t.type === 'ip' ? { ...t, maxHolders: 1 } : t)) };
            // Checked against 5 holders: one place left, which at most one create may take, and none once the limit is 1.
            const create = (i: number) => store().createNode(seeded(at(c, keyOf(i), [HOT])), [HOT]);
            const before = [0, 1, 2].map(create);
            const put = store().putSchema(c, lowered);
            const after = [3, 4, 5].map(create);
            const [putOutcome, ...creates] = await Promise.allSettled([put, ...before, ...after]);
            expect(putOutcome?.status).toBe('fulfilled');
            expect(await store().getSchema(c, 'visit')).toStrictEqual(lowered);
            const created = creates.flatMap((o, i) => (o.status === 'fulfilled' ? [keyOf(i)] : []));
            expect(created.length).toBeLessThanOrEqual(1);
            for (const o of creates) {
              if (o.status === 'rejected') expect(['holder_limit_reached', 'schema_changed']).toContain((o.reason as { code?: unknown }).code);
            }
            const holders = await holderKeys(c, HOT);
            expect(holders.results).toEqual([...created, 'h0', 'h1', 'h2', 'h3'].sort().map((k) => id('visit_id', k)));
          }
        });

        test('when 100 writers of every kind that adds IDs race to make different nodes hold one ID whose type allows 5 holders, then exactly 5 succeed and every refused node is unchanged', async () => {
          const c = newCustomer();
          await store().putSchema(c, LIMITED);
          const HOT = id('ip', '198.51.100.78');
          const own = (i: number) => id('ip', `10.1.0.${i}`);
          const absent = id('cookie', 'absent');
          // Nodes 0-79 exist, each holding an ip of its own; 80-99 are created by the race.
          for (let i = 0; i < 80; i += 1) await store().createNode(seeded(at(c, keyOf(i), [own(i)])), [own(i)]);
          const refuseIfRefused = ([outcome]: Array<Error | undefined>): void => {
            if (outcome) throw outcome;
          };
          const writers: Array<() => Promise<void>> = Array.from({ length: 100 }, (_, i) => {
            const k = keyOf(i);
            if (i >= 90)
              return () =>
                store()
                  .applyNodeWrites([{ kind: 'create', node: seeded(at(c, k, [HOT])), ids: [HOT] }])
                  .then(refuseIfRefused);
            if (i >= 80) return () => store().createNode(seeded(at(c, k, [HOT])), [HOT]);
            switch (i % 4) {
              case 0:
                return () => store().insertIds(seeded(at(c, k, [HOT])), [HOT]);
              case 1:
                return () => store().replaceId(seeded(at(c, k, [absent, HOT])), absent, HOT, true);
              case 2:
                return () => store().replaceId(seeded(at(c, k, [own(i), HOT])), own(i), HOT, false);
              default:
                return () =>
                  store()
                    .applyNodeWrites([{ kind: 'insert', node: seeded(at(c, k, [HOT])), ids: [HOT] }])
                    .then(refuseIfRefused);
            }
          });
          const settled = await Promise.allSettled(writers.map((write) => write()));
          const succeeded = settled.flatMap((o, i) => (o.status === 'fulfilled' ? [i] : []));
          expect(succeeded).toHaveLength(5);
          const refusals = settled.flatMap((o) => (o.status === 'rejected' ? [(o.reason as { code?: unknown }).code] : []));
          expect(refusals).toEqual(Array.from({ length: 95 }, () => 'holder_limit_reached'));
          const holders = await holderKeys(c, HOT);
          expect(holders.results).toEqual(succeeded.map((i) => id('visit_id', keyOf(i))));
          expect(holders.total).toBe(5);
          for (let i = 0; i < 100; i += 1) {
            const held = await store().getNodeIds(at(c, keyOf(i)));
            if (succeeded.includes(i)) expect(held).toContainEqual(HOT);
            else expect(held).toEqual(i < 80 ? [own(i), id('visit_id', keyOf(i))] : undefined);
          }
        });
      });

      describe('customer policy: settings, blocked values and type options', () => {
        const RULES: BlockRule[] = [
          { type: 'email', values: ['test@test.com', 'none@none', 'ünïcode@exämple.com'], ignoreCase: true },
          { type: 'device', pattern: '^0+$', ignoreCase: false },
        ];
        const PARIS: CustomerSettings = { requireToken: true, timezone: 'Europe/Paris' };

        test('when a customer has stored nothing, then customerPolicy gives the default settings, no rules and no types', async () => {
          const c = newCustomer();
          expect(await store().customerPolicy(c)).toEqual({
            settings: { requireToken: false, timezone: 'UTC' },
            blockRules: [],
            secureTypes: new Set(),
            unlinkedTypes: new Set(),
          });
          // Schemas bring their types, not settings or rules.
          await store().putSchema(c, MEMBER);
          expect(await store().customerPolicy(c)).toEqual({
            settings: { requireToken: false, timezone: 'UTC' },
            blockRules: [],
            secureTypes: new Set(['email']),
            unlinkedTypes: new Set(),
          });
        });

        test('when a schema is read with the policy, then schemaWithPolicy gives what getSchema and customerPolicy give, and no schema when it is absent', async () => {
          const c = newCustomer();
          await store().putSchema(c, {
            schemaId: 'crm',
            idTypes: [
              { type: 'crm_id', secure: false },
              { type: 'email', secure: true },
            ],
          });
          await store().putSchema(c, VISIT_WITH_OPTIONS);
          await store().putSettings(c, PARIS);
          await store().putBlocklist(c, RULES);
          const policy = await store().customerPolicy(c);
          expect(policy.unlinkedTypes).toEqual(new Set(['ip']));
          expect(policy.secureTypes).toEqual(new Set(['email']));
          for (const schemaId of ['crm', 'visit']) {
            expect(await store().schemaWithPolicy(c, schemaId)).toStrictEqual({ schema: await store().getSchema(c, schemaId), policy });
          }
          expect((await store().schemaWithPolicy(c, 'visit')).schema).toStrictEqual(VISIT_WITH_OPTIONS);
          expect(await store().schemaWithPolicy(c, 'absent')).toStrictEqual({ schema: undefined, policy });
          // Another customer's schema of the same name is not this one's.
          expect((await store().schemaWithPolicy(newCustomer(), 'visit')).schema).toBeUndefined();
        });

        test('when settings are put, then putSettings answers what it stored, customerPolicy reads it at once, and each put replaces both fields', async () => {
          const c = newCustomer();
          await store().putBlocklist(c, RULES);
          // Read before the put: what a store keeps of it must not outlive the put.
          expect((await store().customerPolicy(c)).settings).toStrictEqual({ requireToken: false, timezone: 'UTC' });
          await expect(store().putSettings(c, PARIS)).resolves.toStrictEqual(PARIS);
          expect((await store().customerPolicy(c)).settings).toStrictEqual(PARIS);
          const newYork: CustomerSettings = { requireToken: false, timezone: 'America/New_York' };
          await expect(store().putSettings(c, newYork)).resolves.toStrictEqual(newYork);
          const policy = await store().customerPolicy(c);
          expect(policy.settings).toStrictEqual(newYork);
          // The blocked values are another put's: untouched.
          expect(policy.blockRules).toStrictEqual(RULES);
          await expect(store().putSettings(c, { requireToken: false, timezone: 'UTC' })).resolves.toStrictEqual({ requireToken: false, timezone: 'UTC' });
          expect((await store().customerPolicy(c)).settings).toStrictEqual({ requireToken: false, timezone: 'UTC' });
        });

        test('when a blocklist is put, then putBlocklist answers the rules, customerPolicy reads them in their order, and each put replaces them, with none too', async () => {
          const c = newCustomer();
          await store().putSettings(c, PARIS);
          expect((await store().customerPolicy(c)).blockRules).toEqual([]);
          await expect(store().putBlocklist(c, RULES)).resolves.toStrictEqual(RULES);
          expect((await store().customerPolicy(c)).blockRules).toStrictEqual(RULES);
          const replacement: BlockRule[] = [{ type: 'cookie', values: ['0'], ignoreCase: false }];
          await expect(store().putBlocklist(c, replacement)).resolves.toStrictEqual(replacement);
          const policy = await store().customerPolicy(c);
          expect(policy.blockRules).toStrictEqual(replacement);
          expect(policy.settings).toStrictEqual(PARIS);
          await expect(store().putBlocklist(c, [])).resolves.toEqual([]);
          expect((await store().customerPolicy(c)).blockRules).toEqual([]);
        });

        test('when rules with and without confusables are put, then each comes back as put, the flag where it was and nowhere else', async () => {
          const c = newCustomer();
          const rules: BlockRule[] = [
            { type: 'member_id', values: ['admin', 'аdmin'], ignoreCase: true, confusables: true },
            { type: 'cookie', values: ['x'], ignoreCase: false, confusables: false },
            { type: 'device', pattern: '٠+|ｕｎｋｎｏｗｎ', ignoreCase: false },
          ];
          await expect(store().putBlocklist(c, rules)).resolves.toStrictEqual(rules);
          expect((await store().customerPolicy(c)).blockRules).toStrictEqual(rules);
        });

        test("when a new customer's first settings and blocklist puts race, then each answers what it stored, and what is left is one of each", async () => {
          const c = newCustomer();
          const zones = ['Europe/Paris', 'America/New_York', 'Asia/Tokyo', 'UTC', 'Australia/Sydney'];
          const settings: CustomerSettings[] = zones.map((timezone, i) => ({ requireToken: i % 2 === 0, timezone }));
          const lists: BlockRule[][] = zones.map((_, i) => [{ type: 'cookie', values: [`blocked-${i}`], ignoreCase: i % 2 === 0 }]);
          const [settled, listed] = await Promise.all([
            Promise.allSettled(settings.map((one) => store().putSettings(c, one))),
            Promise.allSettled(lists.map((rules) => store().putBlocklist(c, rules))),
          ]);

          expect(settled.map((o) => o.status)).toEqual(settings.map(() => 'fulfilled'));
          expect(listed.map((o) => o.status)).toEqual(lists.map(() => 'fulfilled'));
          expect(settled.map((o) => (o as PromiseFulfilledResult<CustomerSettings>).value)).toStrictEqual(settings);
          expect(listed.map((o) => (o as PromiseFulfilledResult<BlockRule[]>).value)).toStrictEqual(lists);
          const policy = await store().customerPolicy(c);
          expect(settings).toContainEqual(policy.settings);
          expect(lists).toContainEqual(policy.blockRules);
        });

        test('when schemas declare secure and links: false types, then secureTypes and unlinkedTypes are their union and follow every put and delete', async () => {
          const c = newCustomer();
          const web: SchemaRecord = {
            schemaId: 'web',
            idTypes: [
              { type: 'web_id', secure: false },
              { type: 'ip', secure: false, links: false },
              { type: 'email', secure: true },
              { type: 'device', secure: false, links: false, maxHolders: 10 },
            ],
          };
          const app: SchemaRecord = {
            schemaId: 'app',
            idTypes: [
              { type: 'app_id', secure: false },
              { type: 'ip', secure: false, links: false },
              { type: 'phone', secure: true },
            ],
          };
          expect(await policyTypes(c)).toEqual({ secure: [], unlinked: [] });
          await store().putSchema(c, web);
          expect(await policyTypes(c)).toEqual({ secure: ['email'], unlinked: ['device', 'ip'] });
          await store().putSchema(c, app);
          expect(await policyTypes(c)).toEqual({ secure: ['email', 'phone'], unlinked: ['device', 'ip'] });
          // web without ip and device: app still declares ip.
          await store().putSchema(c, {
            schemaId: 'web',
            idTypes: [
              { type: 'web_id', secure: false },
              { type: 'email', secure: true },
            ],
          });
          expect(await policyTypes(c)).toEqual({ secure: ['email', 'phone'], unlinked: ['ip'] });
          await store().deleteSchema(c, 'app');
          expect(await policyTypes(c)).toEqual({ secure: ['email'], unlinked: [] });
          await store().putSchema(c, {
            schemaId: 'web',
            idTypes: [
              { type: 'web_id', secure: false, links: false },
              { type: 'email', secure: true },
            ],
          });
          expect(await policyTypes(c)).toEqual({ secure: ['email'], unlinked: ['web_id'] });
          // A refused put changes nothing.
          await expect(store().putSchema(c, { schemaId: 'other', idTypes: [{ type: 'web_id', secure: true, links: false }] })).rejects.toMatchObject({
            code: 'secure_flag_conflict',
          });
          await expect(store().putSchema(c, { schemaId: 'other', idTypes: [{ type: 'web_id', secure: false }] })).rejects.toMatchObject({
            code: 'type_option_conflict',
          });
          expect(await policyTypes(c)).toEqual({ secure: ['email'], unlinked: ['web_id'] });
        });

        test('when customers differ, then the settings, blocked values and type options of one never show in another', async () => {
          const a = newCustomer();
          const b = newCustomer();
          const defaults = { settings: { requireToken: false, timezone: 'UTC' }, blockRules: [], secureTypes: new Set(), unlinkedTypes: new Set() };
          await store().putSettings(a, PARIS);
          await store().putBlocklist(a, RULES);
          await store().putSchema(a, {
            schemaId: 'web',
            idTypes: [
              { type: 'web_id', secure: false },
              { type: 'ip', secure: true, links: false, maxHolders: 2 },
            ],
          });
          expect(await store().customerPolicy(b)).toEqual(defaults);
          // The same type with other options is no conflict in another customer.
          await expect(
            store().putSchema(b, {
              schemaId: 'web',
              idTypes: [
                { type: 'web_id', secure: false },
                { type: 'ip', secure: false },
              ],
            }),
          ).resolves.toEqual({
            created: true,
          });
          await store().putSettings(b, { requireToken: false, timezone: 'Asia/Tokyo' });
          await store().putBlocklist(b, []);
          expect(await store().customerPolicy(a)).toEqual({ settings: PARIS, blockRules: RULES, secureTypes: new Set(['ip']), unlinkedTypes: new Set(['ip']) });
          expect(await store().customerPolicy(b)).toEqual({
            settings: { requireToken: false, timezone: 'Asia/Tokyo' },
            blockRules: [],
            secureTypes: new Set(),
            unlinkedTypes: new Set(),
          });
        });
      });
    });
  });
}
