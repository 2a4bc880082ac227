import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeWebhookReceiver } from '../../fakes/fake-webhook-receiver.js';
import { ManualClock } from '../../helpers/manual-clock.js';
import { sampleEvent } from './sample-events.js';
import { startWebhookSink } from './start-webhook-sink.js';
import { waitUntil } from './wait-until.js';

describe('webhooks sink: outbound safety', () => {
  it('refuses link-local and metadata targets in every spelling, without retrying them into a connection', async (t) => {
    const urls = [
      'http://169.254.169.254/latest/meta-data/',
      'http://[::ffff:169.254.169.254]/',
      'http://[::ffff:a9fe:a9fe]/',
      'http://2852039166/',
      'http://0xa9.0xfe.0xa9.0xfe/',
      'http://0251.0376.0251.0376/',
      'http://169.254.1/',
      'http://[fe80::1]/',
      'http://[64:ff9b::a9fe:a9fe]/',
    ];
    const started = await startWebhookSink({
      clock: new ManualClock(),
      webhooks: urls.map((url, i) => ({ name: `ssrf-${i}`, url, timeout_ms: 500, events: ['download_completed'] })),
    });
    t.after(() => started.close());
    await started.sink.deliver(sampleEvent('download_completed'));
    const failed = () => started.admin.deliveries({ status: 'failed', limit: 50, offset: 0 }).items;
    await waitUntil('every delivery failed', () => failed().length === urls.length);
    for (const delivery of failed()) {
      const attempt = delivery.attempts[0];
      assert.equal(attempt?.status_code, null);
      assert.match(attempt?.error ?? '', /refused to connect to .*(link-local|metadata)/, `${delivery.webhook}: ${attempt?.error}`);
    }
  });

  it('refuses a metadata target in the live test endpoint too', async (t) => {
    const started = await startWebhookSink({ webhooks: [] });
    t.after(() => started.close());
    const outcome = await started.admin.test({ url: 'http://[::ffff:169.254.169.254]/', dry_run: false });
    assert.ok(outcome.ok && !outcome.result.dry_run);
    assert.equal(outcome.result.success, false);
    assert.match(outcome.result.error ?? '', /refused to connect/);
  });

  it('delivers to loopback names and addresses (home automation lives on the LAN)', async (t) => {
    const receiver = await startFakeWebhookReceiver();
    const port = new URL(receiver.url).port;
    const started = await startWebhookSink({
      webhooks: [
        { name: 'by-name', url: `http://localhost:${port}/hook`, events: ['queue_added'] },
        { name: 'by-address', url: receiver.url, events: ['queue_added'] },
      ],
    });
    t.after(async () => {
      await started.close();
      await receiver.close();
    });
    await started.sink.deliver(sampleEvent('queue_added'));
    await waitUntil('both delivered', () => started.admin.deliveries({ status: 'delivered', limit: 10, offset: 0 }).total === 2);
  });

  it('reads at most 64 KiB of a response body', async (t) => {
    const receiver = await startFakeWebhookReceiver(() => ({ body: 'x'.repeat(1024 * 1024) }));
    const started = await startWebhookSink({ clock: new ManualClock(), webhooks: [{ name: 'chatty', url: receiver.url, events: ['queue_added'] }] });
    t.after(async () => {
      await started.close();
      await receiver.close();
    });
    await started.sink.deliver(sampleEvent('queue_added'));
    await waitUntil('the attempt is logged', () => (started.admin.deliveries({ limit: 1, offset: 0 }).items[0]?.attempts.length ?? 0) === 1);
    const attempt = started.admin.deliveries({ limit: 1, offset: 0 }).items[0]?.attempts[0];
    assert.match(attempt?.error ?? '', /exceeds 65536 bytes/);
  });
});
