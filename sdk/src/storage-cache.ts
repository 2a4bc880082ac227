import type { Clock } from './clock.js';
import { isRecord, numberField } from './json-fields.js';
import type { JsonValue } from './json-value.js';
import type { PluginStorage } from './plugin-storage.js';

/**
 * Answers kept in the plugin's storage for `ttlMs` under one key prefix, so a second run asks the public APIs
 * only about what is new. Bounded: `prune()` drops expired entries, then the oldest beyond `maxEntries`.
 *
 * @example
 * const similar = new StorageCache(storage, clock, 'similar/', 7 * 86_400_000, 5000);
 * const cached = similar.get(seedMbid) ?? (await fetchSimilar(seedMbid));
 */
export class StorageCache {
  constructor(
    private readonly storage: PluginStorage,
    private readonly clock: Clock,
    private readonly prefix: string,
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  /** The stored value while fresh; `null` is a value ("looked up, nothing there"), undefined is a miss. */
  get(key: string): JsonValue | undefined {
    const entry = this.storage.get(this.prefix + key);
    if (!isRecord(entry) || !('value' in entry)) return undefined;
    const at = numberField(entry, 'at') ?? 0;
    return this.clock.now() - at < this.ttlMs ? (entry['value'] ?? null) : undefined;
  }

  async set(key: string, value: JsonValue): Promise<void> {
    if (this.ttlMs <= 0) return;
    await this.storage.set(this.prefix + key, { at: this.clock.now(), value });
  }

  async prune(): Promise<void> {
    const now = this.clock.now();
    const entries = [...this.storage.entries(this.prefix)].map(([key, entry]) => ({ key, at: isRecord(entry) ? numberField(entry, 'at') ?? 0 : 0 }));
    const expired = entries.filter((entry) => now - entry.at >= this.ttlMs);
    const fresh = entries.filter((entry) => now - entry.at < this.ttlMs).sort((a, b) => b.at - a.at);
    const doomed = [...expired, ...fresh.slice(this.maxEntries)];
    await Promise.all(doomed.map((entry) => this.storage.delete(entry.key)));
  }
}
