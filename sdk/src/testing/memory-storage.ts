import type { JsonValue } from '../json-value.js';
import type { PluginStorage } from '../plugin-storage.js';

/**
 * {@link PluginStorage} kept in memory, for tests. Values go through a JSON round trip on the way in and
 * out, as they do on the server's disk, so a plugin that stores a `Date` or relies on mutating a value it read
 * (without `set()`) fails here instead of in production.
 *
 * @example
 * const storage = new MemoryStorage({ 'cursor': { offset: 500 } });
 * await storage.set('seen/ev_1', true);
 * [...storage.entries('seen/')]   // [['seen/ev_1', true]]
 */
export class MemoryStorage implements PluginStorage {
  private readonly values = new Map<string, string>();
  /** How many `set()`/`delete()` calls were made, e.g. to assert that a plugin persisted before acknowledging. */
  writes = 0;

  constructor(initial: Record<string, JsonValue> = {}) {
    for (const [key, value] of Object.entries(initial)) this.values.set(key, JSON.stringify(value));
  }

  get<T extends JsonValue = JsonValue>(key: string): T | undefined {
    const raw = this.values.get(key);
    // The value is what the same plugin stored under this key; the plugin owns its shape (as on the server).
    return raw === undefined ? undefined : (JSON.parse(raw) as T);
  }

  async set(key: string, value: JsonValue): Promise<void> {
    this.writes++;
    this.values.set(key, JSON.stringify(value));
  }

  async delete(key: string): Promise<void> {
    this.writes++;
    this.values.delete(key);
  }

  *entries<T extends JsonValue = JsonValue>(prefix = ''): IterableIterator<[string, T]> {
    for (const [key, raw] of [...this.values]) {
      // Same ownership argument as get().
      if (key.startsWith(prefix)) yield [key, JSON.parse(raw) as T];
    }
  }

  /** Every stored entry as plain data, for assertions. */
  snapshot(): Record<string, JsonValue> {
    return Object.fromEntries([...this.entries()]);
  }
}
