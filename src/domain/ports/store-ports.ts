// What an adapter implements: every port of the domain. src/store/sqlite/ and src/store/neo4j/ implement them all in
// one object, which the composition root (src/store/open.ts, src/app.ts) hands out; no service takes StorePorts,
// each takes the ports it uses.
import type { ChangeFeedStore } from './changes';
import type { DeliveryStore } from './deliveries';
import type { HistoryStore } from './history';
import type { IdentityReadStore } from './identity-reads';
import type { ImportStore } from './imports';
import type { InventoryStore } from './inventory';
import type { StoreLifecycle } from './lifecycle';
import type { NodeWriteStore } from './node-writes';
import type { ProtectionStore } from './protections';
import type { SeparationStore } from './separations';
import type { ShowingStore } from './showing';
import type { SnapshotStore } from './snapshots';
import type { TokenStore } from './tokens';

export type StorePorts = StoreLifecycle &
  ProtectionStore &
  TokenStore &
  NodeWriteStore &
  SeparationStore &
  IdentityReadStore &
  HistoryStore &
  ChangeFeedStore &
  DeliveryStore &
  ShowingStore &
  SnapshotStore &
  ImportStore &
  InventoryStore;
