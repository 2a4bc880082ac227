import type { JsonValue, PluginStorage, StorageWriteOptions } from '@crateflow/sdk';
import type { Store } from '../storage/store.js';

/**
 * A plugin's key/value storage: its rows of `plugin_entries`, keyed by the plugin instance's name. Reads are direct
 * indexed queries; a write is a change of the store (group-committed with whatever else waits) and resolves once it
 * is on disk. A read sees what is committed: a write is visible from the moment its promise can resolve, and a write
 * the disk refused is never seen at all.
 *
 * Entries come back in insertion order, as the sdk promises: each row carries a number (`seq`) one past the highest
 * of its plugin when its key is first stored. An update keeps the row and its number; a key deleted and stored again
 * gets a new one, at the end.
 */
/** How long a lazy write waits for another commit to join before it commits alone (StorageWriteOptions.lazy). */
const LAZY_WRITE_MS = 1000;

export class SqlPluginStorage implements PluginStorage {
  private readonly statements;

  constructor(private readonly store: Store, private readonly plugin: string) {
    const db = store.db;
    this.statements = {
      get: db.prepare<[string, string], string>('SELECT value FROM plugin_entries WHERE plugin = ? AND key = ?').pluck(),
      set: db.prepare<[{ plugin: string; key: string; value: string }]>(
        `INSERT INTO plugin_entries (plugin, key, seq, value)
         VALUES (@plugin, @key, (SELECT coalesce(max(seq), 0) + 1 FROM plugin_entries WHERE plugin = @plugin), @value)
         ON CONFLICT (plugin, key) DO UPDATE SET value = excluded.value`,
      ),
      delete: db.prepare<[string, string]>('DELETE FROM plugin_entries WHERE plugin = ? AND key = ?'),
      all: db.prepare<[string], { key: string; value: string }>('SELECT key, value FROM plugin_entries WHERE plugin = ? ORDER BY seq'),
      // Keys are compared as UTF-8 bytes (SQLite's BINARY collation), and every key starting with the prefix lies
      // between the prefix and the prefix followed by the byte 0xFF, which no UTF-8 text holds: so the range is
      // exact for any prefix, "%", "_" and characters beyond U+FFFF included (a "\uffff" bound would miss the latter,
      // and LIKE would need escaping and fold case). The bound is bound as bytes and read as text by the CAST.
      range: db.prepare<[string, string, Buffer], { key: string; value: string }>(
        'SELECT key, value FROM plugin_entries WHERE plugin = ? AND key >= ? AND key < CAST(? AS TEXT) ORDER BY seq',
      ),
    };
  }

  get<T extends JsonValue = JsonValue>(key: string): T | undefined {
    const value = this.statements.get.get(this.plugin, key);
    // The value is what this same plugin stored under the key; the plugin owns its shape.
    return value === undefined ? undefined : (JSON.parse(value) as T);
  }

  set(key: string, value: JsonValue, options: StorageWriteOptions = {}): Promise<void> {
    // Serialised now: what is stored is the value as it was when set, whatever the plugin does with it afterwards.
    const text: string | undefined = JSON.stringify(value);
    if (text === undefined) return Promise.reject(new TypeError(`plugin "${this.plugin}" stored a value without a JSON form under "${key}"`));
    const write = () => {
      this.statements.set.run({ plugin: this.plugin, key, value: text });
    };
    return options.lazy ? this.store.changeLazily(write, LAZY_WRITE_MS) : this.store.change(write);
  }

  /**
   * `set` inside a change the caller runs (synchronous), for the import of an earlier data dir, which writes every
   * plugin's entries in the one transaction that holds everything it imports.
   */
  setInChange(key: string, value: JsonValue): void {
    const text: string | undefined = JSON.stringify(value);
    if (text === undefined) throw new TypeError(`plugin "${this.plugin}" has a value without a JSON form under "${key}"`);
    this.statements.set.run({ plugin: this.plugin, key, value: text });
  }

  delete(key: string): Promise<void> {
    // Through the store even when the key looks absent: a set of it may be waiting for the same commit.
    return this.store.change(() => {
      this.statements.delete.run(this.plugin, key);
    });
  }

  *entries<T extends JsonValue = JsonValue>(prefix = ''): IterableIterator<[string, T]> {
    // Read whole before the first entry is handed out: a plugin may write while it walks them, and a statement
    // still iterating would hold the connection.
    const rows = prefix === ''
      ? this.statements.all.all(this.plugin)
      : this.statements.range.all(this.plugin, prefix, Buffer.concat([Buffer.from(prefix, 'utf8'), Buffer.of(0xff)]));
    for (const { key, value } of rows) yield [key, JSON.parse(value) as T];
  }
}
