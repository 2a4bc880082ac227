import type { Clock } from './clock.js';

/**
 * The longest delay one Node timer honours: 2^31 − 1 ms, about 24.8 days. Node's `setTimeout` docs: "When delay
 * is larger than 2147483647 or less than 1, the delay will be set to 1", with a `TimeoutOverflowWarning`, so a
 * 30-day wait handed to it whole fires after 1 ms (issue #27: `schedule: 30d` ran a source 95 times in 3 minutes).
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A clock that waits any length on `base`, whose timers may only be armed for up to `maxStepMs`: a longer wait is
 * slept in steps, each re-armed from the time left on `base.now()` until the due time is reached, so the callback
 * fires at the due time on that clock. Cancelling stops whichever step is armed. A wait of `Infinity` never fires.
 *
 * @example
 * const clock = steppedClock({ now: Date.now, schedule: (ms, fn) => { const t = setTimeout(fn, ms); return () => clearTimeout(t); } });
 * clock.schedule(30 * 86_400_000, rerun);   // fires in 30 days, not after 1 ms
 */
export function steppedClock(base: Clock, maxStepMs = MAX_TIMER_MS): Clock {
  return {
    now: () => base.now(),
    schedule(ms, fn) {
      // `!(ms > max)` also sends NaN to the base, which treats it as no delay, as it always did.
      if (!(ms > maxStepMs)) return base.schedule(ms, fn);
      const due = base.now() + ms;
      let cancelled = false;
      let cancelStep: () => void;
      const step = (): void => {
        if (cancelled) return;
        const left = due - base.now();
        cancelStep = left > maxStepMs ? base.schedule(maxStepMs, step) : base.schedule(left, fn);
      };
      cancelStep = base.schedule(maxStepMs, step);
      return () => {
        cancelled = true;
        cancelStep();
      };
    },
  };
}
