import { Low } from 'lowdb';
import { AtomicJsonFile } from './atomic-json-file.js';

/**
 * One JSON file of the store, held in memory, with group commit: every `commit()` made while a write is in
 * flight joins the one queued write behind it, so N concurrent mutations cost at most two file writes, not N.
 * A `commit()` resolves only after a write that serialised the data after the call has reached the disk.
 */
export class JsonDocument<T> {
  /** The write that has not serialised the data yet; a commit made now is included by joining it. */
  private queued: Promise<void> | undefined;
  /** The latest write, settled or not; never rejects, so it can be chained on. */
  private tail: Promise<void> = Promise.resolve();
  private failure: Error | undefined;
  private writes = 0;

  private constructor(private readonly low: Low<T>, readonly path: string) {}

  static async open<T>(path: string, initial: () => T): Promise<JsonDocument<T>> {
    const low = new Low<T>(new AtomicJsonFile<T>(path), initial());
    await low.read();
    return new JsonDocument(low, path);
  }

  /** The live data. Mutate it, then `await commit()` before answering or announcing the change. */
  get data(): T {
    return this.low.data;
  }

  /** The last write's error, until a later write succeeds. */
  get lastError(): Error | undefined {
    return this.failure;
  }

  /** How many file writes have happened (for tests and benchmarks of group commit). */
  get writeCount(): number {
    return this.writes;
  }

  commit(): Promise<void> {
    if (this.queued) return this.queued;
    const run = this.tail.then(() => {
      this.queued = undefined; // from here on, the data is being serialised: later commits need the next write
      return this.write();
    });
    this.queued = run;
    this.tail = run.catch(() => undefined);
    return run;
  }

  private async write(): Promise<void> {
    this.writes++;
    try {
      await this.low.write();
      this.failure = undefined;
    } catch (err: unknown) {
      this.failure = err instanceof Error ? err : new Error(String(err));
      throw new Error(`could not write ${this.path}: ${this.failure.message}`, { cause: err });
    }
  }
}
