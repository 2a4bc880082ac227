import { inject, injectable } from 'tsyringe';
import type { Clock } from '@crateflow/sdk';
import { Tokens } from '../di/tokens.js';
import { NotFoundError } from '../errors/not-found-error.js';
import { CoreStore } from '../storage/core-store.js';
import { pageWithArchive, type RecordPage } from '../storage/page-with-archive.js';
import type { Job, JobProgress } from './job.schema.js';

// Kept in the core document per kind (and per source for source runs); older ones move to the archive, still
// listed and found by id. Per kind, so a flood of one kind (a download client down for hours) never pushes out
// another's latest runs, nor a source that runs hourly the last run of one that runs daily.
export const KEEP_JOBS_PER_KIND = 100;

/** What a running job reports as it goes: kept in memory only, since it means nothing after a restart. */
export interface LiveReport {
  progress?: JobProgress;
  eta?: string;
  summary?: Record<string, number>;
}

/** The record of background work (`GET /api/v1/jobs`): what ran, when, and how it ended. Old entries move to the archive. */
@injectable()
export class JobLog {
  constructor(
    @inject(CoreStore) private readonly store: CoreStore,
    @inject(Tokens.Clock) private readonly clock: Clock,
    @inject(Tokens.NewId) private readonly newId: () => string,
  ) {}

  // Progress of running jobs, by job id: merged into what get/list answer, dropped when the job ends. A write
  // to the store per progress report would cost a commit each for nothing a restart could use.
  private readonly live = new Map<string, LiveReport>();

  async start(kind: string, trigger: Job['trigger'], fields: { source?: string } = {}): Promise<Job> {
    return this.store.mutate((data, _emit, { archive }) => {
      const job: Job = { id: this.newId(), kind, status: 'running', trigger, started_at: this.now(), summary: {}, ...fields };
      data.jobs[job.id] = job;
      // Finished jobs of this kind beyond the limit move out (the new one counts; running ones always stay).
      const finished = Object.values(data.jobs).filter((j) => j.kind === kind && j.source === job.source && j.status !== 'running');
      for (const old of finished.slice(0, Math.max(0, finished.length - (KEEP_JOBS_PER_KIND - 1)))) {
        archive.stage('jobs', old, { kind: old.kind, status: old.status });
        delete data.jobs[old.id];
      }
      return job;
    });
  }

  /** Records how far a running job is (in memory; see `live`). */
  report(id: string, report: LiveReport): void {
    if (this.store.data.jobs[id]?.status !== 'running') return;
    this.live.set(id, { ...this.live.get(id), ...report });
  }

  async finish(id: string, summary: Record<string, number>, fields: { note?: string } = {}): Promise<void> {
    this.live.delete(id);
    await this.store.mutate((data) => {
      const job = data.jobs[id];
      if (!job) return;
      job.status = 'completed';
      job.finished_at = this.now();
      job.summary = summary;
      if (fields.note !== undefined) job.note = fields.note;
    });
  }

  async fail(id: string, error: string, summary: Record<string, number> = {}, fields: { retry_at?: string } = {}): Promise<void> {
    this.live.delete(id);
    await this.store.mutate((data) => {
      const job = data.jobs[id];
      if (!job) return;
      job.status = 'failed';
      job.finished_at = this.now();
      job.error = error;
      job.summary = summary;
      if (fields.retry_at !== undefined) job.retry_at = fields.retry_at;
    });
  }

  /**
   * Marks jobs left `running` by a previous process (killed, or unable to record their end) as failed, so
   * `GET /api/v1/jobs` never shows a sync as running forever. Call once at startup, before any job starts.
   */
  async failInterrupted(): Promise<number> {
    if (!Object.values(this.store.data.jobs).some((job) => job.status === 'running')) return 0;
    return this.store.mutate((data) => {
      let count = 0;
      for (const job of Object.values(data.jobs)) {
        if (job.status !== 'running') continue;
        job.status = 'failed';
        job.finished_at = this.now();
        job.error = 'interrupted: the server stopped before this job finished';
        count++;
      }
      return count;
    });
  }

  /** Records a failure of work that is not otherwise tracked as a job (a download poll, say). */
  /**
   * Records a failure of work that is not otherwise tracked as a job (a download poll, say). The same failure
   * repeated back to back updates one entry (`summary.occurrences`, `finished_at` = last seen) instead of adding
   * one per poll.
   */
  async recordFailure(kind: string, error: string): Promise<void> {
    const latest = this.latest(kind);
    if (latest?.status === 'failed' && latest.error === error) {
      await this.store.mutate((data) => {
        const job = data.jobs[latest.id];
        if (!job) return;
        job.summary = { ...job.summary, occurrences: (job.summary.occurrences ?? 1) + 1 };
        job.finished_at = this.now();
      });
      return;
    }
    const job = await this.start(kind, 'schedule');
    await this.fail(job.id, error, { occurrences: 1 });
  }

  /** A job still in the core document (every running one is). */
  get(id: string): Job {
    const job = this.store.data.jobs[id];
    if (!job) throw new NotFoundError('job', id);
    return this.view(job);
  }

  /** Any job, also one moved to the archive (`GET /jobs/{id}`). */
  async find(id: string): Promise<Job> {
    const job = this.store.data.jobs[id];
    if (job) return this.view(job);
    const archived = await this.store.archive.get('jobs', id, isArchivedJob);
    if (!archived) throw new NotFoundError('job', id);
    return archived;
  }

  /** Jobs in the core document (newest first), then those moved to the archive. */
  list(filter: { kind?: string; status?: Job['status']; limit: number; offset: number }): Promise<RecordPage<Job>> {
    const live = Object.values(this.store.data.jobs)
      .filter((j) => (!filter.kind || j.kind === filter.kind) && (!filter.status || j.status === filter.status))
      .reverse()
      .map((j) => this.view(j));
    const filters: Record<string, string> = {};
    if (filter.kind) filters.kind = filter.kind;
    if (filter.status) filters.status = filter.status;
    return pageWithArchive(live, this.store.archive, { collection: 'jobs', filters, isRecord: isArchivedJob }, filter);
  }

  latest(kind: string, source?: string): Job | undefined {
    const job = Object.values(this.store.data.jobs).reverse().find((j) => j.kind === kind && (source === undefined || j.source === source));
    return job && this.view(job);
  }

  /** A job as clients see it: the stored record, with the live report of a running one. */
  private view(job: Job): Job {
    const report = job.status === 'running' ? this.live.get(job.id) : undefined;
    if (!report) return job;
    return { ...job, ...report, summary: { ...job.summary, ...report.summary } };
  }

  private now(): string {
    return new Date(this.clock.now()).toISOString();
  }
}

/** What every reader of an archived job relies on (it was a checked record when archived). */
function isArchivedJob(value: unknown): value is Job {
  if (typeof value !== 'object' || value === null) return false;
  return ['id', 'kind', 'status', 'started_at'].every((field) => typeof Reflect.get(value, field) === 'string') && typeof Reflect.get(value, 'summary') === 'object';
}
