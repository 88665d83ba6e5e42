// Schemas and what else makes a customer's policy on SQLite (settings, blocked values), sharing the store's
// connection: each method runs inside a transaction the store opens (src/store/sqlite/sqlite-store.ts). Every node
// operation and search reads its customer's schemas and policy, so they are kept parsed, per customer.
import type Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import type { BlockRule } from '../../domain/blocklist';
import { DomainError } from '../../domain/errors';
import {
  canonicalDeclaration,
  type CustomerPolicy,
  type CustomerSettings,
  DEFAULT_SETTINGS,
  type IdTypeDeclaration,
  type SchemaRecord,
} from '../../domain/model';
import { parseStored } from '../stored-json';
import type { PutSchemaOutcome } from '../../domain/ports/protections';
import { refuseConflictingDeclarations, secureTypeInUse } from '../../domain/refusals';

interface TypeRow {
  schema_id: string;
  type: string;
  secure: number;
  links: number;
  max_holders: number | null;
}

/** A customer's schemas with their types; a schema that declares none has one row of nulls (LEFT JOIN). */
type CustomerTypeRow = TypeRow | { schema_id: string; type: null; secure: null; links: null; max_holders: null };

/** A type's row by what names it. */
type CustomerSchema = [customerId: string, schemaId: string];
type CustomerType = [customerId: string, type: string];

const toDeclaration = (row: Pick<TypeRow, 'type' | 'secure' | 'links' | 'max_holders'>): IdTypeDeclaration =>
  canonicalDeclaration({ type: row.type, secure: Boolean(row.secure), links: Boolean(row.links), maxHolders: row.max_holders ?? undefined });

/** What the cache keeps of one customer (see cached()): each schema read, `undefined` when it does not exist. */
interface CachedCustomer {
  schemas: LRUCache<string, { schema: SchemaRecord | undefined }>;
  policy?: CustomerPolicy;
}

/**
 * Customers kept parsed, and schemas (or their absence) kept per customer: the least recently used go first, so what
 * callers name, existing or not, never grows the process past these.
 */
const KEPT_CUSTOMERS = 1_024;
const KEPT_SCHEMAS = 256;

export class SqliteSchemas {
  private readonly s;
  private readonly cache = new LRUCache<string, CachedCustomer>({ max: KEPT_CUSTOMERS });

