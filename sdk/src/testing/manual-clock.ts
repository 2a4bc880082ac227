import type { Clock } from '../clock.js';

interface PendingTimer {
  at: number;
  fn: () => void;
}

/**
 * A {@link Clock} that only moves when a test says so. Timers scheduled through it run during `advance()`, in
 * due order, so retry and backoff logic is tested without real waiting, and `pendingTimers` shows whether a
 * plugin left timers behind after `stop()`.
 *
 * @example
 * const clock = new ManualClock();
 * let fired = false;
 * clock.schedule(5000, () => { fired = true; });
 * await clock.advance(5000);   // fired === true, clock.pendingTimers === 0
 */
export class ManualClock implements Clock {
  private current: number;
  private nextId = 0;
  private readonly timers = new Map<number, PendingTimer>();

  /** Starts at `startMs` (default 2026-01-01T00:00:00Z), so timestamps in tests are stable. */
  constructor(startMs: number = Date.UTC(2026, 0, 1)) {
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  schedule(ms: number, fn: () => void): () => void {
    const id = ++this.nextId;
    this.timers.set(id, { at: this.current + Math.max(0, ms), fn });
    return () => {
      this.timers.delete(id);
    };
  }

  /** Timers scheduled and neither fired nor cancelled. A plugin that stopped cleanly leaves 0. */
  get pendingTimers(): number {
    return this.timers.size;
  }

  /**
   * Moves time forward by `ms`, firing every timer that falls due on the way (earliest first; timers a callback
   * schedules within the window fire too). Between timers it lets the event loop turn once, so async work a
   * timer starts (an HTTP call to a local fake, a storage write) can make progress.
   */
  async advance(ms: number): Promise<void> {
    const target = this.current + Math.max(0, ms);
    for (let due = this.nextDue(target); due; due = this.nextDue(target)) {
      const [id, timer] = due;
      this.timers.delete(id);
      this.current = Math.max(this.current, timer.at);
      timer.fn();
      await turnEventLoop();
    }
    this.current = target;
    await turnEventLoop();
  }

  private nextDue(limit: number): [number, PendingTimer] | undefined {
    let earliest: [number, PendingTimer] | undefined;
    for (const entry of this.timers) {
      if (entry[1].at > limit) continue;
      // Map iteration is in insertion order, so ties keep scheduling order.
      if (!earliest || entry[1].at < earliest[1].at) earliest = entry;
    }
    return earliest;
  }
}

function turnEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
