/** At most this many distinct values are shared per document; later new ones are kept as parsed. */
const MAX_SHARED = 10_000;

/**
 * One string per distinct value of the record fields that repeat across records (a status, a type, a source,
 * an artist): JSON.parse makes a new string for every occurrence, so 55,000 stored items held three copies of
 * "album", "pending" and their source each — about 5 MB of heap at 100,000 stored items. Fields are named by the
 * document's owner; the pool is bounded, so a field that turns out to hold unique values costs no more than that.
 */
export class SharedValues {
  private readonly pool = new Map<string, string>();

  constructor(private readonly fields: readonly string[]) {}

  /** Replaces the named string fields of `record` (a parsed record, not yet shared) with their shared copies. */
  share(record: unknown): void {
    if (this.fields.length === 0 || typeof record !== 'object' || record === null) return;
    for (const field of this.fields) {
      const value: unknown = Reflect.get(record, field);
      if (typeof value !== 'string') continue;
      const shared = this.pool.get(value);
      if (shared !== undefined) Reflect.set(record, field, shared);
      else if (this.pool.size < MAX_SHARED) this.pool.set(value, value);
    }
  }
}
