import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConcurrencyLimit } from '../../../core/concurrency/concurrency-limit.js';

describe('ConcurrencyLimit', () => {
  it('runs at most the limit at once and the rest in arrival order, also when tasks fail', async () => {
    const limit = new ConcurrencyLimit({ concurrent: 2 });
    let running = 0;
    let peak = 0;
    const order: number[] = [];
    const task = (n: number) => limit.run(async () => {
      peak = Math.max(peak, ++running);
      order.push(n);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running--;
      if (n === 1) throw new Error('task 1 fails');
      return n;
    });
    const results = await Promise.allSettled([1, 2, 3, 4, 5].map(task));
    assert.equal(peak, 2);
    assert.deepEqual(order, [1, 2, 3, 4, 5]);
    assert.deepEqual(results.map((result) => result.status), ['rejected', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    assert.deepEqual(limit.load, { running: 0, waiting: 0 });
  });
});
