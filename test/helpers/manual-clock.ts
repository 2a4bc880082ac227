import type { Clock } from '@crateflow/sdk';

interface Timer {
  readonly id: number;
  readonly due: number;
  readonly fn: () => void;
}

/**
 * A Clock whose time moves only when a test says so. `advance()` runs each timer that falls due, in due
 * order and at its due time, letting the event loop turn after each so async work a timer starts can proceed.
 *
 * @example
 * const clock = new ManualClock();
 * clock.schedule(2000, retry);
 * await clock.advance(2000);   // retry ran, clock.now() is 2 s later
 */
export class ManualClock implements Clock {
  private current: number;
  private nextId = 1;
  private readonly timers = new Map<number, Timer>();

  /** Starts at `start` (default 2026-03-18T12:00:00.000Z), so timestamps in tests are stable. */
  constructor(start = Date.parse('2026-03-18T12:00:00.000Z')) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  schedule(ms: number, fn: () => void): () => void {
    const timer = { id: this.nextId++, due: this.current + Math.max(0, ms), fn };
    this.timers.set(timer.id, timer);
    return () => {
      this.timers.delete(timer.id);
    };
  }

  /** Moves time forward by `ms`, firing every timer due on the way (ones scheduled meanwhile too). */
  async advance(ms: number): Promise<void> {
    const target = this.current + Math.max(0, ms);
    for (let timer = this.soonest(target); timer; timer = this.soonest(target)) {
      this.timers.delete(timer.id);
      this.current = Math.max(this.current, timer.due);
      timer.fn();
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    this.current = target;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }

  /** Due times (epoch ms) of the timers not yet run, soonest first. */
  pending(): number[] {
    return [...this.timers.values()].map((t) => t.due).sort((a, b) => a - b);
  }

  /** How many timers are waiting. */
  get pendingTimers(): number {
    return this.timers.size;
  }

  private soonest(limit: number): Timer | undefined {
    let best: Timer | undefined;
    for (const timer of this.timers.values()) {
      if (timer.due <= limit && (!best || timer.due < best.due)) best = timer;
    }
    return best;
  }
}
