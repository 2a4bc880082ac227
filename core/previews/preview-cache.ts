import type { Clock } from '@crateflow/sdk';

/**
 * Answers remembered per album for `ttlMs`, at most `maxEntries` of them (the least recently asked go first), so
 * the UI playing through an album, or the same album again, costs the provider nothing. Concurrent asks for one
 * album share a single fetch. Failures are not remembered: the next ask tries again.
 */
export class PreviewCache<T> {
  private readonly entries = new Map<string, { value: T; expiresAt: number }>();
  private readonly inFlight = new Map<string, Promise<T>>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  async get(key: string, fetch: () => Promise<T>): Promise<T> {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt > this.clock.now()) {
      // Re-inserted so Map order is least recently asked first.
      this.entries.delete(key);
      this.entries.set(key, entry);
      return entry.value;
    }
    if (entry) this.entries.delete(key);
    const running = this.inFlight.get(key);
    if (running) return running;
    const fetching = fetch()
      .then((value) => {
        this.remember(key, value);
        return value;
      })
      .finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, fetching);
    return fetching;
  }

  private remember(key: string, value: T): void {
    this.entries.set(key, { value, expiresAt: this.clock.now() + this.ttlMs });
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries) break;
      this.entries.delete(oldest);
    }
  }
}
