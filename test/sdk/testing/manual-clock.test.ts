import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '@crateflow/sdk/testing';

describe('ManualClock', () => {
  it('fires due timers in time order during advance(), including ones scheduled on the way', async () => {
    const clock = new ManualClock(1000);
    const fired: string[] = [];
    clock.schedule(300, () => fired.push('b'));
    clock.schedule(100, () => {
      fired.push('a');
      clock.schedule(100, () => fired.push('a2'));
    });
    clock.schedule(900, () => fired.push('late'));
    await clock.advance(500);
    assert.deepEqual(fired, ['a', 'a2', 'b']);
    assert.equal(clock.now(), 1500);
    assert.equal(clock.pendingTimers, 1);
  });

  it('forgets a cancelled timer', async () => {
    const clock = new ManualClock();
    let fired = false;
    const cancel = clock.schedule(10, () => {
      fired = true;
    });
    cancel();
    await clock.advance(100);
    assert.equal(fired, false);
    assert.equal(clock.pendingTimers, 0);
  });
});
