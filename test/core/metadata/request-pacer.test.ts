import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RequestPacer } from '../../../core/metadata/request-pacer.js';
import { ManualClock } from '../../helpers/manual-clock.js';

/** Lets calls that need no wait start before the test moves the clock (advance() moves it at once). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('RequestPacer', () => {
  it('starts the first call at once and each later one an interval after the previous, in arrival order', async () => {
    const clock = new ManualClock();
    const pacer = new RequestPacer(clock, 1000);
    const t0 = clock.now();
    const started: [string, number][] = [];
    const calls = ['a', 'b', 'c'].map((name) => pacer.run(async () => started.push([name, clock.now() - t0])));
    await settle();
    await clock.advance(2000);
    await Promise.all(calls);
    assert.deepEqual(started, [['a', 0], ['b', 1000], ['c', 2000]]);
  });

  it('does not save up idle time for a burst later', async () => {
    const clock = new ManualClock();
    const pacer = new RequestPacer(clock, 1000);
    await pacer.run(async () => undefined);
    await clock.advance(60_000);
    const t1 = clock.now();
    const started: number[] = [];
    const calls = [1, 2].map(() => pacer.run(async () => started.push(clock.now() - t1)));
    await settle();
    await clock.advance(1000);
    await Promise.all(calls);
    assert.deepEqual(started, [0, 1000]);
  });

  it('holds callers that are already waiting until the hold ends', async () => {
    const clock = new ManualClock();
    const pacer = new RequestPacer(clock, 1000);
    const t0 = clock.now();
    const started: number[] = [];
    await pacer.run(async () => started.push(clock.now() - t0));
    const waiting = pacer.run(async () => started.push(clock.now() - t0));
    pacer.holdUntil(t0 + 5000);
    await clock.advance(5000);
    await waiting;
    assert.deepEqual(started, [0, 5000]);
  });
});
