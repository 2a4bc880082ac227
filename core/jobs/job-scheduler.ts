import { inject, injectable } from 'tsyringe';
import type { Clock, Logger } from '@crateflow/sdk';
import { Tokens } from '../di/tokens.js';

interface Task {
  name: string;
  intervalMs: number;
  run: () => Promise<void>;
  cancel?: () => void;
  running?: Promise<void>;
}

/**
 * The one scheduler for periodic work (download polling, library sync). A task's next run is planned only
 * after its current run ends, so runs of one task never overlap; a failing run is logged and the schedule
 * goes on; `stop()` cancels what is planned and waits for what is running.
 */
@injectable()
export class JobScheduler {
  private readonly tasks = new Map<string, Task>();
  private stopped = false;

  constructor(@inject(Tokens.Clock) private readonly clock: Clock, @inject(Tokens.Log) private readonly log: Logger) {}

  /** Runs `run` every `intervalMs`, first after `firstDelayMs` (default: one interval). */
  every(name: string, intervalMs: number, run: () => Promise<void>, firstDelayMs = intervalMs): void {
    const task: Task = { name, intervalMs, run };
    this.tasks.set(name, task);
    this.plan(task, firstDelayMs);
  }

  /** Runs a task now, unless it is already running (then waits for that run). */
  async runNow(name: string): Promise<void> {
    const task = this.tasks.get(name);
    if (!task) throw new Error(`no scheduled task "${name}"`);
    if (task.running) return task.running;
    task.cancel?.();
    await this.execute(task);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const task of this.tasks.values()) task.cancel?.();
    await Promise.all([...this.tasks.values()].map((t) => t.running));
  }

  private plan(task: Task, delayMs: number): void {
    if (this.stopped) return;
    task.cancel = this.clock.schedule(delayMs, () => {
      task.cancel = undefined;
      void this.execute(task);
    });
  }

  private async execute(task: Task): Promise<void> {
    if (task.running || this.stopped) return;
    // Started inside a promise, so a task that throws before returning one is logged like any failed run
    // instead of escaping from the timer callback as an uncaught exception.
    task.running = Promise.resolve()
      .then(task.run)
      .catch((err: unknown) => this.log.error({ err, task: task.name }, 'scheduled task failed; it runs again at its next interval'))
      .finally(() => {
        task.running = undefined;
        this.plan(task, task.intervalMs);
      });
    return task.running;
  }
}
