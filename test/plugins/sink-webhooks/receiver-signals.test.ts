import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeWebhookReceiver, type WebhookReply } from '../../fakes/fake-webhook-receiver.js';
import { ManualClock } from '../../helpers/manual-clock.js';
import { sampleEvent } from './sample-events.js';
import { startWebhookSink, type StartedSink } from './start-webhook-sink.js';
import { waitUntil } from './wait-until.js';

const SECOND = 1000;

/** A sink with one webhook (retry: 5) to a receiver that answers `first` once, then 200. */
async function sinkAnswering(t: { after(fn: () => Promise<void>): void }, first: (clock: ManualClock) => WebhookReply) {
  const clock = new ManualClock();
  const receiver = await startFakeWebhookReceiver((_request, index) => (index === 0 ? first(clock) : {}));
  const started = await startWebhookSink({ clock, webhooks: [{ name: 'hook', url: receiver.url, retry: 5, events: ['download_completed'] }] });
  t.after(async () => {
    await started.close();
    await receiver.close();
  });
  return { clock, receiver, started };
}

/** The delay the outbox scheduled after the first failed attempt, from the delivery log. */
async function firstRetryDelay(started: StartedSink, clock: ManualClock, t0: number): Promise<number> {
  await waitUntil('the failed attempt is logged', () => (started.admin.deliveries({ limit: 1, offset: 0 }).items[0]?.attempts.length ?? 0) > 0);
  const [delivery] = started.admin.deliveries({ limit: 1, offset: 0 }).items;
  const next = delivery?.attempts[0]?.next_retry_at;
  assert.ok(next, `the first attempt has a next retry: ${JSON.stringify(delivery)}`);
  assert.equal(clock.pending()[0], Date.parse(next), 'the timer fires when the log says');
  return Date.parse(next) - t0;
}

describe('webhooks sink: what receivers signal', () => {
  it('treats 410 Gone as final: no retry despite retry: 5, the webhook is flagged, and later events are not sent', async (t) => {
    const { clock, receiver, started } = await sinkAnswering(t, () => ({ status: 410, body: 'unsubscribed' }));
    await started.sink.deliver(sampleEvent('download_completed'));
    await waitUntil('the delivery failed', () => started.admin.deliveries({ limit: 1, offset: 0 }).items[0]?.status === 'failed');
    const [delivery] = started.admin.deliveries({ limit: 1, offset: 0 }).items;
    assert.equal(delivery?.attempts.length, 1);
    assert.equal(delivery?.attempts[0]?.status_code, 410);
    assert.equal(delivery?.attempts[0]?.next_retry_at, null);
    assert.match(delivery?.attempts[0]?.error ?? '', /410 Gone.*final/);
    assert.equal(delivery?.next_attempt_at, null);
    const [target] = started.admin.targets();
    assert.equal(target?.gone_at, delivery?.attempts[0]?.at, 'GET /webhooks shows when the receiver went away');

    await clock.advance(120 * SECOND);
    await started.sink.deliver(sampleEvent('download_completed'));
    await waitUntil('the second delivery failed', () => started.admin.deliveries({ limit: 10, offset: 0, status: 'failed' }).total === 2);
    assert.equal(receiver.received.length, 1, 'nothing more is sent to a receiver that answered 410');
    const [second] = started.admin.deliveries({ limit: 1, offset: 0 }).items;
    assert.match(second?.attempts[0]?.error ?? '', /not sent: the receiver answered 410 Gone/);
  });

  it('lifts the 410 flag when the operator redelivers, and sends again', async (t) => {
    const { receiver, started } = await sinkAnswering(t, () => ({ status: 410 }));
    await started.sink.deliver(sampleEvent('download_completed'));
    await waitUntil('the delivery failed', () => started.admin.deliveries({ limit: 1, offset: 0 }).items[0]?.status === 'failed');
    const id = started.admin.deliveries({ limit: 1, offset: 0 }).items[0]?.id ?? '';
    const outcome = await started.admin.redeliver(id);
    assert.equal(outcome.ok, true);
    await waitUntil('the redelivery arrived', () => started.admin.deliveries({ limit: 1, offset: 0 }).items[0]?.status === 'delivered');
    assert.equal(receiver.received.length, 2);
    assert.equal(started.admin.targets()[0]?.gone_at, undefined);
  });

  it('waits the seconds a 429 asks for in Retry-After instead of the 2 s step', async (t) => {
    const { clock, receiver, started } = await sinkAnswering(t, () => ({ status: 429, headers: { 'retry-after': '10' } }));
    const t0 = clock.now();
    await started.sink.deliver(sampleEvent('download_completed'));
    assert.equal(await firstRetryDelay(started, clock, t0), 10 * SECOND);
    await clock.advance(10 * SECOND - 1);
    assert.equal(receiver.received.length, 1, 'no retry before the receiver said');
    await clock.advance(1);
    await receiver.waitFor(2);
  });

  it('waits until the HTTP-date a 503 gives in Retry-After', async (t) => {
    const { clock, started } = await sinkAnswering(t, (c) => ({ status: 503, headers: { 'retry-after': new Date(c.now() + 20 * SECOND).toUTCString() } }));
    const t0 = clock.now();
    await started.sink.deliver(sampleEvent('download_completed'));
    assert.equal(await firstRetryDelay(started, clock, t0), 20 * SECOND);
  });

  it('never waits beyond the schedule’s longest step (32 s), whatever Retry-After asks', async (t) => {
    const { clock, started } = await sinkAnswering(t, () => ({ status: 503, headers: { 'retry-after': '3600' } }));
    const t0 = clock.now();
    await started.sink.deliver(sampleEvent('download_completed'));
    assert.equal(await firstRetryDelay(started, clock, t0), 32 * SECOND);
  });

  it('keeps the schedule’s step when Retry-After asks for less, is malformed, or comes with another status', async (t) => {
    for (const reply of [
      { status: 429, headers: { 'retry-after': '1' } },
      { status: 503, headers: { 'retry-after': 'soon' } },
      { status: 500, headers: { 'retry-after': '20' } },
    ]) {
      const { clock, started } = await sinkAnswering(t, () => reply);
      const t0 = clock.now();
      await started.sink.deliver(sampleEvent('download_completed'));
      assert.equal(await firstRetryDelay(started, clock, t0), 2 * SECOND, JSON.stringify(reply));
    }
  });
});
