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
  /** Runs `fn` once after `ms` milliseconds; the returned function cancels it. Timers never keep the process alive. */
  schedule(ms: number, fn: () => void): () => void;
}

/**
 * The real clock, backed by `Date.now` and unref'd timers.
 *
 * @example
 * const clock = systemClock();
 */
export function systemClock(): Clock {
  return {
    now: () => Date.now(),
    schedule(ms, fn) {
      const timer = setTimeout(fn, Math.max(0, ms));
      timer.unref();
      return () => clearTimeout(timer);
    },
  };
}
