// How a test seeds a store with a node write to a fixed address: the store's node writes take only a CheckedNode (a
// write carrying its domain check), so a fixed address goes in a check that answers it.
import { declaresAsExpected, type NodeAddress } from '../../src/domain/model';
import type { CheckedNode } from '../../src/domain/ports/node-writes';
import { schemaChanged } from '../../src/domain/refusals';

/**
 * A write to `address` whose check answers it as it is. With expectedTypes, the check refuses it (schema_changed)
 * unless the schema still declares them, options included, as the domain's check would have answered against the
 * schema of the moment: so a test can stand for a write checked against a schema that changed since.
 */
export function seeded(address: NodeAddress): CheckedNode {
  return {
    customerId: address.customerId,
    schemaId: address.schemaId,
    check: ({ schema }) => {
      const expected = address.expectedTypes;
      if (expected !== undefined && !(schema && declaresAsExpected(schema.idTypes, expected))) throw schemaChanged(address.schemaId);
      return address;
    },
  };
}
