import { Low, type Adapter } from 'lowdb';
import { ChangeLog, type ChangeSet } from './change-log.js';
import { SharedValues } from './shared-values.js';
import { setOwn, SnapshotFile } from './snapshot-file.js';

/** Past this size the log is folded into a new snapshot at the next commit. */
export const DEFAULT_COMPACT_AFTER_BYTES = 8 * 1024 * 1024;

export interface DocumentOptions {
  /** Fold the change log into the snapshot past this size (tests make it small). */
  compactAfterBytes?: number;
  /** Top-level fields that are keyed collections: the snapshot stores them one record per line. */
  collections?: Iterable<string>;
  /** Record fields whose values repeat across records (a status, a type): each distinct value is kept once in memory. */
  sharedFields?: readonly string[];
  /** Told about things an operator should know that do not stop the document (a torn log tail, a failed compaction). */
  notice?: (message: string, details: Record<string, unknown>) => void;
}

/** Thrown to the commits of changes that were dropped because an earlier write failed. */
export class DiscardedChangeError extends Error {}

/**
 * One JSON document of the store, held in memory: a snapshot (`<name>.json`) plus an append-only change log
 * (`<name>.json.changes`).
 *
 * Writers say what they changed with `touch()` (a record of a keyed collection, or a whole top-level field);
 * `commit()` then appends just those records to the log, instead of rewriting the whole file. A commit with
 * nothing touched writes a full snapshot (for documents that are replaced wholesale, like the library).
 *
 * Group commit: every `commit()` made while a write is in flight joins the one queued write behind it, so N
 * concurrent mutations cost at most two disk flushes. A `commit()` resolves only after a write that
 * serialised the data after the call has reached the disk.
 *
 * A write that fails is undone: the document is read back from disk (the state of the last acknowledged
 * commit), every commit not yet on disk is rejected, and `onRollback` listeners rebuild what they derived
 * from the data. So a refused change is never served, never saved by a later write and never announced.
 */
export class JsonDocument<T extends object> {
  private queued: Promise<void> | undefined;
  private tail: Promise<void> = Promise.resolve();
  private failure: Error | undefined;
  private broken: Error | undefined;
  private writes = 0;
  private epoch = 0;
  private touchedRecords = new Map<string, Set<string>>();
  private touchedFields = new Set<string>();
  private snapshotWanted = false;
  private nextCompactionAt: number;
  private rolling: Promise<void> | undefined;
  private readonly rollbackListeners = new Set<() => void | Promise<void>>();
  private readonly beforeAppendHooks = new Set<() => Promise<void>>();

  private constructor(
    private readonly low: Low<T>,
    private readonly file: SnapshotFile,
    private readonly log: ChangeLog,
    readonly path: string,
    private readonly initial: () => T,
    private readonly collections: ReadonlySet<string>,
    private readonly compactAfterBytes: number,
    private readonly notice: NonNullable<DocumentOptions['notice']>,
  ) {
    this.nextCompactionAt = compactAfterBytes;
  }

  static async open<T extends object>(path: string, initial: () => T, options: DocumentOptions = {}): Promise<JsonDocument<T>> {
    const file = new SnapshotFile(path);
    const log = new ChangeLog(`${path}.changes`);
    const notice = options.notice ?? (() => undefined);
    const { data, replayed, tornBytes } = await load(file, log, initial, { shared: new SharedValues(options.sharedFields ?? []) });
    if (tornBytes > 0) notice('the change log ended in a torn line (a crash in the middle of a write, never acknowledged); it was cut off', { file: log.path, bytes: tornBytes });
    const low = new Low<T>(noFileAdapter<T>(), data);
    const collections = new Set(options.collections ?? []);
    const doc = new JsonDocument(low, file, log, path, initial, collections, options.compactAfterBytes ?? DEFAULT_COMPACT_AFTER_BYTES, notice);
    // Fold the log in now. This also cuts off a torn last line, which the next append would otherwise be glued
    // onto (a log holding nothing but a torn line replays nothing, yet must be emptied too).
    if (replayed > 0 || tornBytes > 0) await doc.writeSnapshot();
    return doc;
  }

