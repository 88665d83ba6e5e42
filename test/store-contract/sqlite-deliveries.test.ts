// Runs the delivery store contract against the embedded SQLite store, in memory.
import { SqliteStore } from '../../src/store/sqlite/sqlite-store';
import { describeDeliveryContract } from './deliveries-contract';

describeDeliveryContract('sqlite :memory:', async () => new SqliteStore({ path: ':memory:' }));
