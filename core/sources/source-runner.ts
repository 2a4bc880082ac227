import { inject, injectable } from 'tsyringe';
import { isRetryLaterError, SourceCandidate, type Clock, type KnownAs, type LibraryArtist, type Logger, type SourceRun } from '@crateflow/sdk';
import type { AppConfig } from '../config/app-config.schema.js';
import { Tokens } from '../di/tokens.js';
import { ConflictError } from '../errors/conflict-error.js';
import { NotFoundError } from '../errors/not-found-error.js';
import { ServiceUnavailableError } from '../errors/service-unavailable-error.js';
import { JobLog } from '../jobs/job-log.js';
import type { Job } from '../jobs/job.schema.js';
import { LibraryTable } from '../library/library-table.js';
import { PluginError } from '../plugins/plugin-error.js';
import type { LoadedPlugins } from '../plugins/plugin-host.js';
import { AlbumRegistry } from '../queue/album-registry.js';
import { QueueService } from '../queue/queue-service.js';
import { compileStrictOnFirstUse } from '../schema/ajv.js';
import { formatSchemaErrors } from '../schema/format-schema-errors.js';
import { addCandidates, emptyRunCounts, type RunCounts } from './add-candidates.js';
import { configuredSources, type ConfiguredSource } from './configured-source.js';
import { estimateEnd } from './estimate-end.js';
import { explainEmptyRun } from './explain-empty-run.js';
import { sourceRetryDelayMs } from './source-retry-delay.js';
import { SourceStateTable } from './source-state-table.js';

export const SOURCE_RUN_JOB = 'source_run';
// Invalid candidates logged per run; the job's `invalid` count has them all.
const LOGGED_INVALID = 5;
// A source's error message goes into the job log as it is, up to this length.
const MAX_ERROR_CHARS = 1000;

/** How a run ended, for the schedule: a service that asked to be retried later says when. */
export interface RunOutcome {
  status: 'completed' | 'failed' | 'interrupted';
  retryAtMs?: number;
}

export interface RunningSource {
  job: Job;
  /** Settles when the run has ended and its job is recorded; never rejects. */
  done: Promise<RunOutcome>;
}

/**
 * Runs discovery sources, one run at a time per source, each as a `source_run` job: asks the source for batches
 * of candidates, validates them (invalid ones are counted and logged, never stored) and adds each batch to the
 * pending queue before asking for the next, so a crash loses nothing a source was told was taken. Candidates the
 * user already owns, queued, wishlisted or rejected are counted, not added.
 */
@injectable()
export class SourceRunner {
  private readonly sources: ReadonlyMap<string, ConfiguredSource>;
  private readonly running = new Map<string, Promise<RunningSource>>();
  // Compiled at the first batch: an instance without sources never pays for it at start-up.
  private readonly validator = compileStrictOnFirstUse<SourceCandidate>(SourceCandidate);
  private readonly endListeners: ((name: string, outcome: RunOutcome) => void)[] = [];

  constructor(
    @inject(Tokens.Config) config: AppConfig,
    @inject(Tokens.Plugins) private readonly plugins: LoadedPlugins,
    @inject(SourceStateTable) private readonly state: SourceStateTable,
    @inject(JobLog) private readonly jobs: JobLog,
    @inject(QueueService) private readonly queue: QueueService,
    @inject(AlbumRegistry) private readonly known: AlbumRegistry,
    @inject(LibraryTable) private readonly library: LibraryTable,
    @inject(Tokens.Clock) private readonly clock: Clock,
    @inject(Tokens.Log) private readonly log: Logger,
    @inject(Tokens.ShutdownSignal) private readonly shutdown: AbortSignal,
  ) {
    this.sources = new Map(configuredSources(config, plugins).map((source) => [source.name, source]));
  }

  list(): ConfiguredSource[] {
    return [...this.sources.values()];
  }

  get(name: string): ConfiguredSource {
    const source = this.sources.get(name);
    if (!source) throw new NotFoundError('source', name);
    return source;
  }

  /** The job of the source's run in progress, if one is. */
  async current(name: string): Promise<Job | undefined> {
    const running = await this.running.get(name)?.catch(() => undefined);
    return running && this.jobs.get(running.job.id);
  }

  /** The source's latest run (in progress or ended), if it has run and the job log still holds it. */
  lastJob(name: string): Job | undefined {
    const id = this.state.get(name).last_job;
    if (id === undefined) return undefined;
    try {
      return this.jobs.get(id);
    } catch (err: unknown) {
      if (err instanceof NotFoundError) return undefined; // pruned from the job log
      throw err;
    }
  }

