// The port of a customer's protections: its schemas, settings and blocked values, and the policy they make together,
// which every search and node write is checked against. putSchema refuses, in this order: (secure_flag_conflict) a
// type whose secure flag differs in another schema of the customer; (type_option_conflict) one whose links or
// maxHolders differ there; (secure_type_in_use) turning a type's secure flag off while a node of the customer holds
// an ID of it; (schema_in_use) dropping a type that nodes of the schema still hold. Each put of settings or blocked
// values replaces what was stored and answers it.
import type { BlockRule } from '../blocklist';
import type { CustomerPolicy, CustomerSettings, SchemaRecord } from '../model';
import type { SchemaWithPolicy } from './node-writes';

export type { SchemaWithPolicy } from './node-writes';

export interface PutSchemaOutcome {
  created: boolean;
}

export interface ProtectionStore {
  putSchema(customerId: string, schema: SchemaRecord): Promise<PutSchemaOutcome>;
  getSchema(customerId: string, schemaId: string): Promise<SchemaRecord | undefined>;
  listSchemas(customerId: string): Promise<SchemaRecord[]>;
  /** schema_not_found when absent; schema_in_use while it has nodes. */
  deleteSchema(customerId: string, schemaId: string): Promise<void>;
  /** What every search and node write of the customer is checked against: settings, blocked values, type options. */
  customerPolicy(customerId: string): Promise<CustomerPolicy>;
  /** customerPolicy and whether the customer has any schema, read together: what a bulk request is admitted on. */
  customerAdmission(customerId: string): Promise<{ policy: CustomerPolicy; hasSchema: boolean }>;
  /** A schema (undefined when absent) and the customer's policy, read together: what a search's start is checked against. */
  schemaWithPolicy(customerId: string, schemaId: string): Promise<SchemaWithPolicy>;
  putSettings(customerId: string, settings: CustomerSettings): Promise<CustomerSettings>;
  /** The stored rules, checked by the domain before they are put; [] when none. */
  putBlocklist(customerId: string, rules: BlockRule[]): Promise<BlockRule[]>;
}
