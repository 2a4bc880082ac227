import type { Database } from 'better-sqlite3';
import { ServiceUnavailableError } from '../errors/service-unavailable-error.js';
import { isStorageFailure } from '../integrity/storage-failure.js';

/** What a change gets besides the database: a way to act once its transaction is on disk. */
export interface ChangeContext {
  /** Runs `action` after the commit that holds this change is durable; never when the change is undone. */
  afterCommit(action: () => void): void;
}

export type Change<T> = (context: ChangeContext) => T;

interface Waiting {
  change: Change<unknown>;
  resolve(value: unknown): void;
  reject(reason: unknown): void;
}

type Outcome = { ok: true; value: unknown; actions: (() => void)[] } | { ok: false; error: unknown };

/** The change running right now: what to do once its transaction is durable, and whom to tell if it is undone. */
interface Running {
  actions: (() => void)[];
  undone: ((reason: unknown) => void)[];
}

const UNDONE_WITH_ITS_CHANGE = 'undone with the change it was made in';

/**
 * The unit of work: every change is synchronous SQL inside one transaction, and the changes that wait at the same
 * moment share it (group commit), so thirty-two approvals arriving together cost one write to the WAL and one
 * fsync, not thirty-two. Each change runs in its own savepoint: one that throws is undone alone and its caller gets
 * its error, while the others commit. A commit the disk refuses (full, read-only, failing) undoes the whole
 * transaction and every caller in it gets a 503, so a refused write leaves no trace. A caller's promise settles only
 * after the commit is durable, and `afterCommit` actions (publishing events) run only then.
 *
 * A change started while another runs (a plugin writing its storage from inside a change, see EventSink.record)
 * joins it: it runs at once in a savepoint of its own within the running change, commits with it, and is undone
 * with it; its own failure undoes only itself.
 */
export class GroupCommit {
  /** Transactions committed so far (benches and tests count commits per change with it). */
  committed = 0;
  /** Why the last transaction failed, until one commits again (/health reports it). */
  lastError: Error | undefined;
  private waiting: Waiting[] = [];
  private running: Running | undefined;
  /** A storage failure inside a joined change: the transaction's, even if the change around it caught it. */
  private storageFailure: unknown;
  /** The joined changes of this transaction, told if it fails. */
  private joinedInBatch: ((reason: unknown) => void)[] = [];
  private scheduled = false;
  private lazyTimer: NodeJS.Timeout | undefined;
  private readonly begin;
  private readonly commit;
  private readonly rollback;
  private readonly savepoint;
  private readonly release;
  private readonly rollbackToSavepoint;

  constructor(private readonly db: Database, private readonly onError: (err: unknown) => void = () => undefined) {
    this.begin = db.prepare('BEGIN IMMEDIATE');
    this.commit = db.prepare('COMMIT');
    this.rollback = db.prepare('ROLLBACK');
    this.savepoint = db.prepare('SAVEPOINT change');
    this.release = db.prepare('RELEASE change');
    this.rollbackToSavepoint = db.prepare('ROLLBACK TO change');
  }

  /** Runs `change` in the next transaction; resolves with its result once that transaction is on disk. */
  run<T>(change: Change<T>): Promise<T> {
    if (this.running) return this.join(this.running, change);
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ change, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        // setImmediate, not a microtask: requests whose bodies arrived in the same turn of the event loop join in.
        setImmediate(() => this.flush());
      }
    });
  }

  /**
   * Runs `change` with the next transaction that someone waits for, or within `maxDelayMs` when nobody does: for
   * writes whose loss in a crash costs only a repeat (a sink's acknowledgement), so they add no fsync of their own.
   */
  runLazily<T>(change: Change<T>, maxDelayMs: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ change, resolve: resolve as (value: unknown) => void, reject });
      if (this.scheduled || this.lazyTimer) return;
      this.lazyTimer = setTimeout(() => {
        this.lazyTimer = undefined;
        if (!this.scheduled) this.flush();
      }, maxDelayMs);
    });
  }

  /** Commits whatever waits now (also at shutdown, so nothing acknowledged-to-be is left behind). */
  flush(): void {
    this.scheduled = false;
    if (this.lazyTimer) clearTimeout(this.lazyTimer);
    this.lazyTimer = undefined;
    const batch = this.waiting;
    this.waiting = [];
    if (batch.length === 0) return;
    let outcomes: Outcome[];
    try {
      outcomes = this.runInTransaction(batch);
    } catch (err: unknown) {
      this.onError(err);
      this.lastError = err instanceof Error ? err : new Error(String(err));
      const refused = new ServiceUnavailableError('the change could not be saved (the data dir is full or not writable); nothing was changed', { cause: err });
      for (const entry of batch) entry.reject(refused);
      for (const reject of this.joinedInBatch) reject(refused);
      return;
    } finally {
      this.joinedInBatch = [];
    }
    for (const [i, entry] of batch.entries()) {
      const outcome = outcomes[i];
      if (outcome?.ok) {
        for (const action of outcome.actions) runQuietly(action, this.onError);
        entry.resolve(outcome.value);
      } else entry.reject(outcome?.error);
    }
  }

  private runInTransaction(batch: readonly Waiting[]): Outcome[] {
    this.storageFailure = undefined;
    this.begin.run();
    try {
      const outcomes = batch.map((entry) => this.runOne(entry.change));
      this.commit.run();
      this.committed++;
      this.lastError = undefined;
      return outcomes;
    } catch (err: unknown) {
      if (this.db.inTransaction) this.rollback.run();
      throw err;
    }
  }

  /** Runs `change` inside the running one (see the class comment); settles when that one's transaction does. */
  private join<T>(outer: Running, change: Change<T>): Promise<T> {
    let outcome: Outcome;
    try {
      outcome = this.runOne(change);
    } catch (err: unknown) {
      this.storageFailure ??= err;
      return Promise.reject(err);
    }
    if (!outcome.ok) return Promise.reject(outcome.error);
    const { value, actions } = outcome;
    return new Promise<T>((resolve, reject) => {
      outer.actions.push(...actions, () => resolve(value as T));
      outer.undone.push(reject);
      this.joinedInBatch.push(reject);
    });
  }

  private runOne(change: Change<unknown>): Outcome {
    const outer = this.running;
    const running: Running = { actions: [], undone: [] };
    this.running = running;
    this.savepoint.run();
    try {
      const value = change({ afterCommit: (action) => running.actions.push(action) });
      if (this.storageFailure !== undefined) throw this.storageFailure;
      this.release.run();
      return { ok: true, value, actions: running.actions };
    } catch (error: unknown) {
      // The disk failing under a statement is the transaction's failure, not this change's: undo them all.
      if (isStorageFailure(error) || error === this.storageFailure) throw error;
      this.rollbackToSavepoint.run();
      this.release.run();
      const undone = new Error(UNDONE_WITH_ITS_CHANGE, { cause: error });
      for (const reject of running.undone) reject(undone);
      return { ok: false, error };
    } finally {
      this.running = outer;
    }
  }
}

function runQuietly(action: () => void, onError: (err: unknown) => void): void {
  try {
    action();
  } catch (err: unknown) {
    onError(err);
  }
}
