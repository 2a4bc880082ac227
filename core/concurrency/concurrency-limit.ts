export interface ConcurrencyLimits {
  /** Tasks that may run at once. */
  concurrent: number;
  /** Tasks that may wait for a turn (default: no bound); one more is refused with `refuse()`. */
  queued?: number;
  /** The error a task past the queue gets, at once. */
  refuse?: () => Error;
}

/**
 * At most `concurrent` tasks at once; the rest wait in arrival order, and past a bounded queue are refused at
 * once instead of piling up. The one limiter of the service: credential checks (scrypt on libuv's pool) and
 * cover downloads (a connection per missing cover) both go through it.
 */
export class ConcurrencyLimit {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limits: ConcurrencyLimits) {}

  /** Runs `task` when a slot is free; throws `refuse()` at once when the queue is full. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limits.concurrent) {
      if (this.waiting.length >= (this.limits.queued ?? Infinity)) throw this.limits.refuse?.() ?? new Error('too many tasks are waiting');
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running++;
    }
    try {
      return await task();
    } finally {
      // The slot passes straight to the next waiter, so `running` never dips and a newcomer cannot jump the queue.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }

  /** Tasks running and waiting now (for tests and reports). */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }
}
