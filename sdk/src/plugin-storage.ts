import type { JsonValue } from './json-value.js';

/**
 * A small persistent key/value store, namespaced to one plugin. Reads are synchronous; a write's promise resolves
 * once the value is on disk, so a plugin may acknowledge work only after `await storage.set(...)`. Many writes
 * made together share one transaction (and one disk flush).
 *
 * @example
 * await storage.set('outbox/abc', { attempts: 0, next_at: clock.now() });
 * for (const [key, value] of storage.entries('outbox/')) resume(key, value);
 */
export interface PluginStorage {
  /** The stored value, or undefined. The value is the plugin's own data, as it was written. */
  get<T extends JsonValue = JsonValue>(key: string): T | undefined;
  /** Stores `value` under `key`; resolves once it is persisted. */
  set(key: string, value: JsonValue, options?: StorageWriteOptions): Promise<void>;
  /** Removes `key` (no error when absent); resolves once persisted. */
  delete(key: string): Promise<void>;
  /** Every entry whose key starts with `prefix` (all entries without one), in insertion order. */
  entries<T extends JsonValue = JsonValue>(prefix?: string): IterableIterator<[string, T]>;
}

/** How a write reaches the disk (added to API version 1 after sdk 1.0.0; a server that predates it writes at once). */
export interface StorageWriteOptions {
  /**
   * `true`: the write adds no disk flush of its own. It goes into the server's next transaction, or after about a
   * second if none comes, and resolves then. A crash before that loses it: use it only for records whose loss
   * costs a repeat, such as marking a delivery done that a restart would simply send again.
   */
  lazy?: boolean;
}
