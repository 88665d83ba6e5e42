// The port of what the service does with the store itself: its readiness (/readyz), and its end.

export interface StoreLifecycle {
  /** Resolves when the store answers; rejects with store_unavailable otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
