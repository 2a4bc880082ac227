/**
 * Tests waiting for something a fake receives (the third webhook delivery, a press's answer): each wait names what
 * it waits for as a function that answers the value once it is there. The fake calls `settle()` after every
 * arrival and `closeAll()` when it closes, so no wait outlives the fake.
 */
export class ArrivalWaiters<T> {
  private readonly waiters = new Set<{ ready: () => T | undefined; resolve: (value: T) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }>();

  /** Resolves with `ready()`'s value once it has one; rejects after `timeoutMs` (a liveness bound), naming `what()`. */
  wait(ready: () => T | undefined, timeoutMs: number, what: () => string): Promise<T> {
    const now = ready();
    if (now !== undefined) return Promise.resolve(now);
    return new Promise((resolve, reject) => {
      const waiter = {
        ready,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.waiters.delete(waiter);
          reject(new Error(`expected ${what()} within ${timeoutMs} ms`));
        }, timeoutMs),
      };
      this.waiters.add(waiter);
    });
  }

  /** Resolves every wait whose value is there now. */
  settle(): void {
    for (const waiter of this.waiters) {
      const value = waiter.ready();
      if (value === undefined) continue;
      this.waiters.delete(waiter);
      clearTimeout(waiter.timer);
      waiter.resolve(value);
    }
  }

  /** Rejects every wait still open, saying `why`. */
  closeAll(why: string): void {
    for (const waiter of this.waiters) {
      clearTimeout(waiter.timer);
      waiter.reject(new Error(why));
    }
    this.waiters.clear();
  }
}
