import type { JsonValue } from './json-value.js';

/**
 * A small persistent key/value store, namespaced to one plugin. Reads are synchronous (the data lives in
 * memory); a write's promise resolves once the value is on disk, so a plugin may acknowledge work only after
 * `await storage.set(...)`. Many writes made together share one atomic file write.
 *
 * @example
 * await storage.set('outbox/abc', { attempts: 0, next_at: clock.now() });
 * for (const [key, value] of storage.entries('outbox/')) resume(key, value);
 */
export interface PluginStorage {
  /** The stored value, or undefined. The value is the plugin's own data, as it was written. */
  get<T extends JsonValue = JsonValue>(key: string): T | undefined;
  /** Stores `value` under `key`; resolves once it is persisted. */
  set(key: string, value: JsonValue): Promise<void>;
  /** Removes `key` (no error when absent); resolves once persisted. */
  delete(key: string): Promise<void>;
  /** Every entry whose key starts with `prefix` (all entries without one), in insertion order. */
  entries<T extends JsonValue = JsonValue>(prefix?: string): IterableIterator<[string, T]>;
}
