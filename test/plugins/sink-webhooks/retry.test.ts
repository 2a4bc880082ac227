import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { startFakeWebhookReceiver } from '../../fakes/fake-webhook-receiver.js';
import { ManualClock } from '../../helpers/manual-clock.js';
import { sampleEvent } from './sample-events.js';
import { startWebhookSink } from './start-webhook-sink.js';
import { waitUntil } from './wait-until.js';

const SECOND = 1000;

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = address && typeof address === 'object' ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('webhooks sink: failures and retries', () => {
  it('retries a failing delivery after 2, 4, 8, 16 and 32 s of clock time, resending the same bytes and delivery id', async (t) => {
    const receiver = await startFakeWebhookReceiver(() => ({ status: 503 }));
    const clock = new ManualClock();
    const started = await startWebhookSink({ clock, webhooks: [{ name: 'flaky', url: receiver.url, secret: 's', retry: 5, events: ['download_completed'] }] });
    t.after(async () => {
      await started.close();
      await receiver.close();
    });
    const t0 = clock.now();
    await started.sink.deliver(sampleEvent('download_completed'));
    await receiver.waitFor(1);
    let elapsed = 0;
    for (const [n, delay] of [2, 4, 8, 16, 32].entries()) {
      await waitUntil(`retry ${n + 1} is scheduled`, () => clock.pending()[0] === t0 + elapsed + delay * SECOND);
      await clock.advance(delay * SECOND - 1);
      assert.equal(receiver.received.length, n + 1, `no attempt 1 ms before the ${delay} s retry`);
      await clock.advance(1);
      elapsed += delay * SECOND;
      await receiver.waitFor(n + 2);
    }
    await waitUntil('the delivery is final', () => started.admin.deliveries({ limit: 10, offset: 0 }).items[0]?.status === 'failed');
    await clock.advance(120 * SECOND);
    assert.equal(receiver.received.length, 6, 'retry: 5 means six attempts in all');
    const ids = new Set(receiver.received.map((r) => r.headers['x-webhook-delivery']));
    const bodies = new Set(receiver.received.map((r) => r.body.toString('hex')));
    const signatures = new Set(receiver.received.map((r) => r.headers['x-webhook-signature']));
    assert.equal(ids.size, 1);
    assert.equal(bodies.size, 1);
    assert.equal(signatures.size, 1);
    const timestamps = receiver.received.map((r) => Number(r.headers['webhook-timestamp']));
    assert.deepEqual(
      timestamps.map((ts) => ts - Math.floor(t0 / 1000)),
      [0, 2, 6, 14, 30, 62],
      'each attempt carries its own webhook-timestamp',
    );
    const [delivery] = started.admin.deliveries({ limit: 10, offset: 0 }).items;
    assert.equal(delivery?.attempts.length, 6);
    assert.deepEqual(
      delivery?.attempts.map((a) => a.next_retry_at),
      [...[2, 6, 14, 30, 62].map((s) => new Date(t0 + s * SECOND).toISOString()), null],
    );
    assert.ok(delivery?.attempts.every((a) => a.status_code === 503 && a.error?.startsWith('answered 503')));
  });

  it('makes a single attempt with retry: 0', async (t) => {
    const receiver = await startFakeWebhookReceiver(() => ({ status: 500, body: 'boom' }));
    const clock = new ManualClock();
    const started = await startWebhookSink({ clock, webhooks: [{ name: 'once', url: receiver.url, events: ['queue_approved'] }] });
    t.after(async () => {
      await started.close();
      await receiver.close();
    });
    await started.sink.deliver(sampleEvent('queue_approved'));
    await waitUntil('the delivery failed', () => started.admin.deliveries({ limit: 1, offset: 0 }).items[0]?.status === 'failed');
    await clock.advance(3600 * SECOND);
    assert.equal(receiver.received.length, 1);
    assert.equal(started.admin.deliveries({ limit: 1, offset: 0 }).items[0]?.attempts[0]?.error, 'answered 500: boom');
  });

  it('stops retrying once a retry succeeds, and never sends an acknowledged delivery again', async (t) => {
    const receiver = await startFakeWebhookReceiver((_request, index) => (index < 2 ? { status: 502 } : { status: 204 }));
    const clock = new ManualClock();
    const started = await startWebhookSink({ clock, webhooks: [{ name: 'third-time', url: receiver.url, retry: 5, events: ['queue_added'] }] });
    t.after(async () => {
      await started.close();
      await receiver.close();
    });
    await started.sink.deliver(sampleEvent('queue_added'));
    await receiver.waitFor(1);
    await waitUntil('a retry is scheduled', () => clock.pending().length === 2);
    await clock.advance(2 * SECOND);
    await receiver.waitFor(2);
    await waitUntil('a second retry is scheduled', () => clock.pending()[0] === clock.now() + 4 * SECOND);
    await clock.advance(4 * SECOND);
    await receiver.waitFor(3);
    await waitUntil('the delivery is delivered', () => started.admin.deliveries({ limit: 1, offset: 0 }).items[0]?.status === 'delivered');
    await clock.advance(600 * SECOND);
    assert.equal(receiver.received.length, 3);
    const attempts = started.admin.deliveries({ limit: 1, offset: 0 }).items[0]?.attempts ?? [];
    assert.deepEqual(attempts.map((a) => a.status_code), [502, 502, 204]);
    assert.equal(attempts[2]?.next_retry_at, null);
  });

  it('counts a redirect as a failure and never follows it', async (t) => {
    const receiver = await startFakeWebhookReceiver((request) => (request.path === '/hook' ? { redirectTo: '/elsewhere', status: 307 } : {}));
    const started = await startWebhookSink({ clock: new ManualClock(), webhooks: [{ name: 'moved', url: receiver.url, events: ['download_completed'] }] });
    t.after(async () => {
      await started.close();
      await receiver.close();
    });
    await started.sink.deliver(sampleEvent('download_completed'));
    await waitUntil('the delivery failed', () => started.admin.deliveries({ limit: 1, offset: 0 }).items[0]?.status === 'failed');
    const attempt = started.admin.deliveries({ limit: 1, offset: 0 }).items[0]?.attempts[0];
    assert.equal(attempt?.status_code, 307);
    // The Location is shown like every URL in the log: scheme, host and a hint (it may carry a token).
    assert.match(attempt?.error ?? '', /redirect 307 to http:\/\/127\.0\.0\.1:\d+\/… not followed/);
    assert.deepEqual(receiver.received.map((r) => r.path), ['/hook']);
  });

  it('counts a timeout as a failure after timeout_ms', async (t) => {
    const receiver = await startFakeWebhookReceiver(() => ({ delayMs: 2000 }));
    const started = await startWebhookSink({ clock: new ManualClock(), webhooks: [{ name: 'slow', url: receiver.url, timeout_ms: 150, events: ['download_completed'] }] });
    t.after(async () => {
      await started.close();
      await receiver.close();
    });
    await started.sink.deliver(sampleEvent('download_completed'));
    await waitUntil('the delivery failed', () => started.admin.deliveries({ limit: 1, offset: 0 }).items[0]?.status === 'failed');
    const attempt = started.admin.deliveries({ limit: 1, offset: 0 }).items[0]?.attempts[0];
    assert.equal(attempt?.status_code, null);
    assert.match(attempt?.error ?? '', /timed out after 150 ms/);
    // It waited for its timeout; the upper bound only catches a hang (a loaded machine is slow, never too fast).
    assert.ok((attempt?.duration_ms ?? 0) >= 140 && (attempt?.duration_ms ?? 0) < 60_000, `duration ${attempt?.duration_ms} ms`);
  });

  it('counts a refused connection and a reset connection as failures', async (t) => {
    const port = await closedPort();
    const receiver = await startFakeWebhookReceiver(() => ({ reset: true }));
    const started = await startWebhookSink({
      clock: new ManualClock(),
      webhooks: [
        { name: 'nobody-home', url: `http://127.0.0.1:${port}/hook`, events: ['download_completed'] },
        { name: 'hangs-up', url: receiver.url, events: ['download_completed'] },
      ],
    });
    t.after(async () => {
      await started.close();
      await receiver.close();
    });
    await started.sink.deliver(sampleEvent('download_completed'));
    const failed = () => started.admin.deliveries({ status: 'failed', limit: 10, offset: 0 }).items;
    await waitUntil('both deliveries failed', () => failed().length === 2);
    const byWebhook = new Map(failed().map((d) => [d.webhook, d.attempts[0]]));
    assert.match(byWebhook.get('nobody-home')?.error ?? '', /ECONNREFUSED/);
    assert.equal(byWebhook.get('nobody-home')?.status_code, null);
    assert.match(byWebhook.get('hangs-up')?.error ?? '', /failed/);
  });

  it('retries after 2 s and then 4 s of real time', async (t) => {
    const receiver = await startFakeWebhookReceiver((_request, index) => (index < 2 ? { status: 500 } : {}));
    const started = await startWebhookSink({ webhooks: [{ name: 'real-time', url: receiver.url, retry: 2, events: ['download_completed'] }] });
    t.after(async () => {
      await started.close();
      await receiver.close();
    });
    await started.sink.deliver(sampleEvent('download_completed'));
    const requests = await receiver.waitFor(3, 60_000);
    const [first, second, third] = requests.map((r) => r.receivedAt.getTime());
    assert.ok(first !== undefined && second !== undefined && third !== undefined);
    const gaps = [second - first, third - second];
    assert.ok(gaps[0] !== undefined && gaps[0] >= 1950 && gaps[0] < 3000, `first retry after ${gaps[0]} ms`);
    assert.ok(gaps[1] !== undefined && gaps[1] >= 3950 && gaps[1] < 5000, `second retry after ${gaps[1]} ms`);
    await waitUntil('the delivery is delivered', () => started.admin.deliveries({ limit: 1, offset: 0 }).items[0]?.status === 'delivered');
  });
});