  /**
   * Reads a document as it stands on disk (snapshot plus change log) without changing any file, so another
   * process may do it while the service runs (tests, backups, inspection).
   */
  static async peek(path: string): Promise<unknown> {
    const { data } = await load(new SnapshotFile(path), new ChangeLog(`${path}.changes`), () => ({}), { keepTemp: true });
    return data;
  }

  /** The live data. Mutate it, `touch()` what changed, then `await commit()` before answering or announcing it. */
  get data(): T {
    return this.low.data;
  }

  /**
   * While a failed write is being undone: the data is about to be replaced and `onRollback` listeners are
   * rebuilding what they derive from it. Writers that keep such derived state wait for it before changing data.
   */
  get rollingBack(): Promise<void> | undefined {
    return this.rolling;
  }

  get lastError(): Error | undefined {
    return this.broken ?? this.failure;
  }

  /** How many disk writes (appends or snapshots) have happened, for tests and benchmarks of group commit. */
  get writeCount(): number {
    return this.writes;
  }

  /** Bytes in the change log now (tests and benchmarks of write amplification). */
  get logBytes(): number {
    return this.log.bytes;
  }

  /** Marks `data[field][key]` as changed (set or deleted), or the whole `data[field]` when `key` is omitted. */
  touch(field: keyof T & string, key?: string): void {
    this.mark(field, key);
  }

  /** Runs `listener` after a failed write put the data back to its last state on disk. */
  onRollback(listener: () => void | Promise<void>): () => void {
    this.rollbackListeners.add(listener);
    return () => this.rollbackListeners.delete(listener);
  }

  /**
   * Runs `hook` before every write; if it throws, the write fails (and is rolled back). For files whose bytes a
   * commit refers to (the decided history): they must be on disk before the log line that counts them.
   */
  beforeWrite(hook: () => Promise<void>): void {
    this.beforeAppendHooks.add(hook);
  }

  commit(): Promise<void> {
    if (this.broken) return Promise.reject(new Error(`${this.path} cannot take changes until restart: after a failed write it could not be read back (${this.broken.message})`, { cause: this.broken }));
    if (this.touchedRecords.size === 0 && this.touchedFields.size === 0) this.snapshotWanted = true;
    if (this.queued) return this.queued;
    const epoch = this.epoch;
    const run = this.tail.then(() => {
      this.queued = undefined; // from here on, the data is being serialised: later commits need the next write
      if (epoch !== this.epoch) throw new DiscardedChangeError(`a change to ${this.path} was dropped because an earlier write failed`, { cause: this.failure });
      return this.write();
    });
    this.queued = run;
    this.tail = run.catch(() => undefined); // each commit's caller sees its own failure; the chain goes on
    return run;
  }

  /** Folds the change log into a new snapshot (at shutdown). A failure is reported, not thrown: the log holds everything. */
  async compact(): Promise<void> {
    await this.commitQuietly();
    this.tail = this.tail.then(() => this.tryCompaction());
    await this.tail;
  }

  async close(): Promise<void> {
    await this.compact();
    await this.log.close();
  }

  private async commitQuietly(): Promise<void> {
    if (this.touchedRecords.size === 0 && this.touchedFields.size === 0 && !this.queued) return;
    await this.commit().catch((err: unknown) => this.notice('a last write failed at close; it was not acknowledged', { file: this.path, err }));
  }

  private async write(): Promise<void> {
    this.writes++;
    const snapshotOnly = this.snapshotWanted && this.touchedRecords.size === 0 && this.touchedFields.size === 0;
    const changes = this.collectChanges();
    this.touchedRecords = new Map();
    this.touchedFields = new Set();
    this.snapshotWanted = false;
    try {
      for (const hook of this.beforeAppendHooks) await hook();
      // A document replaced wholesale has nothing to log: its snapshot is the commit.
      if (snapshotOnly) await this.writeSnapshot();
      else await this.log.append(changes);
      this.failure = undefined;
    } catch (err: unknown) {
      this.failure = err instanceof Error ? err : new Error(String(err));
      await this.rollBack();
      throw new Error(`could not write ${this.path}: ${this.failure.message}`, { cause: err });
    }
    if (!snapshotOnly && this.log.bytes > this.nextCompactionAt) await this.tryCompaction();
  }