  constructor(db: Database.Database) {
    this.s = {
      schemaExists: db.prepare<CustomerSchema, 1>('SELECT 1 FROM schemas WHERE customer_id = ? AND schema_id = ?').pluck(),
      insertSchema: db.prepare<CustomerSchema>('INSERT INTO schemas (customer_id, schema_id) VALUES (?, ?)'),
      deleteSchema: db.prepare<CustomerSchema>('DELETE FROM schemas WHERE customer_id = ? AND schema_id = ?'),
      schemaTypes: db.prepare<CustomerSchema, TypeRow>(
        'SELECT schema_id, type, secure, links, max_holders FROM schema_id_types WHERE customer_id = ? AND schema_id = ? ORDER BY position',
      ),
      customerTypes: db.prepare<[customerId: string], CustomerTypeRow>(
        'SELECT t.schema_id, t.type, t.secure, t.links, t.max_holders FROM schemas s LEFT JOIN schema_id_types t USING (customer_id, schema_id) ' +
          'WHERE s.customer_id = ? ORDER BY s.schema_id, t.position',
      ),
      otherDeclarations: db.prepare<[customerId: string, type: string, exceptSchemaId: string], TypeRow>(
        'SELECT schema_id, type, secure, links, max_holders FROM schema_id_types WHERE customer_id = ? AND type = ? AND schema_id <> ? ORDER BY schema_id',
      ),
      declaredSecure: db.prepare<CustomerType, 1>('SELECT 1 FROM schema_id_types WHERE customer_id = ? AND type = ? AND secure = 1 LIMIT 1').pluck(),
      // An ids row stays while history names the ID (migration 5): the type is in use when a node holds one of them.
      typeHeld: db
        .prepare<CustomerType, 1>(
          'SELECT 1 FROM ids i WHERE i.customer_id = ? AND i.type = ? AND EXISTS (SELECT 1 FROM node_ids ni WHERE ni.id_pk = i.id_pk) LIMIT 1',
        )
        .pluck(),
      deleteSchemaTypes: db.prepare<CustomerSchema>('DELETE FROM schema_id_types WHERE customer_id = ? AND schema_id = ?'),
      insertSchemaType: db.prepare<
        [customerId: string, schemaId: string, type: string, secure: number, links: number, maxHolders: number | null, position: number]
      >('INSERT INTO schema_id_types (customer_id, schema_id, type, secure, links, max_holders, position) VALUES (?, ?, ?, ?, ?, ?, ?)'),
      typesWithOption: db.prepare<[customerId: string], Pick<TypeRow, 'type' | 'secure' | 'links'>>(
        'SELECT DISTINCT type, secure, links FROM schema_id_types WHERE customer_id = ? AND (secure = 1 OR links = 0)',
      ),
      settings: db.prepare<[customerId: string], { require_token: number; timezone: string }>(
        'SELECT require_token, timezone FROM customer_settings WHERE customer_id = ?',
      ),
      putSettings: db.prepare<[customerId: string, requireToken: number, timezone: string]>(
        'INSERT INTO customer_settings (customer_id, require_token, timezone) VALUES (?, ?, ?) ' +
          'ON CONFLICT (customer_id) DO UPDATE SET require_token = excluded.require_token, timezone = excluded.timezone',
      ),
      blocklist: db.prepare<[customerId: string], string>('SELECT rules FROM blocklists WHERE customer_id = ?').pluck(),
      putBlocklist: db.prepare<[customerId: string, rules: string]>(
        'INSERT INTO blocklists (customer_id, rules) VALUES (?, ?) ON CONFLICT (customer_id) DO UPDATE SET rules = excluded.rules',
      ),
      schemaHasNodes: db.prepare<CustomerSchema, 1>('SELECT 1 FROM nodes WHERE customer_id = ? AND schema_id = ? LIMIT 1').pluck(),
      schemaHoldsType: db
        .prepare<[customerId: string, type: string, schemaId: string], 1>(
          'SELECT 1 FROM ids i JOIN node_ids ni ON ni.id_pk = i.id_pk JOIN nodes n ON n.node_pk = ni.node_pk ' +
            'WHERE i.customer_id = ? AND i.type = ? AND n.schema_id = ? LIMIT 1',
        )
        .pluck(),
    };
  }

  /** Call inside a write transaction. */
  put(customerId: string, schema: SchemaRecord): PutSchemaOutcome {
    // Inside the write: a read between this call and the group's commit must not cache the old schema.
    this.cache.delete(customerId);
    const others = schema.idTypes.flatMap((declared) =>
      this.s.otherDeclarations.all(customerId, declared.type, schema.schemaId).map((row) => ({
        schemaId: row.schema_id,
        declaration: toDeclaration(row),
      })),
    );
    refuseConflictingDeclarations(schema.idTypes, others);
    for (const declared of schema.idTypes) {
      // Turning secure off while IDs of the type are held would show them to anyone (docs/keeping-people-apart.md).
      const turnsSecureOff = !declared.secure && this.s.declaredSecure.get(customerId, declared.type) !== undefined;
      if (turnsSecureOff && this.s.typeHeld.get(customerId, declared.type) !== undefined) throw secureTypeInUse(declared.type);
    }
    const exists = this.s.schemaExists.get(customerId, schema.schemaId) !== undefined;
    if (exists) {
      const kept = new Set(schema.idTypes.map((t) => t.type));
      const current = this.s.schemaTypes.all(customerId, schema.schemaId);
      for (const dropped of current.filter((t) => !kept.has(t.type))) {
        if (this.s.schemaHoldsType.get(customerId, dropped.type, schema.schemaId) !== undefined) {
          throw new DomainError('schema_in_use', `ID type '${dropped.type}' cannot be dropped: nodes of schema '${schema.schemaId}' still hold IDs of it.`);
        }
      }
      this.s.deleteSchemaTypes.run(customerId, schema.schemaId);
    } else {
      this.s.insertSchema.run(customerId, schema.schemaId);
    }
    schema.idTypes.forEach((t, position) =>
      this.s.insertSchemaType.run(customerId, schema.schemaId, t.type, t.secure ? 1 : 0, t.links === false ? 0 : 1, t.maxHolders ?? null, position),
    );
    return { created: !exists };
  }

