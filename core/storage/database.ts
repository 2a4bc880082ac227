import { access, constants, mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { DataDirLock } from './data-dir-lock.js';
import { JsonDocument, type DocumentOptions } from './json-document.js';

export interface DatabaseOptions {
  /** Fold a change log into its snapshot past this size (tests make it small). */
  compactAfterBytes?: number;
  /** Claim the dir for this process (the service does; tools that only read, and storage tests, need not). */
  exclusive?: boolean;
  notice?: DocumentOptions['notice'];
}

/**
 * The one owner of the data dir. Each concern lives in its own JSON file (so a library sync does not rewrite
 * the queue, and a webhook attempt log does not rewrite the library); repositories ask for their document
 * here and nothing else touches the files.
 */
export class Database {
  private readonly documents = new Map<string, Pick<JsonDocument<object>, 'commit' | 'lastError' | 'close'>>();
  private readonly opening = new Map<string, Promise<unknown>>();
  private dirChecked: { at: number; problem: string | undefined } = { at: -Infinity, problem: undefined };

  private constructor(readonly dir: string, private readonly options: DatabaseOptions, private readonly lock: DataDirLock | undefined) {}

  static async open(dir: string, options: DatabaseOptions = {}): Promise<Database> {
    const absolute = resolve(dir);
    await mkdir(absolute, { recursive: true });
    const lock = options.exclusive ? await DataDirLock.acquire(absolute) : undefined;
    return new Database(absolute, options, lock);
  }

  /** The document stored as `<dir>/<name>.json`, created with `initial()` when the file does not exist yet. */
  async document<T extends object>(name: string, initial: () => T, options: Pick<DocumentOptions, 'collections' | 'sharedFields'> = {}): Promise<JsonDocument<T>> {
    if (!/^[a-z0-9][a-z0-9._-]*$/.test(name)) throw new Error(`"${name}" is not a valid document name`);
    const existing = this.opening.get(name);
    if (existing) return existing as Promise<JsonDocument<T>>; // one document per name; T is the caller's contract
    const opened = JsonDocument.open<T>(join(this.dir, `${name}.json`), initial, { ...options, compactAfterBytes: this.options.compactAfterBytes, notice: this.options.notice }).then((doc) => {
      this.documents.set(name, doc);
      return doc;
    });
    this.opening.set(name, opened);
    return opened;
  }

  /** Waits until every document's pending writes are on disk. */
  async flush(): Promise<void> {
    await Promise.all([...this.documents.values()].map((doc) => doc.commit()));
  }

  /** Folds every change log into its snapshot and closes the files (at shutdown). */
  async close(): Promise<void> {
    await Promise.all([...this.documents.values()].map((doc) => doc.close()));
    await this.lock?.release();
  }

  /**
   * Why the store cannot be written right now, or undefined when it can. The data dir's permissions are
   * checked at most once a second: /health asks on every probe, and the check was a sixth of its cost.
   */
  async writeProblem(now = Date.now()): Promise<string | undefined> {
    for (const doc of this.documents.values()) {
      if (doc.lastError) return `last write failed: ${doc.lastError.message}`;
    }
    if (now - this.dirChecked.at < 1000) return this.dirChecked.problem;
    try {
      await access(this.dir, constants.W_OK);
      this.dirChecked = { at: now, problem: undefined };
    } catch (err: unknown) {
      this.dirChecked = { at: now, problem: `data dir ${this.dir} is not writable: ${err instanceof Error ? err.message : String(err)}` };
    }
    return this.dirChecked.problem;
  }
}
