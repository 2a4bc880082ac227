import { inject, injectable } from 'tsyringe';
import type { Clock } from '@crateflow/sdk';
import { Tokens } from '../di/tokens.js';
import { NotFoundError } from '../errors/not-found-error.js';
import { UnitOfWork } from '../events/unit-of-work.js';
import type { Job, JobProgress } from './job.schema.js';
import { JobsTable, type JobFilter } from './jobs-table.js';

/** What a running job reports as it goes: kept in memory only, since it means nothing after a restart. */
export interface LiveReport {
  progress?: JobProgress;
  eta?: string;
  summary?: Record<string, number>;
}

/**
 * The record of background work (`GET /api/v1/jobs`): what ran, when, and how it ended. Stored in the jobs table
 * (which archives old ones, see KEEP_JOBS_PER_KIND); the progress of a running job is kept here, in memory.
 */
@injectable()
export class JobLog {
  constructor(
    @inject(JobsTable) private readonly table: JobsTable,
    @inject(UnitOfWork) private readonly unitOfWork: UnitOfWork,
    @inject(Tokens.Clock) private readonly clock: Clock,
    @inject(Tokens.NewId) private readonly newId: () => string,
  ) {}

  // Progress of running jobs, by job id: merged into what get/list answer, dropped when the job ends. A write
  // to the store per progress report would cost a commit each for nothing a restart could use.
  private readonly live = new Map<string, LiveReport>();

  async start(kind: string, trigger: Job['trigger'], fields: { source?: string } = {}): Promise<Job> {
    return this.unitOfWork.mutate(() => {
      const job: Job = { id: this.newId(), kind, status: 'running', trigger, started_at: this.now(), summary: {}, ...fields };
      this.table.insert(job);
      return job;
    });
  }

  /** Records how far a running job is (in memory; see `live`). */
  report(id: string, report: LiveReport): void {
    if (this.table.get(id)?.status !== 'running') return;
    this.live.set(id, { ...this.live.get(id), ...report });
  }

  async finish(id: string, summary: Record<string, number>, fields: { note?: string } = {}): Promise<void> {
    this.live.delete(id);
    await this.unitOfWork.mutate(() => {
      const job = this.table.get(id);
      if (!job) return;
      this.table.update({ ...job, status: 'completed', finished_at: this.now(), summary, ...(fields.note !== undefined ? { note: fields.note } : {}) });
    });
  }

  async fail(id: string, error: string, summary: Record<string, number> = {}, fields: { retry_at?: string } = {}): Promise<void> {
    this.live.delete(id);
    await this.unitOfWork.mutate(() => {
      const job = this.table.get(id);
      if (!job) return;
      this.table.update({ ...job, status: 'failed', finished_at: this.now(), error, summary, ...(fields.retry_at !== undefined ? { retry_at: fields.retry_at } : {}) });
    });
  }

  /**
   * Marks jobs left `running` by a previous process (killed, or unable to record their end) as failed, so
   * `GET /api/v1/jobs` never shows a sync as running forever. Call once at startup, before any job starts.
   */
  async failInterrupted(): Promise<number> {
    if (this.table.running().length === 0) return 0;
    return this.unitOfWork.mutate(() => {
      const running = this.table.running();
      for (const job of running) {
        this.table.update({ ...job, status: 'failed', finished_at: this.now(), error: 'interrupted: the server stopped before this job finished' });
      }
      return running.length;
    });
  }

  /**
   * Records a failure of work that is not otherwise tracked as a job (a download poll, say). The same failure
   * repeated back to back updates one entry (`summary.occurrences`, `finished_at` = last seen) instead of adding
   * one per poll.
   */
  async recordFailure(kind: string, error: string): Promise<void> {
    const latest = this.latest(kind);
    if (latest?.status === 'failed' && latest.error === error) {
      await this.unitOfWork.mutate(() => {
        const job = this.table.get(latest.id);
        if (!job) return;
        this.table.update({ ...job, summary: { ...job.summary, occurrences: (job.summary.occurrences ?? 1) + 1 }, finished_at: this.now() });
      });
      return;
    }
    const job = await this.start(kind, 'schedule');
    await this.fail(job.id, error, { occurrences: 1 });
  }

  /** Any job, an archived one too. */
  get(id: string): Job {
    const job = this.table.get(id);
    if (!job) throw new NotFoundError('job', id);
    return this.view(job);
  }

  /** Any job (`GET /jobs/{id}`). */
  async find(id: string): Promise<Job> {
    return this.get(id);
  }

  /** Jobs not archived (newest first), then archived ones (most recently archived first). */
  list(filter: JobFilter & { limit: number; offset: number }): { items: Job[]; total: number; limit: number; offset: number } {
    const { items, total } = this.table.page(filter);
    return { items: items.map((job) => this.view(job)), total, limit: filter.limit, offset: filter.offset };
  }

  latest(kind: string, source?: string): Job | undefined {
    const job = this.table.latest(kind, source);
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
