import type { Clock } from '@crateflow/sdk';
import { clockDelay } from './clock-delay.js';

/**
 * One queue that every caller of a rate-limited service goes through: request starts are at least `intervalMs`
 * apart, in arrival order, whoever asks. MusicBrainz counts requests per source IP, not per caller, so two
 * discovery sources pacing themselves separately would still exceed 1 request/s together
 * (shared/reference/musicbrainz-api.md §2).
 *
 * Spacing rather than a token bucket with a burst: the limit is an average measured by the server, and a burst
 * after an idle minute is exactly what gets "all requests declined".
 */
export class RequestPacer {
  private nextStart = Number.NEGATIVE_INFINITY;
  private heldUntil = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly clock: Clock,
    private readonly intervalMs: number,
  ) {}

  /** Waits for this caller's slot, then runs `send`. */
  async run<T>(send: () => Promise<T>): Promise<T> {
    for (;;) {
      const now = this.clock.now();
      const slot = Math.max(now, this.nextStart, this.heldUntil);
      this.nextStart = slot + this.intervalMs;
      await clockDelay(this.clock, slot - now);
      // A hold placed while this caller waited applies to it too; it takes a new slot after the hold.
      if (this.clock.now() >= this.heldUntil) return send();
    }
  }

  /**
   * Starts nothing before `until` (epoch ms), including callers already waiting: after a 503 the server refuses
   * everyone behind this address, not only the caller that saw it.
   */
  holdUntil(until: number): void {
    this.heldUntil = Math.max(this.heldUntil, until);
  }
}
