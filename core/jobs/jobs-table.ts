import type { Statement } from 'better-sqlite3';
import type { Store } from '../storage/store.js';
import type { Job } from './job.schema.js';

export type JobStatus = Job['status'];

/**
 * Finished jobs kept at the head of the list per kind (and per source for source runs); older ones are archived:
 * still kept, found by id and listed, but after every job not archived. Per kind, so a flood of one kind (a
 * download client down for hours) never pushes another's latest runs down the list, nor a source that runs hourly
 * the last run of one that runs daily. The database keeps them all; the rule is kept so `GET /jobs` pages as before.
 */
export const KEEP_JOBS_PER_KIND = 100;

export interface JobFilter {
  kind?: string;
  status?: JobStatus;
}

/**
 * The record of background work in the database (`jobs`), replacing the job log's part of the core document and
 * the archive file. Lists read as before: jobs not archived newest first, then archived ones most recently
 * archived first, with the same kind and status filters. Progress of a running job is not stored (JobLog keeps it
 * in memory).
 *
 * The only module that writes its rows, every write through `rowOf`, so the columns always agree with the record.
 * Writes are synchronous SQL for inside a `store.change`; reads work anywhere.
 */
export class JobsTable {
  private readonly statements;
  private readonly pages = new Map<string, { live: Statement; archived: Statement; liveCount: Statement; count: Statement }>();

  constructor(private readonly store: Store) {
    const db = store.db;
    this.statements = {
      insert: db.prepare('INSERT INTO jobs (id, kind, source, status, archived_seq, record) VALUES (@id, @kind, @source, @status, NULL, @record)'),
      update: db.prepare('UPDATE jobs SET kind = @kind, source = @source, status = @status, record = @record WHERE id = @id AND archived_seq IS NULL'),
      // The finished jobs of the new one's kind and source past the newest KEEP - 1 (the new one makes KEEP), oldest
      // archived first; numbered in the FROM subquery, which the window function makes SQLite compute whole first.
      archiveOld: db.prepare(`UPDATE jobs SET archived_seq = picked.n
        FROM (SELECT seq, row_number() OVER (ORDER BY seq)
            + coalesce((SELECT archived_seq FROM jobs WHERE archived_seq IS NOT NULL ORDER BY archived_seq DESC LIMIT 1), 0) AS n
          FROM (SELECT seq FROM jobs WHERE kind = @kind AND source IS @source AND archived_seq IS NULL AND status <> 'running' AND seq <> @seq
            ORDER BY seq DESC LIMIT -1 OFFSET ${KEEP_JOBS_PER_KIND - 1})) AS picked
        WHERE jobs.seq = picked.seq`),
      get: db.prepare('SELECT record FROM jobs WHERE id = ?').pluck(),
      latest: db.prepare('SELECT record FROM jobs WHERE kind = ? AND archived_seq IS NULL ORDER BY seq DESC LIMIT 1').pluck(),
      latestOfSource: db.prepare('SELECT record FROM jobs WHERE kind = ? AND source IS ? AND archived_seq IS NULL ORDER BY seq DESC LIMIT 1').pluck(),
      running: db.prepare("SELECT record FROM jobs WHERE status = 'running' AND archived_seq IS NULL ORDER BY seq").pluck(),
    };
  }

  /**
   * Adds a job (inside a change), and archives the finished jobs of its kind and source beyond the newest
   * KEEP_JOBS_PER_KIND, the new one counted (running ones never go).
   */
  insert(job: Job): void {
    const row = rowOf(job);
    const seq = Number(this.statements.insert.run(row).lastInsertRowid);
    this.statements.archiveOld.run({ kind: row.kind, source: row.source, seq });
  }

  /** Rewrites a job's record (inside a change): it ended, or its summary grew. Throws for one archived or unknown. */
  update(job: Job): void {
    if (this.statements.update.run(rowOf(job)).changes === 0) throw new Error(`job "${job.id}" is archived or unknown; only a job not archived changes`);
  }

  /** Any job, archived ones included. */
  get(id: string): Job | undefined {
    const record = this.statements.get.get(id);
    return typeof record === 'string' ? (JSON.parse(record) as Job) : undefined;
  }

  /** The latest job of `kind` (and of `source`, when given). */
  latest(kind: string, source?: string): Job | undefined {
    const record = source === undefined ? this.statements.latest.get(kind) : this.statements.latestOfSource.get(kind, source);
    return typeof record === 'string' ? (JSON.parse(record) as Job) : undefined;
  }

  /** Jobs still running, oldest first (at start-up: those a previous process left behind). */
  running(): Job[] {
    return (this.statements.running.all() as string[]).map((record) => JSON.parse(record) as Job);
  }

  /** Jobs not archived (of `kind`, `status`), newest first, then archived ones, most recently archived first. */
  page(filter: JobFilter & { offset: number; limit: number }): { items: Job[]; total: number } {
    const statements = this.pageStatements(filter);
    const params = [...(filter.kind === undefined ? [] : [filter.kind]), ...(filter.status === undefined ? [] : [filter.status])];
    const records = statements.live.all(...params, filter.limit, filter.offset) as string[];
    if (records.length < filter.limit) {
      const live = Number(statements.liveCount.get(...params));
      records.push(...(statements.archived.all(...params, filter.limit - records.length, Math.max(0, filter.offset - live)) as string[]));
    }
    return { items: records.map((record) => JSON.parse(record) as Job), total: Number(statements.count.get(...params)) };
  }

  /** The statements of one combination of filters, prepared on first use (four at most). */
  private pageStatements(filter: JobFilter): { live: Statement; archived: Statement; liveCount: Statement; count: Statement } {
    const shape = `${filter.kind !== undefined}/${filter.status !== undefined}`;
    let statements = this.pages.get(shape);
    if (!statements) {
      const where = [...(filter.kind === undefined ? [] : ['kind = ?']), ...(filter.status === undefined ? [] : ['status = ?'])];
      const and = where.map((term) => ` AND ${term}`).join('');
      const db = this.store.db;
      // Rows are picked on the index alone, then their records read: a deep page skips index entries, not records.
      statements = {
        live: db.prepare(`SELECT record FROM jobs WHERE seq IN (
          SELECT seq FROM jobs WHERE archived_seq IS NULL${and} ORDER BY seq DESC LIMIT ? OFFSET ?) ORDER BY seq DESC`).pluck(),
        archived: db.prepare(`SELECT record FROM jobs WHERE seq IN (
          SELECT seq FROM jobs WHERE archived_seq IS NOT NULL${and} ORDER BY archived_seq DESC LIMIT ? OFFSET ?) ORDER BY archived_seq DESC`).pluck(),
        liveCount: db.prepare(`SELECT coalesce(sum(n), 0) FROM job_counts WHERE archived = 0${and}`).pluck(),
        count: db.prepare(`SELECT coalesce(sum(n), 0) FROM job_counts WHERE 1${and}`).pluck(),
      };
      this.pages.set(shape, statements);
    }
    return statements;
  }
}

function rowOf(job: Job): Record<string, string | null> {
  // Progress and expected end are reported while a job runs and mean nothing after a restart: never stored.
  const { progress: _progress, eta: _eta, ...stored } = job;
  return { id: stored.id, kind: stored.kind, source: stored.source ?? null, status: stored.status, record: JSON.stringify(stored) };
}
