// tsyringe's decorators on JobScheduler need the Reflect polyfill loaded first, as start-app.ts does for app tests.
import 'reflect-metadata';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RecordingLogger } from '@crateflow/sdk/testing';
import { JobScheduler } from '../../../core/jobs/job-scheduler.js';
import { ManualClock } from '../../helpers/manual-clock.js';

/** A promise the test settles by hand, to hold a task "running". */
function deferred(): { promise: Promise<void>; resolve(): void; reject(err: Error): void } {
  let resolve = (): void => undefined;
  let reject = (_err: Error): void => undefined;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

function setup() {
  const clock = new ManualClock(0);
  const log = new RecordingLogger();
  return { clock, log, scheduler: new JobScheduler(clock, log) };
}

/** Lets promise callbacks and the microtasks they queue run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('JobScheduler', () => {
  it('runs a task first after its first delay, then every interval', async () => {
    const { clock, scheduler } = setup();
    const runs: number[] = [];
    scheduler.every('tick', 1000, async () => {
      runs.push(clock.now());
    }, 0);
    await clock.advance(0);
    await clock.advance(3500);
    assert.deepEqual(runs, [0, 1000, 2000, 3000]);
    await scheduler.stop();
  });

  it('never overlaps runs of one task: the next run is planned an interval after the current one ends', async () => {
    const { clock, scheduler } = setup();
    let started = 0;
    let running = 0;
    let most = 0;
    const gates: ReturnType<typeof deferred>[] = [];
    scheduler.every('slow', 100, async () => {
      started++;
      running++;
      most = Math.max(most, running);
      const gate = deferred();
      gates.push(gate);
      await gate.promise;
      running--;
    });
    await clock.advance(1000);
    assert.equal(started, 1, 'the first run is still going after ten intervals');
    const joined = scheduler.runNow('slow');
    await settle();
    assert.equal(started, 1, 'runNow() joins the running run instead of starting a second one');
    gates[0]?.resolve();
    await joined;
    await clock.advance(99);
    assert.equal(started, 1);
    await clock.advance(1);
    assert.equal(started, 2);
    assert.equal(most, 1);
    gates[1]?.resolve();
    await scheduler.stop();
  });

  it('logs a failed run with the task name and runs the task again at its next interval', async () => {
    const { clock, log, scheduler } = setup();
    let runs = 0;
    scheduler.every('flaky', 1000, async () => {
      runs++;
      if (runs === 1) throw new Error('the store is not writable');
    });
    await clock.advance(1000);
    await settle();
    const [failure] = log.at('error');
    assert.ok(failure, 'the failure is logged');
    assert.equal(failure.fields['task'], 'flaky');
    assert.match(String(failure.fields['err']), /the store is not writable/);
    await clock.advance(1000);
    assert.equal(runs, 2);
    await scheduler.stop();
  });

  it('survives a task that throws before returning a promise', async () => {
    const { clock, log, scheduler } = setup();
    let runs = 0;
    scheduler.every('sync-thrower', 1000, () => {
      runs++;
      throw new Error('thrown synchronously');
    });
    await clock.advance(3000);
    assert.equal(runs, 3);
    assert.equal(log.at('error').length, 3);
    await scheduler.stop();
  });

  it('stop() cancels planned runs and waits for a running one to end', async () => {
    const { clock, scheduler } = setup();
    const gate = deferred();
    let runs = 0;
    let finished = false;
    scheduler.every('long', 1000, async () => {
      runs++;
      await gate.promise;
      finished = true;
    });
    scheduler.every('idle', 500, async () => {
      runs++;
    }, 10_000);
    await clock.advance(1000);
    let stopped = false;
    const stopping = scheduler.stop().then(() => {
      stopped = true;
    });
    await settle();
    assert.equal(stopped, false, 'stop() waits for the running task');
    gate.resolve();
    await stopping;
    assert.equal(finished, true);
    assert.equal(clock.pendingTimers, 0, 'nothing is planned after stop()');
    await clock.advance(60_000);
    assert.equal(runs, 1);
  });

  it('does not run a task after stop(), even when asked with runNow()', async () => {
    const { scheduler } = setup();
    let runs = 0;
    scheduler.every('tick', 1000, async () => {
      runs++;
    });
    await scheduler.stop();
    await scheduler.runNow('tick');
    assert.equal(runs, 0);
    await assert.rejects(scheduler.runNow('unknown'), /no scheduled task "unknown"/);
  });

  it('tells when a task runs next, and nothing while it runs', async () => {
    const { clock, scheduler } = setup();
    const gate = deferred();
    scheduler.every('sync', 1000, () => gate.promise);
    assert.equal(scheduler.nextRunAt('sync'), 1000);
    await clock.advance(1000);
    assert.equal(scheduler.nextRunAt('sync'), undefined, 'running');
    gate.resolve();
    await settle();
    assert.equal(scheduler.nextRunAt('sync'), 2000);
    assert.equal(scheduler.nextRunAt('unknown'), undefined);
    await scheduler.stop();
    assert.equal(scheduler.nextRunAt('sync'), undefined, 'stopped');
  });

  it('runs a task again at the time a run asked for, then at its interval', async () => {
    const { clock, scheduler } = setup();
    const runs: number[] = [];
    scheduler.every('source', 10_000, async () => {
      runs.push(clock.now());
      if (runs.length === 1) scheduler.runAgainIn('source', 500);
    });
    await clock.advance(10_000);
    await settle();
    assert.equal(scheduler.nextRunAt('source'), 10_500);
    await clock.advance(500);
    await settle();
    assert.equal(scheduler.nextRunAt('source'), 20_500);
    assert.deepEqual(runs, [10_000, 10_500]);
    // Asked between runs, it replaces what is planned.
    scheduler.runAgainIn('source', 100);
    assert.equal(scheduler.nextRunAt('source'), 10_600);
    await scheduler.stop();
  });
});
