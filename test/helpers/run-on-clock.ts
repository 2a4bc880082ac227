import type { ManualClock } from './manual-clock.js';

export interface RunOnClockOptions {
  /** True while work that must finish at the current time is under way (an HTTP request in flight). */
  readonly busy?: () => boolean;
  /** Timers further ahead than this are left alone (default one day). */
  readonly limitMs?: number;
}

/**
 * Awaits `work` while moving `clock` forward to each timer it schedules: code that paces or backs off on a manual
 * clock, and talks to a real fake over loopback in between, finishes without real waiting. The clock moves only
 * while `busy()` is false, so a request sent at 12:00:01 also arrives at the fake at 12:00:01 and a fake limiting
 * rates on the same clock sees the client's true spacing.
 */
export async function runOnClock<T>(clock: ManualClock, work: Promise<T>, options: RunOnClockOptions = {}): Promise<T> {
  let settled = false;
  const done = work.finally(() => {
    settled = true;
  });
  // The rejection is returned below; this only stops it being reported as unhandled while the loop runs.
  done.catch(() => undefined);
  const limit = clock.now() + (options.limitMs ?? 24 * 60 * 60 * 1000);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 1));
    if (settled) break;
    if (options.busy?.()) continue;
    const next = clock.pending()[0];
    if (next !== undefined && next <= limit) await clock.advance(next - clock.now());
  }
  return done;
}
