import { availableParallelism } from 'node:os';
import { ConcurrencyLimit } from '../concurrency/concurrency-limit.js';
import { CredentialChecksBusyError } from '../errors/credential-checks-busy-error.js';

export interface CredentialCheckLimits {
  /** Checks that may run at once. */
  concurrent: number;
  /** Checks that may wait for a turn; one more is refused with 429. */
  queued: number;
}

/**
 * scrypt runs on libuv's thread pool (4 threads by default), the same pool that serves every file write of the
 * store and the health check. Unbounded, a burst of guesses filled the pool with 32 MiB hashes and writes and
 * `/health` waited 20-60 s. One check at a time on a 2-core machine (one per core, less one for the event loop,
 * at most 2) leaves the pool and a core free; a short queue absorbs bursts of honest logins, and past it a
 * check is refused at once (429) instead of piling up.
 */
export const DEFAULT_CHECK_LIMITS: CredentialCheckLimits = { concurrent: Math.max(1, Math.min(2, availableParallelism() - 1)), queued: 16 };

/** Runs credential checks (scrypt) a few at a time, in arrival order, refusing them when the queue is full. */
export class CredentialCheckGate {
  private readonly limit: ConcurrencyLimit;

  constructor(limits: CredentialCheckLimits = DEFAULT_CHECK_LIMITS) {
    this.limit = new ConcurrencyLimit({ ...limits, refuse: () => new CredentialChecksBusyError() });
  }

  /** Runs `check` when a slot is free; throws CredentialChecksBusyError at once when too many already wait. */
  run<T>(check: () => Promise<T>): Promise<T> {
    return this.limit.run(check);
  }

  /** Checks running or waiting now (for tests and reports). */
  get load(): { running: number; waiting: number } {
    return this.limit.load;
  }
}
