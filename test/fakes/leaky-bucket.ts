import type { Clock } from '@crateflow/sdk';

/**
 * "1 request per second on average" as a leaky bucket on the fake's own clock: every arrival adds one, the level
 * drains at `perSecond`, and an arrival that lifts it above `burst` is refused. Refused arrivals count too, so a
 * client that keeps pushing stays refused until it slows below the rate ("at 4 req/s you get 0 %, not 25 %",
 * shared/reference/musicbrainz-api.md §2). The level is capped one above `burst`, so a past burst is forgiven
 * after one gap longer than the rate.
 */
export class LeakyBucket {
  private level = 0;
  private lastAt: number | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly perSecond: number,
    private readonly burst: number,
  ) {}

  /** Records one arrival; true when it is within the rate. */
  admit(): boolean {
    const now = this.clock.now();
    const drained = this.lastAt === undefined ? 0 : ((now - this.lastAt) / 1000) * this.perSecond;
    this.lastAt = now;
    this.level = Math.min(this.burst + 1, Math.max(0, this.level - drained) + 1);
    return this.level <= this.burst;
  }
}