  /** Starts a run without waiting for it: 404 for an unknown source, 409 when it is disabled or already running. */
  async start(name: string, trigger: Job['trigger']): Promise<RunningSource> {
    const source = this.get(name);
    // A run started now would stop at once and count as interrupted: nothing to gain, a confusing job to show.
    if (this.shutdown.aborted) throw new ServiceUnavailableError('the server is shutting down');
    if (!source.enabled) throw new ConflictError(`source "${name}" is disabled (enabled: false in config.yaml)`, { source: name });
    const claimed = this.running.get(name);
    if (claimed) {
      const running = await claimed;
      throw new ConflictError(`source "${name}" is already running (job ${running.job.id})`, { source: name, job: this.jobs.get(running.job.id) });
    }
    // Claimed before the first await, so two requests arriving together cannot start two runs.
    const starting = this.begin(source, trigger);
    this.running.set(name, starting);
    starting.catch((err: unknown) => {
      this.log.debug({ err, source: name }, 'source run could not start');
      if (this.running.get(name) === starting) this.running.delete(name);
    });
    return starting;
  }

  /** Calls `listener` as each run ends (before its `done` settles). */
  onRunEnded(listener: (name: string, outcome: RunOutcome) => void): void {
    this.endListeners.push(listener);
  }

  /** For the schedule: a run, or the end of the one already in progress. */
  async runOrJoin(name: string): Promise<RunOutcome> {
    const claimed = this.running.get(name);
    if (claimed) return (await claimed).done;
    return (await this.start(name, 'schedule')).done;
  }

  /** Waits for runs in progress to end (after the shutdown signal aborted them), at most `timeoutMs`. */
  async whenIdle(timeoutMs: number): Promise<void> {
    const runs = [...this.running.values()].map((claim) => claim.then((r) => r.done).catch(() => undefined));
    if (runs.length === 0) return;
    let cancel = (): void => undefined;
    const deadline = new Promise<void>((resolve) => {
      cancel = this.clock.schedule(timeoutMs, () => {
        // Safe to go on: a run still going is recorded as interrupted at the next start (JobLog.failInterrupted).
        this.log.warn({ sources: [...this.running.keys()] }, 'a source did not stop within the shutdown timeout');
        resolve();
      });
    });
    await Promise.race([Promise.all(runs), deadline]);
    cancel();
  }

  private async begin(source: ConfiguredSource, trigger: Job['trigger']): Promise<RunningSource> {
    const job = await this.jobs.start(SOURCE_RUN_JOB, trigger, { source: source.name });
    try {
      await this.state.started(source.name, job.id);
    } catch (err: unknown) {
      await this.jobs.fail(job.id, 'the run could not be recorded as started').catch(() => undefined);
      throw err;
    }
    const done = this.execute(source, job).then((outcome) => {
      for (const listener of this.endListeners) listener(source.name, outcome);
      return outcome;
    });
    return { job, done };
  }

  /** One run, to its end: every outcome is recorded in the job, nothing is thrown. */
  private async execute(source: ConfiguredSource, job: Job): Promise<RunOutcome> {
    const startedMs = this.clock.now();
    const counts: RunCounts = emptyRunCounts();
    const invalidLogged = { count: 0 };
    const explained: { text?: string } = {};
    const run = this.runFor(source, job.id, startedMs, explained);
    let stopping = false;
    try {
      for await (const batch of source.plugin.instance.discover(run)) {
        const raw: unknown = batch;
        if (!Array.isArray(raw)) throw new Error('discover() yielded something that is not an array of candidates');
        await this.addBatch(source, raw, counts, invalidLogged);
        this.jobs.report(job.id, { summary: { ...counts } });
        // After a shutdown the source is resumed once more, so it can move its cursor past the batch just taken
        // and return; one that yields again anyway has that batch taken too, and is stopped.
        if (this.shutdown.aborted) {
          if (stopping) break;
          stopping = true;
        }
      }
      if (this.shutdown.aborted) return await this.interrupted(source, job, counts);
    } catch (err: unknown) {
      if (this.shutdown.aborted) return await this.interrupted(source, job, counts);
      return await this.failed(source, job, counts, err);
    }
    const finishedAt = new Date(this.clock.now()).toISOString();
    this.plugins.noteSuccess(source.plugin, new Date(this.clock.now()));
    try {
      await this.state.completed(source.name, finishedAt);
      this.release(source.name);
      const note = explainEmptyRun(counts, explained.text);
      await this.jobs.finish(job.id, { ...counts }, note === undefined ? {} : { note });
      this.log.info({ source: source.name, ...counts }, 'source run finished');
      return { status: 'completed' };
    } catch (err: unknown) {
      this.release(source.name);
      this.log.error({ err, source: source.name }, 'could not record the end of a source run');
      await this.recordFailure(job, `the end of the run could not be saved: ${err instanceof Error ? err.message : String(err)}`, counts);
      return { status: 'failed' };
    }
  }

