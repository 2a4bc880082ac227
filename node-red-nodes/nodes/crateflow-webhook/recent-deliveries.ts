/**
 * Delivery ids already emitted, so a redelivered webhook (Crateflow delivers at least once) is acknowledged
 * without being emitted twice. Kept in memory only, for `ttlMs` and at most `capacity` ids (oldest dropped).
 */
export class RecentDeliveries {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly ttlMs = 24 * 60 * 60 * 1000,
    private readonly capacity = 10_000,
  ) {}

  /** Records `id` and answers whether it was new. */
  remember(id: string, now = Date.now()): boolean {
    this.prune(now);
    if (this.seen.has(id)) return false;
    this.seen.set(id, now + this.ttlMs);
    while (this.seen.size > this.capacity) {
      const oldest = this.seen.keys().next();
      if (oldest.done) break;
      this.seen.delete(oldest.value);
    }
    return true;
  }

  clear(): void {
    this.seen.clear();
  }

  private prune(now: number): void {
    // Map keeps insertion order and every entry has the same ttl, so expired entries are at the front.
    for (const [id, expires] of this.seen) {
      if (expires > now) break;
      this.seen.delete(id);
    }
  }
}
