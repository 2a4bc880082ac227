import type { JsonValue, PluginStorage } from '@crateflow/sdk';
import type { JsonDocument } from '../storage/json-document.js';

export interface PluginStorageData {
  entries: Record<string, JsonValue>;
}

/** A plugin's key/value storage, kept in its own document of the store (`plugin-<name>.json`). */
export class DocumentPluginStorage implements PluginStorage {
  constructor(private readonly doc: JsonDocument<PluginStorageData>) {}

  get<T extends JsonValue = JsonValue>(key: string): T | undefined {
    // The value is what this same plugin stored under the key; the plugin owns its shape.
    return this.doc.data.entries[key] as T | undefined;
  }

  set(key: string, value: JsonValue): Promise<void> {
    this.doc.data.entries[key] = value;
    this.doc.touch('entries', key);
    return this.doc.commit();
  }

  delete(key: string): Promise<void> {
    if (!(key in this.doc.data.entries)) return Promise.resolve();
    delete this.doc.data.entries[key];
    this.doc.touch('entries', key);
    return this.doc.commit();
  }

  *entries<T extends JsonValue = JsonValue>(prefix = ''): IterableIterator<[string, T]> {
    for (const [key, value] of Object.entries(this.doc.data.entries)) {
      if (key.startsWith(prefix)) yield [key, value as T];
    }
  }
}
