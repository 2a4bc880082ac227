import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { systemClock } from '@crateflow/sdk';
import { MAX_TIMER_MS, steppedClock } from '../../sdk/src/stepped-clock.js';
import { ManualClock } from '../helpers/manual-clock.js';

const DAY = 86_400_000;

/** Collects the process warnings emitted while `during` runs. */
async function warningsDuring(during: () => Promise<void>): Promise<Error[]> {
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);
  process.on('warning', onWarning);
  try {
    await during();
    // Node emits a warning on the next tick after the call that caused it.
    await new Promise<void>((resolve) => setImmediate(resolve));
  } finally {
    process.off('warning', onWarning);
  }
  return warnings;
}

describe('systemClock', () => {
  for (const days of [30, 365]) {
    it(`waits ${days} days without Node's timer overflow, and the wait can be cancelled`, async () => {
      const clock = systemClock();
      let fired = 0;
      const warnings = await warningsDuring(async () => {
        const cancel = clock.schedule(days * DAY, () => fired++);
        // An overflowed timer fires after 1 ms; 50 ms of real time leaves it every chance to.
        await new Promise<void>((resolve) => setTimeout(resolve, 50));
        cancel();
      });
      assert.equal(fired, 0, `a ${days}-day timer fired within 50 ms`);
      assert.deepEqual(warnings.map((w) => `${w.name}: ${w.message}`), []);
    });
  }

  it('still fires a short wait', async () => {
    const clock = systemClock();
    // The clock's timers are unref'd: something else must hold the event loop open while the test waits.
    const keepAlive = setInterval(() => undefined, 1000);
    await new Promise<void>((resolve) => clock.schedule(5, resolve));
    clearInterval(keepAlive);
  });
});

describe('steppedClock', () => {
  /** A manual clock that records every delay it is asked to arm, so a test can check none passes the limit. */
  function recorded(maxStepMs?: number) {
    const manual = new ManualClock(0);
    const armed: number[] = [];
    const base = {
      now: () => manual.now(),
      schedule(ms: number, fn: () => void) {
        armed.push(ms);
        return manual.schedule(ms, fn);
      },
    };
    return { manual, armed, clock: steppedClock(base, maxStepMs) };
  }

  for (const days of [30, 365]) {
    it(`fires a ${days}-day wait exactly at its due time, arming no timer longer than 2^31 − 1 ms`, async () => {
      const { manual, armed, clock } = recorded();
      const due = days * DAY;
      const firedAt: number[] = [];
      clock.schedule(due, () => firedAt.push(manual.now()));
      await manual.advance(due - 1);
      assert.deepEqual(firedAt, []);
      await manual.advance(1);
      assert.deepEqual(firedAt, [due]);
      assert.ok(armed.length >= Math.ceil(due / MAX_TIMER_MS), `armed ${armed.length} steps`);
      assert.ok(armed.every((ms) => ms <= MAX_TIMER_MS), `armed ${armed.join(', ')}`);
      assert.equal(manual.pendingTimers, 0);
    });
  }

  it('re-arms from the time left on the clock, so time that moved on is not waited twice', async () => {
    const { manual, armed, clock } = recorded(10 * DAY);
    const firedAt: number[] = [];
    clock.schedule(30 * DAY, () => firedAt.push(manual.now()));
    await manual.advance(10 * DAY);
    assert.deepEqual(armed, [10 * DAY, 10 * DAY]);
    await manual.advance(20 * DAY);
    assert.deepEqual(armed, [10 * DAY, 10 * DAY, 10 * DAY]);
    assert.deepEqual(firedAt, [30 * DAY]);
  });

  it('cancels at every step: before the first re-arm and after several', async () => {
    for (const cancelAfterDays of [0, 1, 25, 50, 364]) {
      const { manual, clock } = recorded();
      let fired = 0;
      const cancel = clock.schedule(365 * DAY, () => fired++);
      await manual.advance(cancelAfterDays * DAY);
      cancel();
      assert.equal(manual.pendingTimers, 0, `a timer is left after cancelling on day ${cancelAfterDays}`);
      await manual.advance(400 * DAY);
      assert.equal(fired, 0, `fired although cancelled on day ${cancelAfterDays}`);
    }
  });

  it('passes a wait within the limit to the base clock unchanged', async () => {
    const { manual, armed, clock } = recorded();
    let fired = 0;
    clock.schedule(MAX_TIMER_MS, () => fired++);
    assert.deepEqual(armed, [MAX_TIMER_MS]);
    await manual.advance(MAX_TIMER_MS);
    assert.equal(fired, 1);
  });

  it('never fires a wait of Infinity', async () => {
    const { manual, clock } = recorded();
    let fired = 0;
    const cancel = clock.schedule(Number.POSITIVE_INFINITY, () => fired++);
    await manual.advance(3 * MAX_TIMER_MS);
    assert.equal(fired, 0);
    assert.equal(manual.pendingTimers, 1);
    cancel();
    assert.equal(manual.pendingTimers, 0);
  });
});
