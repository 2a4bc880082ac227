import type { Clock } from '@crateflow/sdk';

/**
 * Requests to decision links per client address: at most `limit` a minute. Links are 256-bit secrets, so this is
 * not what keeps them from being guessed; it keeps one client from making the service hash and look up tokens (or
 * render pages) without end. Addresses are counted in the current minute only, and at most `maxClients` of them
 * are tracked: past that the minute starts over for everyone, which never lets a flood of addresses grow memory.
 */
export class DecideRateLimit {
  private windowStart = Number.NEGATIVE_INFINITY;
  private readonly counts = new Map<string, number>();

  constructor(private readonly clock: Clock, private readonly limit = 30, private readonly maxClients = 10_000) {}

  /** Seconds to wait when `client` is over its limit, or 0 when its request may go ahead (and is counted). */
  take(client: string): number {
    const now = this.clock.now();
    if (now - this.windowStart >= 60_000 || this.counts.size >= this.maxClients) {
      this.windowStart = now;
      this.counts.clear();
    }
    const used = this.counts.get(client) ?? 0;
    if (used >= this.limit) return Math.max(1, Math.ceil((this.windowStart + 60_000 - now) / 1000));
    this.counts.set(client, used + 1);
    return 0;
  }
}
