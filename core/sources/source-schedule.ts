import { inject, injectable } from 'tsyringe';
import type { Clock, Logger } from '@crateflow/sdk';
import { Tokens } from '../di/tokens.js';
import { JobScheduler } from '../jobs/job-scheduler.js';
import { SourceRunner } from './source-runner.js';
import { SourceStateTable } from './source-state-table.js';

/**
 * When sources run by themselves: each enabled source with a duration schedule every `schedule`, and, once the
 * server listens, at once the ones whose last run was cut short (to go on from their cursor) or that never ran.
 * A source that asks to be retried later (RetryLaterError) runs next at that time, then on its schedule again.
 */
@injectable()
export class SourceSchedule {
  constructor(
    @inject(SourceRunner) private readonly runner: SourceRunner,
    @inject(SourceStateTable) private readonly state: SourceStateTable,
    @inject(JobScheduler) private readonly scheduler: JobScheduler,
    @inject(Tokens.Clock) private readonly clock: Clock,
    @inject(Tokens.Log) private readonly log: Logger,
  ) {}

  /** Plans every scheduled source one interval from now (start-up runs come with `afterListen`). */
  start(): void {
    for (const source of this.runner.list()) {
      const intervalMs = source.intervalMs;
      if (!source.enabled || intervalMs === undefined) continue;
      this.scheduler.every(taskName(source.name), intervalMs, async () => {
        await this.runner.runOrJoin(source.name);
      });
    }
    // Scheduled or started through the API alike: a source that asked to be retried later is, then its schedule goes on.
    this.runner.onRunEnded((name, outcome) => {
      if (outcome.retryAtMs !== undefined) this.scheduler.runAgainIn(taskName(name), Math.max(0, outcome.retryAtMs - this.clock.now()));
    });
  }

  /**
   * Runs, now that requests are answered, the sources that are due at start-up: a run cut short (kill -9,
   * shutdown) goes on, whatever the schedule; a scheduled source that never ran makes its first run.
   */
  afterListen(): void {
    for (const source of this.runner.list()) {
      if (!source.enabled) continue;
      const record = this.state.get(source.name);
      const due = record.unfinished === true || (record.last_job === undefined && source.intervalMs !== undefined);
      if (!due) continue;
      this.log.info({ source: source.name, resumes: record.unfinished === true }, 'running source at start-up');
      const started = source.intervalMs === undefined ? this.runner.runOrJoin(source.name) : this.scheduler.runNow(taskName(source.name));
      started.catch((err: unknown) => this.log.error({ err, source: source.name }, 'source run at start-up could not start'));
    }
  }

  /** When the source runs next by itself (clock ms), or undefined: manual, disabled, or running now. */
  nextRunAt(name: string): number | undefined {
    return this.scheduler.nextRunAt(taskName(name));
  }
}

function taskName(source: string): string {
  return `source:${source}`;
}
