import type { Database } from '../storage/database.js';
import type { JsonDocument } from '../storage/json-document.js';

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

export interface SourceStateData {
  sources: Record<string, SourceRecord>;
}

/**
 * `sources.json`: per source name, its last completed run and whether a run was cut short. Kept apart from the
 * job log, which prunes old jobs, so a source that last ran long ago still knows when.
 */
export class SourceState {
  /** Use {@link SourceState.open}. (Public only because the DI container names the class.) */
  constructor(private readonly doc: JsonDocument<SourceStateData>) {}

  static async open(database: Database): Promise<SourceState> {
    return new SourceState(await database.document<SourceStateData>('sources', () => ({ sources: {} }), { collections: ['sources'] }));
  }

  get(name: string): SourceRecord {
    return this.doc.data.sources[name] ?? {};
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

  private update(name: string, change: SourceRecord): Promise<void> {
    this.doc.data.sources[name] = { ...this.get(name), ...change };
    this.doc.touch('sources', name);
    return this.doc.commit();
  }
}
