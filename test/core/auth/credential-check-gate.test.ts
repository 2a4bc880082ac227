import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CredentialCheckGate } from '../../../core/auth/credential-check-gate.js';
import { CredentialChecksBusyError } from '../../../core/errors/credential-checks-busy-error.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('CredentialCheckGate', () => {
  it('runs at most `concurrent` checks at once, in arrival order, and refuses past the queue at once', async () => {
    const gate = new CredentialCheckGate({ concurrent: 1, queued: 2 });
    const order: number[] = [];
    const releases: Array<() => void> = [];
    const check = (n: number) => () => new Promise<number>((resolve) => releases.push(() => { order.push(n); resolve(n); }));
    const runs = [gate.run(check(1)), gate.run(check(2)), gate.run(check(3))];
    await assert.rejects(gate.run(check(4)), CredentialChecksBusyError);
    await tick();
    assert.deepEqual(gate.load, { running: 1, waiting: 2 });
    assert.equal(releases.length, 1, 'only the first check has started');
    for (let i = 0; i < 3; i++) {
      releases[i]?.();
      await tick();
    }
    assert.deepEqual(await Promise.all(runs), [1, 2, 3]);
    assert.deepEqual(order, [1, 2, 3]);
    assert.deepEqual(gate.load, { running: 0, waiting: 0 });
  });

  it('frees the slot when a check throws', async () => {
    const gate = new CredentialCheckGate({ concurrent: 1, queued: 0 });
    await assert.rejects(gate.run(() => Promise.reject(new Error('plugin failed'))), /plugin failed/);
    assert.equal(await gate.run(() => Promise.resolve('next')), 'next');
  });
});
