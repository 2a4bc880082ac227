import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { startFakeWebhookReceiver } from '../../fakes/fake-webhook-receiver.js';
import { ManualClock } from '../../helpers/manual-clock.js';
import { CONCURRENCY_PER_TARGET } from '../../../plugins/sink-webhooks/index.js';
import { sampleEvent } from './sample-events.js';
import { startWebhookSink } from './start-webhook-sink.js';

describe('webhooks sink: concurrency', () => {
  it('keeps delivering to a healthy webhook while another one hangs', async (t) => {
    // The slow one holds every request for 25 s: the fast one's 40 must all arrive while it still holds its first ones,
    // however loaded the machine (an order, not a duration; issue #27).
    const slow = await startFakeWebhookReceiver(() => ({ delayMs: 25_000 }));
    const fast = await startFakeWebhookReceiver();
    const started = await startWebhookSink({
      clock: new ManualClock(),
      webhooks: [
        { name: 'slow', url: slow.url, timeout_ms: 30_000, events: ['queue_added'] },
        { name: 'fast', url: fast.url, events: ['queue_added'] },
      ],
    });
    t.after(async () => {
      await started.close();
      await slow.close();
      await fast.close();
    });
    for (let i = 0; i < 40; i++) await started.sink.deliver(sampleEvent('queue_added'));
    await fast.waitFor(40, 20_000);
    assert.equal(slow.received.length, CONCURRENCY_PER_TARGET, 'the healthy webhook got all 40 while the slow one still held its own slots, and only those');
  });

  it('opens at most the per-target limit of concurrent requests to one webhook during a burst', async (t) => {
    const receiver = await startFakeWebhookReceiver(() => ({ delayMs: 400 }));
    const started = await startWebhookSink({ clock: new ManualClock(), webhooks: [{ name: 'busy', url: receiver.url, events: ['queue_added'] }] });
    t.after(async () => {
      await started.close();
      await receiver.close();
    });
    await Promise.all(Array.from({ length: 30 }, () => started.sink.deliver(sampleEvent('queue_added'))));
    await receiver.waitFor(CONCURRENCY_PER_TARGET);
    await delay(200);
    assert.equal(receiver.received.length, CONCURRENCY_PER_TARGET, 'the rest wait for a free slot');
    await receiver.waitFor(30, 60_000);
  });
});
