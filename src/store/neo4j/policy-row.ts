// The rows the policy statements answer (customer.policy.cypher and the searches that read the policy with them).
import type { CustomerSettings } from '../../domain/model';

/** A declaration as the statements return it: maxHolders is null when there is no limit. */
export interface StoredDeclaration {
  type: string;
  secure: boolean;
  links: boolean;
  maxHolders: number | null;
}

export interface DeclaredType extends StoredDeclaration {
  position: number;
}

/** A row of customer.policy.cypher: each list holds at most one entry (none when absent). */
export interface PolicyRow {
  secureTypes: string[];
  unlinkedTypes: string[];
  settings: CustomerSettings[];
  blocklist: string[];
  /** The digest blocklist.put stored beside the rules (customer.policy.cypher reads it, the searches do not). */
  blocklistDigest?: Array<string | null>;
  schema: Array<{ schemaId: string; idTypes: DeclaredType[] }>;
  /** Whether the customer has any schema (customer.policy.cypher reads it; the searches do not). */
  hasSchema?: boolean;
}