  get(customerId: string, schemaId: string): SchemaRecord | undefined {
    const cached = this.cached(customerId);
    const kept = cached.schemas.get(schemaId);
    if (kept) return kept.schema;
    let schema: SchemaRecord | undefined;
    if (this.s.schemaExists.get(customerId, schemaId) !== undefined) {
      const types = this.s.schemaTypes.all(customerId, schemaId);
      schema = { schemaId, idTypes: types.map(toDeclaration) };
    }
    cached.schemas.set(schemaId, { schema });
    return schema;
  }

  /**
   * Every node operation and search reads its customer's schemas and secure types; they change only through
   * the writes of this class, which drop the customer's entry. (One process per database file.)
   */
  private cached(customerId: string): CachedCustomer {
    const kept = this.cache.get(customerId);
    if (kept) return kept;
    const cached: CachedCustomer = { schemas: new LRUCache({ max: KEPT_SCHEMAS }) };
    this.cache.set(customerId, cached);
    return cached;
  }

  /** Drops what is kept of the customer: its rows changed outside these methods (an import, undone). */
  forget(customerId: string): void {
    this.cache.delete(customerId);
  }

  list(customerId: string): SchemaRecord[] {
    const rows = this.s.customerTypes.all(customerId);
    const bySchema = new Map<string, SchemaRecord>();
    for (const row of rows) {
      let schema = bySchema.get(row.schema_id);
      if (!schema) {
        schema = { schemaId: row.schema_id, idTypes: [] };
        bySchema.set(row.schema_id, schema);
      }
      if (row.type !== null) schema.idTypes.push(toDeclaration(row));
    }
    return [...bySchema.values()];
  }

  /** Call inside a write transaction. */
  delete(customerId: string, schemaId: string): void {
    this.cache.delete(customerId);
    if (this.s.schemaExists.get(customerId, schemaId) === undefined) {
      throw new DomainError('schema_not_found', `Schema '${schemaId}' does not exist.`);
    }
    if (this.s.schemaHasNodes.get(customerId, schemaId) !== undefined) {
      throw new DomainError('schema_in_use', `Schema '${schemaId}' still has nodes; remove them first.`);
    }
    this.s.deleteSchema.run(customerId, schemaId);
  }

  policy(customerId: string): CustomerPolicy {
    const cached = this.cached(customerId);
    cached.policy ??= this.policyNow(customerId);
    return cached.policy;
  }

  private policyNow(customerId: string): CustomerPolicy {
    const typed = this.s.typesWithOption.all(customerId);
    const settings = this.s.settings.get(customerId);
    const rules = this.s.blocklist.get(customerId);
    return {
      settings: settings ? { requireToken: Boolean(settings.require_token), timezone: settings.timezone } : { ...DEFAULT_SETTINGS },
      blockRules: rules === undefined ? [] : parseStored<BlockRule[]>(rules),
      secureTypes: new Set(typed.filter((t) => t.secure).map((t) => t.type)),
      unlinkedTypes: new Set(typed.filter((t) => !t.links).map((t) => t.type)),
    };
  }

  /** Call inside a write transaction. */
  putSettings(customerId: string, settings: CustomerSettings): CustomerSettings {
    this.cache.delete(customerId);
    this.s.putSettings.run(customerId, settings.requireToken ? 1 : 0, settings.timezone);
    return { requireToken: settings.requireToken, timezone: settings.timezone };
  }

  /** Call inside a write transaction. */
  putBlocklist(customerId: string, rules: BlockRule[]): BlockRule[] {
    this.cache.delete(customerId);
    this.s.putBlocklist.run(customerId, JSON.stringify(rules));
    return rules;
  }
}
