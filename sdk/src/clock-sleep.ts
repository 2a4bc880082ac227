import type { Clock } from './clock.js';

/**
 * Waits `ms` on the context's clock (tests move a manual one), giving up early when `signal` aborts.
 *
 * @example
 * await clockSleep(clock, retryAfterMs, run.signal);
 */
export function clockSleep(clock: Clock, ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      cancel();
      signal.removeEventListener('abort', done);
      resolve();
    };
    const cancel = clock.schedule(ms, done);
    signal.addEventListener('abort', done, { once: true });
  });
}
