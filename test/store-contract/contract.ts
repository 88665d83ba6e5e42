// The store contract: plain Store calls, no HTTP. Every Store implementation runs this very suite
// (`describeStoreContract(name, openStore)`), so it assumes nothing of a particular store:
// - each group of tests opens its own store and closes it afterwards;
// - each test works on customer ids of its own (unique per run and per test), because a shared store
//   (Neo4j) is neither emptied between tests nor between runs; token ids and hashes are unique likewise.
// Every assertion reads back what is stored (getNodeIds, search, getSchema, ...), not merely that a call resolved.
import { randomUUID } from 'node:crypto';
import type { IdPair, NodeAddress, SchemaRecord, SearchQuery, SearchResult, TokenRecord } from '../../src/domain/model';
import type { NodeWrite, Store, StoredToken } from '../../src/store/store';

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

/** The store `openStore` gives, opened before and closed after the tests of the enclosing describe block. */
function useStore(openStore: () => Promise<Store>): () => Store {
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
    });

    // ------------------------------------------------------------------ schemas
    describe('schemas', () => {
      const store = useStore(openStore);

      test('when a schema is put the first time, then it is created, and put again, then it is replaced', async () => {
        const c = newCustomer();
        await expect(store().putSchema(c, MEMBER)).resolves.toEqual({ created: true });
        expect(await store().getSchema(c, 'member')).toEqual(MEMBER);

        const replacement: SchemaRecord = { schemaId: 'member', idTypes: [{ type: 'member_id', secure: false }, { type: 'phone', secure: true }] };
        await expect(store().putSchema(c, replacement)).resolves.toEqual({ created: false });
        expect(await store().getSchema(c, 'member')).toEqual(replacement);
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
        const conflicting: SchemaRecord = { schemaId: 'crm', idTypes: [{ type: 'crm_id', secure: false }, { type: 'email', secure: false }] };
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
          store().putSchema(c, { schemaId: 'crm', idTypes: [{ type: 'crm_id', secure: false }, { type: 'member_id', secure: true }] }),
        ).rejects.toMatchObject({ code: 'secure_flag_conflict' });
        expect(await store().getSchema(c, 'crm')).toEqual(crm);
        expect(await store().getSchema(c, 'member')).toEqual(MEMBER);
        expect([...(await store().customerPolicy(c)).secureTypes]).toEqual(['email']);
      });

      test('when a replacement drops a type that nodes of the schema still hold, then schema_in_use and the schema is unchanged', async () => {
        const c = newCustomer();
        await store().putSchema(c, MEMBER);
        await store().createNode(member(c, 'm1'), [id('device', 'd1')]);
        const withoutDevice: SchemaRecord = { schemaId: 'member', idTypes: MEMBER.idTypes.filter((t) => t.type !== 'device') };
        await expect(store().putSchema(c, withoutDevice)).rejects.toMatchObject({ code: 'schema_in_use' });
        expect(await store().getSchema(c, 'member')).toEqual(MEMBER);
        expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('member_id', 'm1')]);
      });

      test('when a replacement drops the key type its nodes hold, then schema_in_use', async () => {
        const c = newCustomer();
        await store().putSchema(c, MEMBER);
        await store().createNode(member(c, 'm1'), []);
        const withoutKeyType: SchemaRecord = { schemaId: 'member', idTypes: MEMBER.idTypes.filter((t) => t.type !== 'member_id') };
        await expect(store().putSchema(c, withoutKeyType)).rejects.toMatchObject({ code: 'schema_in_use' });
        expect(await store().getSchema(c, 'member')).toEqual(MEMBER);
      });

      test('when a replacement drops a type no node of the schema holds, then the schema is replaced', async () => {
        const c = newCustomer();
        await store().putSchema(c, MEMBER);
        await store().putSchema(c, SHOP);
        await store().createNode(member(c, 'm1'), [id('device', 'd1')]);
        // Nodes of another schema holding `email` do not pin it in `member`.
        await store().createNode(shop(c, 's1'), [id('email', 'a@example.com')]);
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
        await store().createNode(member(c, 'm1'), []);
        await expect(store().deleteSchema(c, 'member')).rejects.toMatchObject({ code: 'schema_in_use' });
        expect(await store().getSchema(c, 'member')).toEqual(MEMBER);
        expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('member_id', 'm1')]);
      });

      test('when a schema has no nodes (any more), then deleteSchema removes it and its secure types', async () => {
        const c = newCustomer();
        await store().putSchema(c, MEMBER);
        await store().putSchema(c, { schemaId: 'other', idTypes: [{ type: 'x', secure: false }] });
        await store().createNode(member(c, 'm1'), []);
        await store().deleteNode(member(c, 'm1'));
        await expect(store().deleteSchema(c, 'member')).resolves.toBeUndefined();
        expect(await store().getSchema(c, 'member')).toBeUndefined();
        expect((await store().listSchemas(c)).map((s) => s.schemaId)).toEqual(['other']);
        expect([...(await store().customerPolicy(c)).secureTypes]).toEqual([]);
        await expect(store().deleteSchema(c, 'member')).rejects.toMatchObject({ code: 'schema_not_found' });
      });

      test('when node creates race the removal of their schema, then no node outlives its schema', async () => {
        const c = newCustomer();
        await store().putSchema(c, MEMBER);
        const creates = Array.from({ length: 8 }, (_, i) => store().createNode(member(c, `m${i}`), []));
        // Issued among the creates: which of them commit first is up to the store.
        const removal = store().deleteSchema(c, 'member');
        creates.push(...Array.from({ length: 8 }, (_, i) => store().createNode(member(c, `m${8 + i}`), [])));
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

      /** The member_id values of every node linked to `node` (step ALL). */
      async function linkedMembers(node: NodeAddress): Promise<string[]> {
        const r = await store().search(buildQuery({ ...fromKey(node), havingType: 'member_id' }));
        return r.results.map((x) => x.id);
      }

      describe('createNode', () => {
        test('when a node is created, then it holds its key and the given ids', async () => {
          const c = await customerWithSchemas();
          await store().createNode(member(c, 'm1'), [id('device', 'd1'), id('cookie', 'k1'), id('email', 'a@example.com')]);
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([
            id('cookie', 'k1'),
            id('device', 'd1'),
            id('email', 'a@example.com'),
            id('member_id', 'm1'),
          ]);
        });

        test('when the ids contain the key, then the node holds the key once', async () => {
          const c = await customerWithSchemas();
          await store().createNode(member(c, 'm1'), [id('member_id', 'm1'), id('device', 'd1')]);
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('member_id', 'm1')]);
        });

        test('when a node does not exist, then getNodeIds gives undefined', async () => {
          const c = await customerWithSchemas();
          await store().createNode(member(c, 'm1'), []);
          expect(await store().getNodeIds(member(c, 'm2'))).toBeUndefined();
          expect(await store().getNodeIds({ ...member(c, 'm1'), schemaId: 'shop' })).toBeUndefined();
        });

        test('when the key is already taken, then node_exists and the first node is unchanged', async () => {
          const c = await customerWithSchemas();
          await store().createNode(member(c, 'm1'), [id('device', 'd1')]);
          await expect(store().createNode(member(c, 'm1'), [id('cookie', 'k9')])).rejects.toMatchObject({ code: 'node_exists' });
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('member_id', 'm1')]);
          // The refused IDs were not stored anywhere.
          expect((await store().search(buildQuery({ customerId: c, where: { id: id('cookie', 'k9') } }))).total).toBe(0);
        });

        test('when the same key is used in another schema or by another customer, then both nodes exist', async () => {
          const c = await customerWithSchemas();
          await store().putSchema(c, { schemaId: 'shop2', idTypes: [{ type: 'member_id', secure: false }, { type: 'device', secure: false }] });
          const other = await customerWithSchemas();
          await store().createNode(member(c, 'm1'), [id('device', 'd1')]);
          const inShop2: NodeAddress = { customerId: c, schemaId: 'shop2', key: id('member_id', 'm1') };
          await expect(store().createNode(inShop2, [id('device', 'd2')])).resolves.toBeUndefined();
          await expect(store().createNode(member(other, 'm1'), [id('cookie', 'k1')])).resolves.toBeUndefined();
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('member_id', 'm1')]);
          expect(await store().getNodeIds(inShop2)).toEqual([id('device', 'd2'), id('member_id', 'm1')]);
          expect(await store().getNodeIds(member(other, 'm1'))).toEqual([id('cookie', 'k1'), id('member_id', 'm1')]);
        });

        test('when creates of one key race, then exactly one succeeds and the rest are node_exists', async () => {
          const c = await customerWithSchemas();
          const outcomes = await Promise.allSettled(
            Array.from({ length: 8 }, (_, i) => store().createNode(member(c, 'm1'), [id('device', `d${i}`)])),
          );
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
          await store().createNode(member(c, 'm1'), [id('device', 'd1')]);
          await store().insertIds(member(c, 'm1'), [id('cookie', 'k1'), id('device', 'd2')]);
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([
            id('cookie', 'k1'),
            id('device', 'd1'),
            id('device', 'd2'),
            id('member_id', 'm1'),
          ]);
        });

        test('when an inserted id is held by another node, then both nodes hold it and are linked', async () => {
          const c = await customerWithSchemas();
          await store().createNode(member(c, 'm1'), [id('device', 'd1')]);
          await store().createNode(member(c, 'm2'), []);
          expect(await linkedMembers(member(c, 'm2'))).toEqual(['m2']);
          await store().insertIds(member(c, 'm2'), [id('device', 'd1')]);
          expect(await store().getNodeIds(member(c, 'm2'))).toEqual([id('device', 'd1'), id('member_id', 'm2')]);
          expect(await linkedMembers(member(c, 'm2'))).toEqual(['m1', 'm2']);
        });

        test('when the node does not exist, then insertIds rejects with node_not_found and stores nothing', async () => {
          const c = await customerWithSchemas();
          await expect(store().insertIds(member(c, 'ghost'), [id('device', 'd1')])).rejects.toMatchObject({ code: 'node_not_found' });
          expect(await store().getNodeIds(member(c, 'ghost'))).toBeUndefined();
          expect((await store().search(buildQuery({ customerId: c, where: { id: id('device', 'd1') } }))).total).toBe(0);
        });

        test('when any inserted id is already held, then id_exists and nothing at all is added', async () => {
          const c = await customerWithSchemas();
          await store().createNode(member(c, 'm1'), [id('device', 'd1')]);
          await expect(
            store().insertIds(member(c, 'm1'), [id('cookie', 'k1'), id('device', 'd1'), id('device', 'd2')]),
          ).rejects.toMatchObject({ code: 'id_exists' });
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('member_id', 'm1')]);
          for (const newId of [id('cookie', 'k1'), id('device', 'd2')]) {
            expect((await store().search(buildQuery({ customerId: c, where: { id: newId } }))).total).toBe(0);
          }
        });

        test('when the key itself is inserted, then id_exists', async () => {
          const c = await customerWithSchemas();
          await store().createNode(member(c, 'm1'), []);
          await expect(store().insertIds(member(c, 'm1'), [id('member_id', 'm1')])).rejects.toMatchObject({ code: 'id_exists' });
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('member_id', 'm1')]);
        });

        test('when inserts of different ids into one node run concurrently, then no write is lost', async () => {
          const c = await customerWithSchemas();
          await store().createNode(member(c, 'm1'), []);
          await Promise.all(Array.from({ length: 10 }, (_, i) => store().insertIds(member(c, 'm1'), [id('cookie', `k${i}`)])));
          const held = await store().getNodeIds(member(c, 'm1'));
          expect(held?.filter((x) => x.type === 'cookie').map((x) => x.id).sort()).toEqual(
            ['k0', 'k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7', 'k8', 'k9'],
          );
        });
      });

      describe('replaceId (update and upsert)', () => {
        test('when update finds where, then where is replaced by set', async () => {
          const c = await customerWithSchemas();
          await store().createNode(member(c, 'm1'), [id('device', 'd1'), id('cookie', 'k1')]);
          await store().replaceId(member(c, 'm1'), id('device', 'd1'), id('device', 'd2'), false);
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('cookie', 'k1'), id('device', 'd2'), id('member_id', 'm1')]);
        });

        test('when update replaces a shared id, then the old link is gone and the new one holds', async () => {
          const c = await customerWithSchemas();
          await store().createNode(member(c, 'm1'), [id('device', 'd1')]);
          await store().createNode(member(c, 'm2'), [id('device', 'd1')]);
          await store().createNode(member(c, 'm3'), [id('device', 'd2')]);
          expect(await linkedMembers(member(c, 'm1'))).toEqual(['m1', 'm2']);
          await store().replaceId(member(c, 'm1'), id('device', 'd1'), id('device', 'd2'), false);
          expect(await linkedMembers(member(c, 'm1'))).toEqual(['m1', 'm3']);
          expect(await linkedMembers(member(c, 'm2'))).toEqual(['m2']);
          expect(await store().getNodeIds(member(c, 'm2'))).toEqual([id('device', 'd1'), id('member_id', 'm2')]);
        });

        test('when update does not find where, then nothing changes', async () => {
          const c = await customerWithSchemas();
          await store().createNode(member(c, 'm1'), [id('device', 'd1')]);
          await expect(store().replaceId(member(c, 'm1'), id('device', 'dX'), id('device', 'd2'), false)).resolves.toBeUndefined();
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('member_id', 'm1')]);
          expect((await store().search(buildQuery({ customerId: c, where: { id: id('device', 'd2') } }))).total).toBe(0);
        });

        test('when update sets an id the node already holds, then id_exists and nothing changes', async () => {
          const c = await customerWithSchemas();
          await store().createNode(member(c, 'm1'), [id('device', 'd1'), id('device', 'd2')]);
          await expect(store().replaceId(member(c, 'm1'), id('device', 'd1'), id('device', 'd2'), false)).rejects.toMatchObject({
            code: 'id_exists',
          });
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('device', 'd2'), id('member_id', 'm1')]);
        });

        test('when update sets the same id as where, then nothing changes', async () => {
          const c = await customerWithSchemas();
          await store().createNode(member(c, 'm1'), [id('device', 'd1')]);
          await expect(store().replaceId(member(c, 'm1'), id('device', 'd1'), id('device', 'd1'), false)).resolves.toBeUndefined();
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('member_id', 'm1')]);
        });

        test('when update may change the type too, then the new pair replaces the old one', async () => {
          const c = await customerWithSchemas();
          await store().createNode(member(c, 'm1'), [id('device', 'd1')]);
          await store().replaceId(member(c, 'm1'), id('device', 'd1'), id('cookie', 'd1'), false);
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('cookie', 'd1'), id('member_id', 'm1')]);
        });

        test('when the node does not exist, then replaceId rejects with node_not_found (update and upsert)', async () => {
          const c = await customerWithSchemas();
          for (const upsert of [false, true]) {
            await expect(store().replaceId(member(c, 'ghost'), id('device', 'd1'), id('device', 'd2'), upsert)).rejects.toMatchObject({
              code: 'node_not_found',
            });
          }
          expect(await store().getNodeIds(member(c, 'ghost'))).toBeUndefined();
          expect((await store().search(buildQuery({ customerId: c, where: { id: id('device', 'd2') } }))).total).toBe(0);
        });

        test('when upsert finds where, then where is replaced by set', async () => {
          const c = await customerWithSchemas();
          await store().createNode(member(c, 'm1'), [id('device', 'd1')]);
          await store().replaceId(member(c, 'm1'), id('device', 'd1'), id('device', 'd2'), true);
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd2'), id('member_id', 'm1')]);
        });

        test('when upsert does not find where, then set is added', async () => {
          const c = await customerWithSchemas();
          await store().createNode(member(c, 'm1'), [id('device', 'd1')]);
          await store().replaceId(member(c, 'm1'), id('device', 'dX'), id('device', 'd2'), true);
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('device', 'd2'), id('member_id', 'm1')]);
        });

        test('when upsert does not find where and set is already held, then nothing changes', async () => {
          const c = await customerWithSchemas();
          await store().createNode(member(c, 'm1'), [id('device', 'd1'), id('device', 'd2')]);
          await expect(store().replaceId(member(c, 'm1'), id('device', 'dX'), id('device', 'd2'), true)).resolves.toBeUndefined();
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('device', 'd2'), id('member_id', 'm1')]);
        });

        test('when upsert finds where and set is already held, then id_exists and nothing changes', async () => {
          const c = await customerWithSchemas();
          await store().createNode(member(c, 'm1'), [id('device', 'd1'), id('device', 'd2')]);
          await expect(store().replaceId(member(c, 'm1'), id('device', 'd1'), id('device', 'd2'), true)).rejects.toMatchObject({
            code: 'id_exists',
          });
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('device', 'd2'), id('member_id', 'm1')]);
        });
      });

      describe('rekey', () => {
        test('when a node is rekeyed, then the new key addresses it, is held, and the old key is gone', async () => {
          const c = await customerWithSchemas();
          await store().createNode(member(c, 'm1'), [id('device', 'd1')]);
          await store().rekey(member(c, 'm1'), 'm9');
          expect(await store().getNodeIds(member(c, 'm1'))).toBeUndefined();
          expect(await store().getNodeIds(member(c, 'm9'))).toEqual([id('device', 'd1'), id('member_id', 'm9')]);
          // The old key is no longer held by anyone, the new key is held by the node.
          expect((await store().search(buildQuery({ customerId: c, where: { id: id('member_id', 'm1') } }))).total).toBe(0);
          const byNewKey = await store().search(buildQuery({ customerId: c, where: { id: id('member_id', 'm9') } }));
          expect(byNewKey.results).toEqual([id('device', 'd1'), id('member_id', 'm9')]);
          // The old key can be used again.
          await expect(store().createNode(member(c, 'm1'), [])).resolves.toBeUndefined();
        });

        test('when the new key id equals the old one, then nothing changes', async () => {
          const c = await customerWithSchemas();
          await store().createNode(member(c, 'm1'), [id('device', 'd1')]);
          await expect(store().rekey(member(c, 'm1'), 'm1')).resolves.toBeUndefined();
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('member_id', 'm1')]);
        });

        test('when the new key is taken by another node of the schema, then node_exists and both nodes are unchanged', async () => {
          const c = await customerWithSchemas();
          await store().createNode(member(c, 'm1'), [id('device', 'd1')]);
          await store().createNode(member(c, 'm2'), [id('device', 'd2')]);
          await expect(store().rekey(member(c, 'm1'), 'm2')).rejects.toMatchObject({ code: 'node_exists' });
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('member_id', 'm1')]);
          expect(await store().getNodeIds(member(c, 'm2'))).toEqual([id('device', 'd2'), id('member_id', 'm2')]);
        });

        test('when the node does not exist, then rekey rejects with node_not_found', async () => {
          const c = await customerWithSchemas();
          await expect(store().rekey(member(c, 'ghost'), 'm9')).rejects.toMatchObject({ code: 'node_not_found' });
          expect(await store().getNodeIds(member(c, 'm9'))).toBeUndefined();
        });

        test('when the new key id is the key of a node in another schema, then rekey succeeds and links them', async () => {
          const c = await customerWithSchemas();
          await store().putSchema(c, { schemaId: 'crm', idTypes: [{ type: 'member_id', secure: false }] });
          const crm: NodeAddress = { customerId: c, schemaId: 'crm', key: id('member_id', 'm2') };
          await store().createNode(crm, []);
          await store().createNode(member(c, 'm1'), [id('device', 'd1')]);
          await store().rekey(member(c, 'm1'), 'm2');
          expect(await store().getNodeIds(member(c, 'm2'))).toEqual([id('device', 'd1'), id('member_id', 'm2')]);
          expect(await store().getNodeIds(crm)).toEqual([id('member_id', 'm2')]);
          const linked = await store().search(buildQuery({ ...fromKey(crm), exclude: true }));
          expect(linked.results).toEqual([id('device', 'd1'), id('member_id', 'm2')]);
        });

        test('when two rekeys of one node race, then one wins, the other is node_not_found, and no old key stays held', async () => {
          const c = await customerWithSchemas();
          await store().createNode(member(c, 'm1'), [id('device', 'd1')]);
          const outcomes = await Promise.allSettled([store().rekey(member(c, 'm1'), 'm8'), store().rekey(member(c, 'm1'), 'm9')]);
          expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
          const lost = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
          expect(lost?.reason).toMatchObject({ code: 'node_not_found' });
          const winner = outcomes[0]?.status === 'fulfilled' ? 'm8' : 'm9';
          expect(await store().getNodeIds(member(c, winner))).toEqual([id('device', 'd1'), id('member_id', winner)]);
          for (const gone of ['m1', 'm8', 'm9'].filter((k) => k !== winner)) expect(await store().getNodeIds(member(c, gone))).toBeUndefined();
        });

        test('when a rekey races a write to the old key, then the write either came first or finds no node', async () => {
          const c = await customerWithSchemas();
          await store().createNode(member(c, 'm1'), [id('device', 'd1')]);
          const [rekeyed, inserted] = await Promise.allSettled([
            store().rekey(member(c, 'm1'), 'm9'),
            store().insertIds(member(c, 'm1'), [id('cookie', 'k1')]),
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
          await store().createNode(member(c, 'm1'), [id('device', 'd1'), id('cookie', 'k1')]);
          await store().createNode(member(c, 'm2'), [id('device', 'd1')]);
          await store().removeId(member(c, 'm1'), id('device', 'd1'));
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('cookie', 'k1'), id('member_id', 'm1')]);
          expect(await store().getNodeIds(member(c, 'm2'))).toEqual([id('device', 'd1'), id('member_id', 'm2')]);
          expect(await linkedMembers(member(c, 'm2'))).toEqual(['m2']);
        });

        test('when the removed id is not held, then nothing changes', async () => {
          const c = await customerWithSchemas();
          await store().createNode(member(c, 'm1'), [id('device', 'd1')]);
          await store().createNode(member(c, 'm2'), [id('device', 'd2')]);
          // d2 exists (held by m2) but not by m1.
          await expect(store().removeId(member(c, 'm1'), id('device', 'd2'))).resolves.toBeUndefined();
          await expect(store().removeId(member(c, 'm1'), id('device', 'dX'))).resolves.toBeUndefined();
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('member_id', 'm1')]);
          expect(await store().getNodeIds(member(c, 'm2'))).toEqual([id('device', 'd2'), id('member_id', 'm2')]);
        });

        test('when the node does not exist, then removeId rejects with node_not_found', async () => {
          const c = await customerWithSchemas();
          await store().createNode(member(c, 'm1'), [id('device', 'd1')]);
          await expect(store().removeId(member(c, 'ghost'), id('device', 'd1'))).rejects.toMatchObject({ code: 'node_not_found' });
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('member_id', 'm1')]);
        });

        test('when a node is deleted, then it is gone with its links and its key is free again', async () => {
          const c = await customerWithSchemas();
          await store().createNode(member(c, 'm1'), [id('device', 'd1'), id('cookie', 'k1')]);
          await store().createNode(member(c, 'm2'), [id('device', 'd1')]);
          await store().deleteNode(member(c, 'm1'));
          expect(await store().getNodeIds(member(c, 'm1'))).toBeUndefined();
          expect(await store().getNodeIds(member(c, 'm2'))).toEqual([id('device', 'd1'), id('member_id', 'm2')]);
          const byDevice = await store().search(buildQuery({ customerId: c, where: { id: id('device', 'd1') } }));
          expect(byDevice.results).toEqual([id('device', 'd1'), id('member_id', 'm2')]);
          expect((await store().search(buildQuery({ customerId: c, where: { id: id('cookie', 'k1') } }))).total).toBe(0);
          await store().createNode(member(c, 'm1'), []);
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('member_id', 'm1')]);
        });

        test('when the node to delete does not exist, then deleteNode rejects with node_not_found', async () => {
          const c = await customerWithSchemas();
          await store().createNode(member(c, 'm1'), []);
          await expect(store().deleteNode(member(c, 'ghost'))).rejects.toMatchObject({ code: 'node_not_found' });
          await store().deleteNode(member(c, 'm1'));
          await expect(store().deleteNode(member(c, 'm1'))).rejects.toMatchObject({ code: 'node_not_found' });
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
          await store().createNode(member(c, 'm1'), [...replaced.map((r) => id('device', r)), ...removed.map((x) => id('cookie', x))]);
          // Another node shares a replaced, a removed and an inserted ID: those Id vertices must stay, and link the two.
          await store().createNode(member(c, 'm2'), [id('device', 'r0'), id('cookie', 'x0'), id('cookie', 'i0')]);

          const m1 = member(c, 'm1');
          const writers: Array<() => Promise<void>> = [
            ...inserted.map((i) => () => store().insertIds(m1, [id('cookie', i)])),
            // Two inserts of one ID: whichever comes second finds it held.
            () => store().insertIds(m1, [id('cookie', 'twice')]),
            () => store().insertIds(m1, [id('cookie', 'twice')]),
            ...upserted.map((u) => () => store().replaceId(m1, id('device', `absent-${u}`), id('device', u), true)),
            // Two upserts of one ID: the second finds it held and changes nothing.
            () => store().replaceId(m1, id('device', 'absent-a'), id('device', 'upserted-twice'), true),
            () => store().replaceId(m1, id('device', 'absent-b'), id('device', 'upserted-twice'), true),
            ...replaced.map((r) => () => store().replaceId(m1, id('device', r), id('device', `s${r.slice(1)}`), false)),
            ...removed.map((x) => () => store().removeId(m1, id('cookie', x))),
          ];
          expect(writers).toHaveLength(50);
          // Issued interleaved, every kind among the others.
          const order = writers.map((_, i) => (i * 7) % writers.length);
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
            expect((await store().search(buildQuery({ customerId: c, where: { id: gone } }))).total).toBe(0);
          }
        });
      });

      describe('the limit of IDs per node (NodeAddress.maxIds)', () => {
        const limited = (c: string, memberId: string, maxIds: number): NodeAddress => ({ ...member(c, memberId), maxIds });

        test('when a write would make a node hold more than maxIds IDs, then node_id_limit_reached and nothing changes; writes that do not grow it pass', async () => {
          const c = await customerWithSchemas();
          await expect(store().createNode(limited(c, 'm1', 2), [id('member_id', 'm1'), id('device', 'd1'), id('device', 'd2')])).rejects.toMatchObject({
            code: 'node_id_limit_reached',
          });
          expect(await store().getNodeIds(member(c, 'm1'))).toBeUndefined();
          await store().createNode(limited(c, 'm1', 2), [id('member_id', 'm1'), id('device', 'd1')]);
          await expect(store().insertIds(limited(c, 'm1', 2), [id('cookie', 'k1')])).rejects.toMatchObject({ code: 'node_id_limit_reached' });
          await expect(store().replaceId(limited(c, 'm1', 2), id('cookie', 'k0'), id('cookie', 'k1'), true)).rejects.toMatchObject({
            code: 'node_id_limit_reached',
          });
          await store().replaceId(limited(c, 'm1', 2), id('device', 'd1'), id('device', 'd2'), true);
          await store().rekey(limited(c, 'm1', 2), 'm2');
          expect(await store().getNodeIds(member(c, 'm2'))).toEqual([id('device', 'd2'), id('member_id', 'm2')]);
          // A node already past a lowered limit keeps what it holds and may still change it without growing.
          await store().replaceId(limited(c, 'm2', 1), id('device', 'd2'), id('device', 'd3'), false);
          expect(await store().applyNodeWrites([
            { kind: 'insert', node: limited(c, 'm2', 3), ids: [id('cookie', 'k1'), id('cookie', 'k2')] },
            { kind: 'insert', node: limited(c, 'm2', 3), ids: [id('cookie', 'k1')] },
          ])).toEqual([expect.objectContaining({ code: 'node_id_limit_reached' }), undefined]);
          expect(await store().getNodeIds(member(c, 'm2'))).toEqual([id('cookie', 'k1'), id('device', 'd3'), id('member_id', 'm2')]);
        });

        test('when 30 inserts race into a node with room for 9 more IDs, then exactly enough succeed to fill it, and it never holds more', async () => {
          const c = await customerWithSchemas();
          await store().createNode(member(c, 'm1'), []);
          const settled = await Promise.allSettled(
            Array.from({ length: 30 }, (_, i) => store().insertIds(limited(c, 'm1', 10), [id('cookie', `k${String(i).padStart(2, '0')}`)])),
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
          await store().createNode(member(c, 'm0'), [id('device', 'd0')]);
          const outcomes = await store().applyNodeWrites([
            { kind: 'create', node: member(c, 'm1'), ids: [id('device', 'd1')] },
            { kind: 'create', node: member(c, 'm1'), ids: [id('cookie', 'never')] },
            { kind: 'insert', node: member(c, 'm1'), ids: [id('cookie', 'k1')] },
            { kind: 'insert', node: member(c, 'm1'), ids: [id('cookie', 'k2'), id('device', 'd1')] },
            { kind: 'insert', node: member(c, 'ghost'), ids: [id('cookie', 'k3')] },
            { kind: 'replace', node: member(c, 'm0'), where: id('device', 'd0'), set: id('device', 'd1'), upsert: false },
            { kind: 'replace', node: member(c, 'm1'), where: id('cookie', 'k1'), set: id('device', 'd1'), upsert: true },
            { kind: 'removeId', node: member(c, 'm1'), id: id('cookie', 'k1') },
            { kind: 'deleteNode', node: member(c, 'ghost') },
          ]);
          expect(outcomes.map((o) => o?.code)).toEqual([undefined, 'node_exists', undefined, 'id_exists', 'node_not_found', undefined, 'id_exists', undefined, 'node_not_found']);
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('device', 'd1'), id('member_id', 'm1')]);
          expect(await store().getNodeIds(member(c, 'm0'))).toEqual([id('device', 'd1'), id('member_id', 'm0')]);
          expect(await linkedMembers(member(c, 'm0'))).toEqual(['m0', 'm1']);
          expect((await store().search(buildQuery({ customerId: c, where: { id: id('cookie', 'never') } }))).total).toBe(0);
        });

        test('when a later write in the batch depends on an earlier one, then it sees it (writes apply in order)', async () => {
          const c = await customerWithSchemas();
          const outcomes = await store().applyNodeWrites([
            { kind: 'create', node: member(c, 'm1'), ids: [] },
            { kind: 'insert', node: member(c, 'm1'), ids: [id('device', 'd1')] },
            { kind: 'deleteNode', node: member(c, 'm1') },
            { kind: 'create', node: member(c, 'm1'), ids: [id('cookie', 'k1')] },
          ]);
          expect(outcomes).toEqual([undefined, undefined, undefined, undefined]);
          expect(await store().getNodeIds(member(c, 'm1'))).toEqual([id('cookie', 'k1'), id('member_id', 'm1')]);
        });

        test('when bulk batches race on the same keys and IDs, then every key is created once, by exactly one line, and holds what that line gave it', async () => {
          const c = await customerWithSchemas();
          const keys = Array.from({ length: 150 }, (_, i) => `m${i}`);
          // Eight batches over the same 150 keys, each in its own order, with IDs shared between batches.
          const batches = Array.from({ length: 8 }, (_, b) => {
            const order = b % 2 === 0 ? keys : [...keys].reverse();
            return order.map((k): NodeWrite => ({ kind: 'create', node: member(c, k), ids: [id('device', `${k}-b${b}`), id('cookie', `shared-${k}`)] }));
          });
          const outcomes = await Promise.all(batches.map((batch) => store().applyNodeWrites(batch)));
          for (const k of keys) {
            const winners = batches.flatMap((batch, b) => batch.flatMap((w, i) => (w.node.key.id === k && outcomes[b]?.[i] === undefined ? [b] : [])));
            expect(winners).toHaveLength(1);
            const losers = batches.flatMap((batch, b) => batch.flatMap((w, i) => (w.node.key.id === k && b !== winners[0] ? [outcomes[b]?.[i]?.code] : [])));
            expect(new Set(losers)).toEqual(new Set(['node_exists']));
            expect(await store().getNodeIds(member(c, k))).toEqual([id('cookie', `shared-${k}`), id('device', `${k}-b${winners[0]}`), id('member_id', k)]);
          }
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

      const search = (q: SearchQuery): Promise<SearchResult> => store().search(q);

      /** A (device d1) B (cookie k1) C: a chain of three member nodes. */
      async function chain(c: string): Promise<void> {
        await store().createNode(member(c, 'a'), [id('device', 'd1')]);
        await store().createNode(member(c, 'b'), [id('device', 'd1'), id('cookie', 'k1')]);
        await store().createNode(member(c, 'c'), [id('cookie', 'k1'), id('email', 'c@example.com')]);
      }

      test('when starting from a key, then the results are the IDs of every node linked to it', async () => {
        const c = await customerWithSchemas();
        await chain(c);
        await store().createNode(member(c, 'lonely'), [id('device', 'd9')]);
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
        await store().createNode(member(c, 'a'), [id('device', 'd1')]);
        await store().createNode(member(c, 'b'), [id('device', 'd1')]);
        await store().createNode(member(c, 'x'), [id('device', 'd2')]);
        // exclude:true with nothing else linked proves both holders were start nodes.
        const excluded = await search(buildQuery({ customerId: c, where: { id: id('device', 'd1') }, exclude: true }));
        expect(excluded).toMatchObject({ results: [], total: 0 });
        const r = await search(buildQuery({ customerId: c, where: { id: id('device', 'd1') }, step: 'ONE' }));
        expect(r.results).toEqual([id('device', 'd1'), id('member_id', 'a'), id('member_id', 'b')]);
        expect(r.total).toBe(3);
      });

      test('when where is restricted to a schema, then only that schema\'s holders are start nodes', async () => {
        const c = await customerWithSchemas();
        await store().createNode(member(c, 'm1'), [id('device', 'd1')]);
        await store().createNode(shop(c, 's1'), [id('device', 'd1')]);
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
        await store().createNode(member(c, 'm1'), [id('device', 'd1')]);
        await store().createNode(member(c, 'm2'), [id('device', 'd2')]);
        const holds = await search(buildQuery({ ...fromKey(member(c, 'm1')), where: { schemaId: 'member', id: id('device', 'd1') } }));
        expect(holds.results).toEqual([id('device', 'd1'), id('member_id', 'm1')]);
        expect(holds.total).toBe(2);
        // m2 holds d2, but the keyed node m1 does not: no start node at all.
        const notHeld = await search(buildQuery({ ...fromKey(member(c, 'm1')), where: { schemaId: 'member', id: id('device', 'd2') } }));
        expect(notHeld).toMatchObject({ results: [], total: 0 });
      });

      test('when there is no start node, then the result is empty with total 0', async () => {
        const c = await customerWithSchemas();
        await store().createNode(member(c, 'm1'), [id('device', 'd1')]);
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
          await store().createNode(member(c, name(i)), i === 0 ? [id('device', 'l0')] : [id('device', `l${i - 1}`), id('device', `l${i}`)]);
        }
        const all = await search(buildQuery({ ...fromKey(member(c, 'n00')), havingType: 'member_id' }));
        expect(all.total).toBe(length);
        expect(all.results[length - 1]).toEqual(id('member_id', 'n29'));
        const one = await search(buildQuery({ ...fromKey(member(c, 'n00')), havingType: 'member_id', step: 'ONE' }));
        expect(one.results).toEqual([id('member_id', 'n00'), id('member_id', 'n01')]);
      });

      test('when step is ALL, then links cross schemas', async () => {
        const c = await customerWithSchemas();
        await store().createNode(member(c, 'm1'), [id('device', 'd1')]);
        await store().createNode(shop(c, 's1'), [id('device', 'd1'), id('email', 's@example.com')]);
        await store().putSchema(c, { schemaId: 'crm', idTypes: [{ type: 'crm_id', secure: false }, { type: 'email', secure: true }] });
        await store().createNode({ customerId: c, schemaId: 'crm', key: id('crm_id', 'r1') }, [id('email', 's@example.com')]);
        const r = await search(buildQuery(fromKey(member(c, 'm1'))));
        expect(r.results).toEqual([
          id('crm_id', 'r1'),
          id('device', 'd1'),
          id('email', 's@example.com'),
          id('member_id', 'm1'),
          id('shop_id', 's1'),
        ]);
        expect(r.total).toBe(5);
      });

      test('when exclude is true, then the start node\'s own IDs go unless another target holds them', async () => {
        const c = await customerWithSchemas();
        await store().createNode(member(c, 'a'), [id('device', 'd1'), id('cookie', 'ka')]);
        await store().createNode(member(c, 'b'), [id('device', 'd1'), id('cookie', 'kb')]);
        const r = await search(buildQuery({ ...fromKey(member(c, 'a')), exclude: true }));
        expect(r.results).toEqual([id('cookie', 'kb'), id('device', 'd1'), id('member_id', 'b')]);
        expect(r.total).toBe(3);
        const one = await search(buildQuery({ ...fromKey(member(c, 'a')), exclude: true, step: 'ONE' }));
        expect(one.results).toEqual([id('cookie', 'kb'), id('device', 'd1'), id('member_id', 'b')]);
      });

      test('when exclude is true and nothing else is linked, then the result is empty', async () => {
        const c = await customerWithSchemas();
        await store().createNode(member(c, 'a'), [id('device', 'd1')]);
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
        await store().createNode(member(c, 'a'), [id('email', 'x@example.com'), id('device', 'd1')]);
        await store().createNode(member(c, 'b'), [id('email', 'x@example.com')]);
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
        await store().createNode(node, [
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
        for (let i = 0; i < 5; i += 1) await store().createNode(member(c, `m${i}`), [id('device', 'shared')]);
        await expect(search(buildQuery({ ...fromKey(member(c, 'm0')), maxNodes: 4 }))).rejects.toMatchObject({ code: 'component_too_large' });
        const fits = await search(buildQuery({ ...fromKey(member(c, 'm0')), maxNodes: 5, havingType: 'member_id' }));
        expect(fits.results.map((x) => x.id)).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
        expect(fits.total).toBe(5);
      });

      test('when more start nodes than maxNodes hold where, then component_too_large', async () => {
        const c = await customerWithSchemas();
        for (let i = 0; i < 3; i += 1) await store().createNode(member(c, `m${i}`), [id('device', 'shared')]);
        await expect(
          search(buildQuery({ customerId: c, where: { id: id('device', 'shared') }, step: 'ONE', maxNodes: 2 })),
        ).rejects.toMatchObject({ code: 'component_too_large' });
        const fits = await search(buildQuery({ customerId: c, where: { id: id('device', 'shared') }, step: 'ONE', maxNodes: 3 }));
        expect(fits.total).toBe(4);
      });

      test('when the nodes a search visits hold more IDs than maxIds, hidden ones included, then component_too_large; with exactly maxIds it succeeds', async () => {
        const c = await customerWithSchemas();
        // a {a, d1}, b {b, d1, k1}, c {c, k1, email}: 6 IDs in all.
        await chain(c);
        const tooMany = { code: 'component_too_large', message: expect.stringContaining('more than 5 IDs') };
        await expect(search(buildQuery({ ...fromKey(member(c, 'a')), maxIds: 5 }))).rejects.toMatchObject(tooMany);
        await expect(search(buildQuery({ ...fromKey(member(c, 'a')), maxIds: 5, hiddenTypes: ['email'], havingType: 'device' }))).rejects.toMatchObject(tooMany);
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
        await store().createNode(member(c, 'd'), [id('email', 'c@example.com')]);
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
            await store().createNode(member(c, `${prefix}-${String(i).padStart(3, '0')}`), extra);
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
          await store().createNode(member(c, `m${String(i).padStart(3, '0')}`), [id('device', 'popular')]);
        }
        // One holder also leads on to a shop node.
        await store().insertIds(member(c, 'm137'), [id('cookie', 'bridge')]);
        await store().createNode(shop(c, 's1'), [id('device', 'elsewhere')]);
        await store().insertIds(member(c, 'm137'), [id('device', 'elsewhere')]);
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
        await store().createNode(member(a, 'm1'), [id('device', 'd1'), id('cookie', 'ka')]);
        await store().createNode(member(a, 'm2'), [id('device', 'd1')]);
        await store().createNode(member(b, 'm1'), [id('device', 'd1'), id('cookie', 'kb')]);
        const bByWhere = await store().search(buildQuery({ customerId: b, where: { id: id('device', 'd1') } }));
        expect(bByWhere.results).toEqual([id('cookie', 'kb'), id('device', 'd1'), id('member_id', 'm1')]);
        expect(bByWhere.total).toBe(3);
        const bByKey = await store().search(buildQuery(fromKey(member(b, 'm1'))));
        expect(bByKey.results).toEqual([id('cookie', 'kb'), id('device', 'd1'), id('member_id', 'm1')]);
        const aByKey = await store().search(buildQuery(fromKey(member(a, 'm1'))));
        expect(aByKey.results).toEqual([id('cookie', 'ka'), id('device', 'd1'), id('member_id', 'm1'), id('member_id', 'm2')]);
        expect(await store().search(buildQuery({ customerId: b, where: { id: id('cookie', 'ka') } }))).toMatchObject({ results: [], total: 0 });
        expect(await store().search(buildQuery(fromKey(member(b, 'm2'))))).toMatchObject({ results: [], total: 0 });
      });

      test('when a customer addresses another customer\'s node, then it is not found and not touched', async () => {
        const { a, b } = await twoCustomers();
        await store().createNode(member(a, 'm1'), [id('device', 'd1')]);
        const aBefore = [id('device', 'd1'), id('member_id', 'm1')];
        expect(await store().getNodeIds(member(b, 'm1'))).toBeUndefined();
        await expect(store().insertIds(member(b, 'm1'), [id('cookie', 'k1')])).rejects.toMatchObject({ code: 'node_not_found' });
        await expect(store().replaceId(member(b, 'm1'), id('device', 'd1'), id('device', 'd2'), true)).rejects.toMatchObject({
          code: 'node_not_found',
        });
        await expect(store().removeId(member(b, 'm1'), id('device', 'd1'))).rejects.toMatchObject({ code: 'node_not_found' });
        await expect(store().rekey(member(b, 'm1'), 'm9')).rejects.toMatchObject({ code: 'node_not_found' });
        await expect(store().deleteNode(member(b, 'm1'))).rejects.toMatchObject({ code: 'node_not_found' });
        expect(await store().getNodeIds(member(a, 'm1'))).toEqual(aBefore);
      });

      test('when a customer writes IDs another customer also holds, then the other customer\'s nodes are unchanged', async () => {
        const { a, b } = await twoCustomers();
        await store().createNode(member(a, 'm1'), [id('device', 'd1'), id('cookie', 'k1')]);
        await store().createNode(member(b, 'm1'), [id('device', 'd1')]);
        await store().insertIds(member(b, 'm1'), [id('cookie', 'k1')]);
        await store().replaceId(member(b, 'm1'), id('device', 'd1'), id('device', 'd2'), false);
        await store().removeId(member(b, 'm1'), id('cookie', 'k1'));
        await store().rekey(member(b, 'm1'), 'm2');
        expect(await store().getNodeIds(member(a, 'm1'))).toEqual([id('cookie', 'k1'), id('device', 'd1'), id('member_id', 'm1')]);
        expect(await store().getNodeIds(member(b, 'm2'))).toEqual([id('device', 'd2'), id('member_id', 'm2')]);
        await store().deleteNode(member(b, 'm2'));
        expect(await store().getNodeIds(member(a, 'm1'))).toEqual([id('cookie', 'k1'), id('device', 'd1'), id('member_id', 'm1')]);
        const aByWhere = await store().search(buildQuery({ customerId: a, where: { id: id('device', 'd1') } }));
        expect(aByWhere.results).toEqual([id('cookie', 'k1'), id('device', 'd1'), id('member_id', 'm1')]);
      });

      test('when a customer has nodes, then another customer\'s schemas are not in use by them', async () => {
        const { a, b } = await twoCustomers();
        await store().createNode(member(a, 'm1'), [id('device', 'd1')]);
        const withoutDevice: SchemaRecord = { schemaId: 'member', idTypes: MEMBER.idTypes.filter((t) => t.type !== 'device') };
        await expect(store().putSchema(b, withoutDevice)).resolves.toEqual({ created: false });
        await store().deleteSchema(b, 'shop');
        await expect(store().deleteSchema(b, 'member')).resolves.toBeUndefined();
        expect(await store().listSchemas(b)).toEqual([]);
        expect(await store().getSchema(a, 'member')).toEqual(MEMBER);
        expect(await store().getNodeIds(member(a, 'm1'))).toEqual([id('device', 'd1'), id('member_id', 'm1')]);
      });
    });
  });
}
