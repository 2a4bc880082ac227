import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeWebhookReceiver, type FakeWebhookReceiver } from '../../fakes/fake-webhook-receiver.js';
import { ManualClock } from '../../helpers/manual-clock.js';
import { sampleEvent } from './sample-events.js';
import { startWebhookSink, type StartedSink } from './start-webhook-sink.js';
import { expectedHexSignature, expectedStandardSignature } from './verify-signatures.js';
import { waitUntil } from './wait-until.js';

/** Header values as sent, by lower-cased name (every value, in case a header were sent twice). */
function rawHeaderValues(rawHeaders: readonly string[]): Map<string, string[]> {
  const values = new Map<string, string[]>();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] ?? '').toLowerCase();
    values.set(name, [...(values.get(name) ?? []), rawHeaders[i + 1] ?? '']);
  }
  return values;
}

describe('webhooks sink: what one delivery looks like', () => {
  let receiver: FakeWebhookReceiver;
  let started: StartedSink;
  const clock = new ManualClock();

  before(async () => {
    receiver = await startFakeWebhookReceiver();
    started = await startWebhookSink({
      clock,
      version: '1.2.3',
      webhooks: [
        { name: 'signed', url: `${receiver.url}?who=signed`, secret: 'correct horse', events: ['download_completed', 'queue_added', 'queue_approved'] },
        { name: 'plain', url: `${receiver.url}?who=plain`, events: ['download_completed', 'wishlist_removed', 'queue_rejected'] },
        { name: 'off', url: `${receiver.url}?who=off`, enabled: false, events: ['download_completed'] },
      ],
    });
  });
  after(async () => {
    await started.close();
    await receiver.close();
  });

  const fromWebhook = (who: string) => receiver.received.filter((r) => r.query.get('who') === who);

  it('posts the exact specified body bytes with milliseconds-and-Z timestamp and the download_path', async () => {
    const event = sampleEvent('download_completed', { timestamp: '2026-03-18T12:00:00Z' });
    await started.sink.deliver(event);
    await waitUntil('both enabled webhooks got the event', () => fromWebhook('signed').length === 1 && fromWebhook('plain').length === 1);
    const expected =
      '{"event":"download_completed","timestamp":"2026-03-18T12:00:00.000Z","data":{"artist":"Low","album":"Things We Lost in the Fire",' +
      '"mbid":"b1e1c5b4-5a8f-4a4a-9d8e-0c6c6e1f8f00","download_path":"/music/in/Low/Things We Lost in the Fire"}}';
    for (const request of [...fromWebhook('signed'), ...fromWebhook('plain')]) {
      assert.equal(request.method, 'POST');
      assert.equal(request.body.toString('utf8'), expected);
    }
  });

  it('never sends to a disabled webhook, nor for events a webhook does not list', async () => {
    await started.sink.deliver(sampleEvent('wishlist_removed'));
    await waitUntil('the plain webhook got wishlist_removed', () => fromWebhook('plain').length === 2);
    assert.equal(fromWebhook('off').length, 0);
    assert.equal(fromWebhook('signed').length, 1, 'signed does not list wishlist_removed');
  });

  it('sends Content-Type, User-Agent, X-Webhook-Event and X-Webhook-Delivery, and no signature headers without a secret', async () => {
    const request = fromWebhook('plain')[0];
    assert.ok(request);
    const headers = rawHeaderValues(request.rawHeaders);
    assert.deepEqual(headers.get('content-type'), ['application/json']);
    assert.deepEqual(headers.get('user-agent'), ['crateflow/1.2.3']);
    assert.deepEqual(headers.get('x-webhook-event'), ['download_completed']);
    assert.match(headers.get('x-webhook-delivery')?.[0] ?? '', /^d_[0-9a-f]{32}$/);
    for (const name of ['x-webhook-signature', 'webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      assert.equal(headers.has(name), false, `${name} is absent without a secret`);
    }
  });

  it('signs the exact bytes: X-Webhook-Signature and the Standard Webhooks headers verify independently', async () => {
    const request = fromWebhook('signed')[0];
    assert.ok(request);
    const headers = rawHeaderValues(request.rawHeaders);
    const signature = headers.get('x-webhook-signature')?.[0] ?? '';
    assert.match(signature, /^[0-9a-f]{64}$/);
    assert.equal(signature, await expectedHexSignature('correct horse', request.body));
    const id = headers.get('webhook-id')?.[0] ?? '';
    const timestamp = headers.get('webhook-timestamp')?.[0] ?? '';
    assert.equal(id, headers.get('x-webhook-delivery')?.[0]);
    assert.equal(timestamp, String(Math.floor(clock.now() / 1000)));
    assert.equal(headers.get('webhook-signature')?.[0], await expectedStandardSignature('correct horse', id, timestamp, request.body));
  });

  it('gives each webhook its own delivery id for the same event', () => {
    const signed = fromWebhook('signed')[0]?.headers['x-webhook-delivery'];
    const plain = fromWebhook('plain')[0]?.headers['x-webhook-delivery'];
    assert.ok(signed && plain);
    assert.notEqual(signed, plain);
  });

  it('adds the queue item id to queue_added and in_library to queue_approved, and keeps the specified events to their listed fields', async () => {
    const before = receiver.received.length;
    await started.sink.deliver(sampleEvent('queue_added'));
    await started.sink.deliver(sampleEvent('queue_approved', { data: { artist: 'Low', album: 'C\'mon', download_path: '/x', id: 'q_9', in_library: true } }));
    await started.sink.deliver(sampleEvent('queue_rejected', { data: { artist: 'Sigur Rós', in_library: true } }));
    await waitUntil('three more deliveries', () => receiver.received.length === before + 3);
    const bodies = receiver.received.slice(before).map((r) => JSON.parse(r.text));
    const byEvent = new Map(bodies.map((b: { event: string; data: unknown }) => [b.event, b.data]));
    assert.deepEqual(byEvent.get('queue_added'), {
      artist: 'Low',
      album: 'Things We Lost in the Fire',
      mbid: 'b1e1c5b4-5a8f-4a4a-9d8e-0c6c6e1f8f00',
      id: 'q_123',
    });
    // in_library is this project's addition to queue_approved (CONTRACT §7), and only there.
    assert.deepEqual(byEvent.get('queue_approved'), { artist: 'Low', album: "C'mon", in_library: true });
    assert.deepEqual(byEvent.get('queue_rejected'), { artist: 'Sigur Rós' });
  });

  it('stores a re-delivered event once and does not send it a second time', async () => {
    const event = sampleEvent('download_completed');
    const before = receiver.received.length;
    await started.sink.deliver(event);
    await waitUntil('the first hand-over was sent', () => receiver.received.length === before + 2);
    await Promise.all([started.sink.deliver(event), started.sink.deliver(event)]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(receiver.received.length, before + 2);
    const log = started.admin.deliveries({ limit: 500, offset: 0 });
    assert.equal(log.items.filter((d) => d.event_id === event.id).length, 2, 'one delivery per webhook');
  });

  it('has the delivery stored on disk by the time deliver() resolves', async () => {
    receiver.respondWith(() => ({ delayMs: 300 }));
    const event = sampleEvent('wishlist_removed');
    await started.sink.deliver(event);
    const entries = await started.readStoredEntries();
    const stored = Object.values(entries).filter((value) => typeof value === 'object' && value !== null && 'event_id' in value && value.event_id === event.id);
    assert.equal(stored.length, 1);
    receiver.respondWith(() => ({}));
  });
});
