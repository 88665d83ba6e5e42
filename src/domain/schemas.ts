// Schemas declare the ID types a node may hold, and which of them are secure.
import { DomainError } from './errors';
import { canonicalDeclaration, type IdTypeDeclaration, type SchemaRecord } from './model';
import type { ProtectionStore, PutSchemaOutcome } from './ports/protections';

export class SchemaService {
  constructor(private readonly store: ProtectionStore) {}

  put(customerId: string, schemaId: string, idTypes: Array<Partial<IdTypeDeclaration> & { type: string }>): Promise<PutSchemaOutcome> {
    const declared: IdTypeDeclaration[] = idTypes.map((t) => canonicalDeclaration({ ...t, secure: t.secure ?? false }));
    const seen = new Map<string, number>();
    declared.forEach((t, index) => {
      const first = seen.get(t.type);
      if (first !== undefined) {
        throw new DomainError('validation_failed', `ID type '${t.type}' is declared twice.`, [
          { path: `/body/id_types/${index}/type`, message: `duplicates /body/id_types/${first}/type` },
        ]);
      }
      seen.set(t.type, index);
    });
    return this.store.putSchema(customerId, { schemaId, idTypes: declared });
  }

  async get(customerId: string, schemaId: string): Promise<SchemaRecord> {
    const schema = await this.store.getSchema(customerId, schemaId);
    if (!schema) throw new DomainError('schema_not_found', `Schema '${schemaId}' does not exist.`);
    return schema;
  }

  list(customerId: string): Promise<SchemaRecord[]> {
    return this.store.listSchemas(customerId);
  }

  delete(customerId: string, schemaId: string): Promise<void> {
    return this.store.deleteSchema(customerId, schemaId);
  }
}
