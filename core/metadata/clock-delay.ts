import type { Clock } from '@crateflow/sdk';

/** Resolves after `ms` of the clock's time, so backoff and pacing tests move a manual clock instead of waiting. */
export function clockDelay(clock: Clock, ms: number): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    clock.schedule(ms, resolve);
  });
}
