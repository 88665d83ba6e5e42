// Wakes the calls that wait for a customer's next change (ChangeFeedStore.waitForChange). A waiter holds a callback and
// the position it waits past, nothing of the store; the store tells it of commits: SQLite names the customers each
// commit wrote history for (notify), Neo4j reads the customers' counters (wakeAbove), since another process may have
// written them.
interface Waiter {
  after: number;
  done: () => void;
}

export class ChangeSignals {
  private readonly waiters = new Map<string, Set<Waiter>>();

  /** Resolves at the next notify of the customer, or wakeAbove past `after`, or when `signal` aborts. */
  wait(customerId: string, after: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      let set = this.waiters.get(customerId);
      if (!set) {
        set = new Set();
        this.waiters.set(customerId, set);
      }
      const waiters = set;
      const waiter: Waiter = {
        after,
        done: () => {
          waiters.delete(waiter);
          if (waiters.size === 0 && this.waiters.get(customerId) === waiters) this.waiters.delete(customerId);
          signal.removeEventListener('abort', waiter.done);
          resolve();
        },
      };
      waiters.add(waiter);
      signal.addEventListener('abort', waiter.done, { once: true });
    });
  }

  /** Wakes every call waiting for these customers. */
  notify(customerIds: Iterable<string>): void {
    for (const customerId of customerIds) for (const waiter of [...(this.waiters.get(customerId) ?? [])]) waiter.done();
  }

  /** Wakes the calls that wait past a position below the customer's head. */
  wakeAbove(heads: ReadonlyMap<string, number>): void {
    for (const [customerId, head] of heads) {
      for (const waiter of [...(this.waiters.get(customerId) ?? [])]) if (head > waiter.after) waiter.done();
    }
  }

  /** Wakes every waiting call (the store closes). */
  wakeAll(): void {
    this.notify([...this.waiters.keys()]);
  }

  /** The customers some call waits for. */
  watched(): string[] {
    return [...this.waiters.keys()];
  }
}