  /**
   * Puts the data back to what is on disk: the changes of the failed write and of every commit queued behind it
   * are dropped (their commits reject), and listeners rebuild their views of the data.
   */
  private async rollBack(): Promise<void> {
    const done = this.readBack();
    this.rolling = done;
    try {
      await done;
    } finally {
      this.rolling = undefined;
    }
  }

  private async readBack(): Promise<void> {
    this.forgetUnwritten();
    let data: T;
    try {
      data = (await load(this.file, this.log, this.initial, { keepTemp: true })).data;
    } catch (err: unknown) {
      // Memory may hold a change that is not on disk and cannot be undone: refuse every later change.
      this.broken = err instanceof Error ? err : new Error(String(err));
      this.notice('after a failed write the document could not be read back; it refuses changes until restart', { file: this.path, err });
      return;
    }
    // A change made while the file was being read went into the data being thrown away: its commit must fail
    // too. Left alone, it would log its records as they stand in the data read back (absent: a deletion) and be
    // acknowledged although nothing of it was kept.
    this.forgetUnwritten();
    this.low.data = data;
    for (const listener of this.rollbackListeners) await listener();
  }

  /** Drops every change not yet written: commits queued until now reject with DiscardedChangeError. */
  private forgetUnwritten(): void {
    this.epoch++;
    this.queued = undefined;
    this.touchedRecords = new Map();
    this.touchedFields = new Set();
    this.snapshotWanted = false;
  }

  /**
   * Folds the log into a new snapshot. Runs right after an append, with no mutation in between, so the
   * snapshot's state is exactly the log's end. A failure (a full disk) costs nothing acknowledged: the log still
   * holds every change, the temp file is removed, and the next attempt waits until the log has grown by another
   * threshold instead of rewriting everything at every commit.
   */
  private async tryCompaction(): Promise<void> {
    try {
      await this.writeSnapshot();
    } catch (err: unknown) {
      this.nextCompactionAt = this.log.bytes + this.compactAfterBytes;
      this.notice('could not fold the change log into a new snapshot; every change is still in the log, trying again later', { file: this.path, err, log_bytes: this.log.bytes });
    }
  }

  private async writeSnapshot(): Promise<void> {
    await this.file.write(this.low.data, this.collections);
    await this.log.clear();
    this.nextCompactionAt = this.compactAfterBytes;
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

async function load<T extends object>(file: SnapshotFile, log: ChangeLog, initial: () => T, options: { keepTemp?: boolean; shared?: SharedValues } = {}) {
  const snapshot = await file.read(options);
  // A fresh document starts from `initial()`; a stored one keeps its fields over the initial ones, so a field
  // added in a later version appears with its initial value.
  const data: T = Object.assign(initial(), snapshot ?? {});
  const { changes, tornBytes } = await log.read();
  for (const change of changes) applyChanges(data, change, options.shared);
  return { data, replayed: changes.length, tornBytes };
}

function applyChanges(data: object, changes: ChangeSet, shared: SharedValues | undefined): void {
  for (const [field, value] of changes.put ?? []) Reflect.set(data, field, value);
  for (const [field, key, value] of changes.set ?? []) {
    shared?.share(value);
    const collection: unknown = Reflect.get(data, field);
    if (isObject(collection)) setOwn(collection, key, value);
    else Reflect.set(data, field, Object.defineProperty({}, key, { value, writable: true, enumerable: true, configurable: true }));
  }
  for (const [field, key] of changes.del ?? []) {
    const collection: unknown = Reflect.get(data, field);
    if (isObject(collection)) delete collection[key];
  }
}

/** lowdb holds the data; reading and writing the files is ours (it rewrites whole files and cannot fsync). */
function noFileAdapter<T>(): Adapter<T> {
  return {
    read: () => Promise.resolve(null),
    write: () => Promise.reject(new Error('JsonDocument writes through its change log and snapshot, not lowdb.write()')),
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
