import { steppedClock } from './stepped-clock.js';

/**
 * Time as a plugin sees it. The server passes the real clock; tests pass a manual one, so retry and backoff
 * logic runs without real waiting.
 *
 * @example
 * const cancel = clock.schedule(2000, () => retry());   // fires after 2 s of (possibly simulated) time
 * const age = clock.now() - startedAt;
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /**
   * Runs `fn` once after `ms` milliseconds, however long (the real clock waits past Node's 24.8-day timer limit
   * in steps); the returned function cancels it. Timers never keep the process alive.
   */
  schedule(ms: number, fn: () => void): () => void;
}

/**
 * The real clock, backed by `Date.now` and unref'd timers. A wait longer than one Node timer can hold (2^31 − 1 ms)
 * is slept in steps until `Date.now()` reaches its due time.
 *
 * @example
 * const clock = systemClock();
 */
export function systemClock(): Clock {
  return steppedClock({
    now: () => Date.now(),
    schedule(ms, fn) {
      const timer = setTimeout(fn, Math.max(0, ms));
      timer.unref();
      return () => clearTimeout(timer);
    },
  });
}
