// A bench's node write to a fixed address: the store's node writes take only a CheckedNode (a write carrying its
// domain check), so the address goes in a check that answers it. The bench seeds schemas it has just put, so the
// check refuses nothing; the store still guards the write with the address's expectedTypes.
import type { NodeAddress } from '../src/domain/model';
import type { CheckedNode } from '../src/domain/ports/node-writes';

export const seeded = (address: NodeAddress): CheckedNode => ({ customerId: address.customerId, schemaId: address.schemaId, check: () => address });
