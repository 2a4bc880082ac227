import { Low } from 'lowdb';
import { AtomicJsonFile } from './atomic-json-file.js';
import { ChangeLog, type ChangeSet } from './change-log.js';

/** Past this size the log is folded into a new snapshot at the next commit. */
export const DEFAULT_COMPACT_AFTER_BYTES = 8 * 1024 * 1024;

/**
 * One JSON document of the store, held in memory: a lowdb snapshot (`<name>.json`) plus an append-only change
 * log (`<name>.json.changes`).
 *
 * Writers say what they changed with `touch()` (a record of a keyed collection, or a whole top-level field);
 * `commit()` then appends just those records to the log, instead of rewriting the whole file. A commit with
 * nothing touched writes a full snapshot (for documents that are replaced wholesale, like the library).
 *
 * Group commit: every `commit()` made while a write is in flight joins the one queued write behind it, so N
 * concurrent mutations cost at most two disk flushes. A `commit()` resolves only after a write that
 * serialised the data after the call has reached the disk.
 */
export class JsonDocument<T extends object> {
  private queued: Promise<void> | undefined;
  private tail: Promise<void> = Promise.resolve();
  private failure: Error | undefined;
  private writes = 0;
  private touchedRecords = new Map<string, Set<string>>();
  private touchedFields = new Set<string>();
  private snapshotWanted = false;

  private constructor(
    private readonly low: Low<T>,
    private readonly file: AtomicJsonFile<T>,
    private readonly log: ChangeLog,
    readonly path: string,
    private readonly compactAfterBytes: number,
  ) {}

  static async open<T extends object>(path: string, initial: () => T, compactAfterBytes = DEFAULT_COMPACT_AFTER_BYTES): Promise<JsonDocument<T>> {
    const file = new AtomicJsonFile<T>(path);
    const low = new Low<T>(file, initial());
    await low.read();
    const log = new ChangeLog(`${path}.changes`);
    const replayed = await log.readAll();
    for (const changes of replayed) applyChanges(low.data, changes);
    const doc = new JsonDocument(low, file, log, path, compactAfterBytes);
    // Fold the log in now. This also cuts off a torn last line, which the next append would otherwise be glued
    // onto (a log holding nothing but a torn line replays nothing, yet must be emptied too).
    if (replayed.length > 0 || log.hasTornTail) await doc.snapshot();
    return doc;
  }

  /**
   * Reads a document as it stands on disk (snapshot plus change log) without changing any file, so another
   * process may do it while the service runs (tests, backups, inspection).
   */
  static async peek(path: string): Promise<unknown> {
    const snapshot = await new AtomicJsonFile<Record<string, unknown>>(path).read({ keepTemp: true });
    const data = snapshot ?? {};
    for (const changes of await new ChangeLog(`${path}.changes`).readAll()) applyChanges(data, changes);
    return data;
  }

  /** The live data. Mutate it, `touch()` what changed, then `await commit()` before answering or announcing it. */
  get data(): T {
    return this.low.data;
  }

  get lastError(): Error | undefined {
    return this.failure;
  }

  /** How many disk writes (appends or snapshots) have happened, for tests and benchmarks of group commit. */
  get writeCount(): number {
    return this.writes;
  }

  /** Marks `data[field][key]` as changed (set or deleted), or the whole `data[field]` when `key` is omitted. */
  touch(field: keyof T & string, key?: string): void {
    this.mark(field, key);
  }

  commit(): Promise<void> {
    if (this.touchedRecords.size === 0 && this.touchedFields.size === 0) this.snapshotWanted = true;
    if (this.queued) return this.queued;
    const run = this.tail.then(() => {
      this.queued = undefined; // from here on, the data is being serialised: later commits need the next write
      return this.write();
    });
    this.queued = run;
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Writes everything into a new snapshot and empties the log (at shutdown, and when the log grows large). */
  async compact(): Promise<void> {
    this.snapshotWanted = true;
    await this.commit();
  }

  async close(): Promise<void> {
    await this.compact();
    await this.log.close();
  }

  private async write(): Promise<void> {
    this.writes++;
    const snapshot = this.snapshotWanted || this.log.bytes > this.compactAfterBytes;
    const changes = this.collectChanges();
    this.touchedRecords = new Map();
    this.touchedFields = new Set();
    this.snapshotWanted = false;
    try {
      if (snapshot) await this.snapshot(changes);
      else await this.log.append(changes);
      this.failure = undefined;
    } catch (err: unknown) {
      this.failure = err instanceof Error ? err : new Error(String(err));
      // What was not written goes into the next write, logged like any change, and that write is a snapshot.
      this.retouch(changes);
      this.snapshotWanted = true;
      throw new Error(`could not write ${this.path}: ${this.failure.message}`, { cause: err });
    }
  }

  /**
   * Folds the log into a new snapshot. The snapshot's bytes are taken at the same moment as `changes` (no
   * mutation can come between), and `changes` are appended to the log before the snapshot replaces the old
   * one, so the log always ends exactly at the new snapshot's state. A crash after the rename and before the
   * truncation then replays the log onto the new snapshot and gets that same state. (A log that stopped short
   * of it would roll back the records it mentions and keep the rest: half a mutation, e.g. an approved queue
   * item back to pending while its wishlist item stays.)
   */
  private async snapshot(changes: ChangeSet = {}): Promise<void> {
    const text = JSON.stringify(this.low.data);
    if ((changes.set?.length ?? 0) + (changes.del?.length ?? 0) + (changes.put?.length ?? 0) > 0) await this.log.append(changes);
    await this.file.writeText(text);
    await this.log.clear();
  }

  private retouch(changes: ChangeSet): void {
    for (const [field, key] of [...(changes.set ?? []), ...(changes.del ?? [])]) this.mark(field, key);
    for (const [field] of changes.put ?? []) this.mark(field);
  }

  private mark(field: string, key?: string): void {
    if (key === undefined) {
      this.touchedFields.add(field);
      return;
    }
    const keys = this.touchedRecords.get(field) ?? new Set<string>();
    keys.add(key);
    this.touchedRecords.set(field, keys);
  }

  private collectChanges(): ChangeSet {
    const data: object = this.low.data;
    const changes: Required<ChangeSet> = { set: [], del: [], put: [] };
    for (const [field, keys] of this.touchedRecords) {
      if (this.touchedFields.has(field)) continue; // the whole field goes in `put`
      const collection: unknown = Reflect.get(data, field);
      for (const key of keys) {
        const value = isObject(collection) && Object.hasOwn(collection, key) ? collection[key] : undefined;
        if (value === undefined) changes.del.push([field, key]);
        else changes.set.push([field, key, value]);
      }
    }
    for (const field of this.touchedFields) changes.put.push([field, Reflect.get(data, field)]);
    return changes;
  }
}

function applyChanges(data: object, changes: ChangeSet): void {
  for (const [field, value] of changes.put ?? []) Reflect.set(data, field, value);
  for (const [field, key, value] of changes.set ?? []) {
    const collection: unknown = Reflect.get(data, field);
    if (isObject(collection)) collection[key] = value;
    else Reflect.set(data, field, { [key]: value });
  }
  for (const [field, key] of changes.del ?? []) {
    const collection: unknown = Reflect.get(data, field);
    if (isObject(collection)) delete collection[key];
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