  private runFor(source: ConfiguredSource, jobId: string, startedMs: number, explained: { text?: string }): SourceRun {
    let artists: Promise<readonly LibraryArtist[]> | undefined;
    return {
      signal: this.shutdown,
      lastCompletedAt: this.state.get(source.name).last_completed_at,
      progress: (done, total) => {
        if (!Number.isFinite(done) || done < 0) return;
        const whole = total !== undefined && Number.isFinite(total) && total >= 0 ? total : undefined;
        const now = this.clock.now();
        const eta = whole === undefined ? undefined : estimateEnd(startedMs, now, done, whole);
        this.jobs.report(jobId, { progress: whole === undefined ? { done } : { done, total: whole }, ...(eta === undefined ? {} : { eta: new Date(eta).toISOString() }) });
      },
      // A query now, a promise for the sdk: a failing read rejects it, as the read of the old catalogue file did.
      libraryArtists: () => (artists ??= Promise.resolve().then(() => this.library.artists())),
      known: (candidate) => this.knownAs(candidate),
      explain: (text) => {
        if (typeof text === 'string') explained.text = text;
      },
    };
  }

  private knownAs(candidate: { readonly mbid?: string; readonly artist: string; readonly album?: string }): KnownAs | undefined {
    const identity = { artist: candidate.artist, ...(candidate.album !== undefined ? { album: candidate.album } : {}), ...(candidate.mbid !== undefined ? { mbid: candidate.mbid } : {}) };
    const match = this.known.find(identity);
    if (match) return match.in === 'wishlist' ? 'wishlist' : match.status === 'rejected' ? 'rejected' : 'queue';
    return this.library.owns(identity) ? 'library' : undefined;
  }

  private async addBatch(source: ConfiguredSource, batch: readonly unknown[], counts: RunCounts, invalidLogged: { count: number }): Promise<void> {
    const valid: SourceCandidate[] = [];
    const validate = this.validator();
    for (const [index, candidate] of batch.entries()) {
      if (validate(candidate)) {
        valid.push(candidate);
        continue;
      }
      counts.invalid++;
      if (invalidLogged.count++ < LOGGED_INVALID) {
        const problems = formatSchemaErrors(validate.errors, `candidate[${index}]`).map((p) => `${p.path}: ${p.message}`);
        this.log.warn({ source: source.name, problems }, 'the source proposed an invalid candidate; it is skipped');
      }
    }
    await addCandidates(this.queue, source.name, valid, counts);
  }

  private async interrupted(source: ConfiguredSource, job: Job, counts: RunCounts): Promise<RunOutcome> {
    // `unfinished` stays set: the next start runs the source again, from the cursor in its storage.
    this.release(source.name);
    await this.recordFailure(job, 'interrupted: the server shut down during the run; it goes on after the next start', counts);
    return { status: 'interrupted' };
  }

  private async failed(source: ConfiguredSource, job: Job, counts: RunCounts, err: unknown): Promise<RunOutcome> {
    const failure = new PluginError(source.plugin.name, 'discover', { cause: err });
    this.plugins.noteFailure(source.plugin, failure, new Date(this.clock.now()));
    const message = bounded(err instanceof Error ? err.message : String(err));
    const retryAtMs = isRetryLaterError(err) ? this.clock.now() + sourceRetryDelayMs(err.retryAfterMs) : undefined;
    this.log.error({ err: failure, source: source.name }, 'source run failed');
    await this.state.failed(source.name).catch((stateErr: unknown) => this.log.error({ err: stateErr, source: source.name }, 'could not record a failed source run'));
    this.release(source.name);
    await this.recordFailure(job, message, counts, retryAtMs === undefined ? {} : { retry_at: new Date(retryAtMs).toISOString() });
    return retryAtMs === undefined ? { status: 'failed' } : { status: 'failed', retryAtMs };
  }

  private async recordFailure(job: Job, message: string, counts: RunCounts, fields: { retry_at?: string } = {}): Promise<void> {
    await this.jobs.fail(job.id, message, { ...counts }, fields).catch((err: unknown) =>
      // Safe to go on: a job left "running" is marked interrupted at the next start (JobLog.failInterrupted).
      this.log.error({ err, job: job.id }, 'could not record the end of a source run'),
    );
  }

  /** Lets the next run of the source start: in the same turn as its job leaves `running` (see LibraryService). */
  private release(name: string): void {
    this.running.delete(name);
  }
}

function bounded(message: string): string {
  return message.length > MAX_ERROR_CHARS ? `${message.slice(0, MAX_ERROR_CHARS)}…` : message;
}
