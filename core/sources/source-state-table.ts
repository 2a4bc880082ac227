import type { Store } from '../storage/store.js';

/** What the core remembers of one source between runs and restarts. */
export interface SourceRecord {
  /** When its last successful run finished (ISO 8601): `SourceRun.lastCompletedAt`. */
  last_completed_at?: string;
  /** The job of its latest run, for `GET /api/v1/sources` (`last_run`). */
  last_job?: string;
  /**
   * Set when a run starts and cleared when it ends on its own (completed, or failed by the source): still set at
   * start-up means the process stopped during a run (kill -9, shutdown), so the source runs again soon and picks
   * up from the cursor it keeps in its storage.
   */
  unfinished?: boolean;
}

/**
 * `source_state`: per source name, its last completed run and whether a run was cut short. Kept apart from the job
 * log, which prunes old jobs, so a source that last ran long ago still knows when. Each update is a change of the
 * store, merged into the record as the change runs, so updates not awaited one by one still apply in order.
 */
export class SourceStateTable {
  private readonly statements;

  constructor(private readonly store: Store) {
    const db = store.db;
    this.statements = {
      get: db.prepare<[string], string>('SELECT record FROM source_state WHERE name = ?').pluck(),
      put: db.prepare<[string, string]>('INSERT INTO source_state (name, record) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET record = excluded.record'),
    };
  }

  get(name: string): SourceRecord {
    const record = this.statements.get.get(name);
    // Written by this table only, from a SourceRecord.
    return record === undefined ? {} : (JSON.parse(record) as SourceRecord);
  }

  /** Records that a run started (committed before the source is asked for anything). */
  started(name: string, jobId: string): Promise<void> {
    return this.update(name, { last_job: jobId, unfinished: true });
  }

  completed(name: string, at: string): Promise<void> {
    return this.update(name, { last_completed_at: at, unfinished: false });
  }

  /** The run ended by a failure of the source: the next one waits for the schedule (or the retry time). */
  failed(name: string): Promise<void> {
    return this.update(name, { unfinished: false });
  }

  /**
   * Stores a source's whole record inside a change the caller runs (synchronous), for the import of an earlier data
   * dir, which writes it in the one transaction that holds everything it imports.
   */
  putInChange(name: string, record: SourceRecord): void {
    this.statements.put.run(name, JSON.stringify(record));
  }

  private update(name: string, change: SourceRecord): Promise<void> {
    return this.store.change(() => {
      this.statements.put.run(name, JSON.stringify({ ...this.get(name), ...change }));
    });
  }
}
