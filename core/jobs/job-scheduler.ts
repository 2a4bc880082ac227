import { inject, injectable } from 'tsyringe';
import type { Clock, Logger } from '@crateflow/sdk';
import { Tokens } from '../di/tokens.js';

interface Task {
  name: string;
  intervalMs: number;
  run: () => Promise<void>;
  cancel?: () => void;
  /** When the planned run is due (clock ms); undefined while none is planned (running, or stopped). */
  dueAt?: number;
  /** The delay before the run after the current one, instead of the interval (a service asked to retry later). */
  nextDelayMs?: number;
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

  /** When a task's next run is planned (clock ms), or undefined while it runs or when it is not scheduled. */
  nextRunAt(name: string): number | undefined {
    return this.tasks.get(name)?.dueAt;
  }

  /**
   * Plans a task's next run `delayMs` from now instead of one interval on (then the interval again): called from
   * a run, it applies when that run ends; otherwise it replaces what is planned.
   */
  runAgainIn(name: string, delayMs: number): void {
    const task = this.tasks.get(name);
    if (!task) return;
    if (task.running) {
      task.nextDelayMs = delayMs;
      return;
    }
    task.cancel?.();
    this.plan(task, delayMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const task of this.tasks.values()) task.cancel?.();
    await Promise.all([...this.tasks.values()].map((t) => t.running));
  }

  private plan(task: Task, delayMs: number): void {
    if (this.stopped) return;
    task.dueAt = this.clock.now() + delayMs;
    const cancel = this.clock.schedule(delayMs, () => {
      task.cancel = undefined;
      task.dueAt = undefined;
      void this.execute(task);
    });
    task.cancel = () => {
      cancel();
      task.cancel = undefined;
      task.dueAt = undefined;
    };
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
        const delay = task.nextDelayMs ?? task.intervalMs;
        task.nextDelayMs = undefined;
        this.plan(task, delay);
      });
    return task.running;
  }
}
