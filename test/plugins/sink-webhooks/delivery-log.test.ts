import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeliveryStore } from '../../../plugins/sink-webhooks/delivery-store.js';
import type { StoredDelivery } from '../../../plugins/sink-webhooks/delivery-record.js';
import { SqlPluginStorage } from '../../../core/plugins/sql-plugin-storage.js';
import { createLogger } from '../../../core/logging/create-logger.js';
import { Store } from '../../../core/storage/store.js';
import { startFakeWebhookReceiver } from '../../fakes/fake-webhook-receiver.js';
import { ManualClock } from '../../helpers/manual-clock.js';
import { sampleEvent } from './sample-events.js';
import { startWebhookSink } from './start-webhook-sink.js';
import { waitUntil } from './wait-until.js';

const DAY = 24 * 3600_000;

function record(id: string, status: StoredDelivery['status'], updatedAt: number): StoredDelivery {
  const at = new Date(updatedAt).toISOString();
  return {
    id,
    webhook: 'w',
    event: 'queue_added',
    event_id: `ev_${id}`,
    status,
    created_at: at,
    updated_at: at,
    next_attempt_at: status === 'pending' ? updatedAt : null,
    round_attempts: 0,
    attempts: [],
  };
}

describe('DeliveryStore.prune', () => {
  it('keeps at most maxFinished finished deliveries, dropping the oldest, and never a pending one', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'crateflow-prune-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const database = await Store.open(dir);
    t.after(() => database.close());
    const storage = new SqlPluginStorage(database, 'webhooks');
    const store = new DeliveryStore(storage, createLogger('silent'), { maxFinished: 3, maxAgeMs: 30 * DAY });
    const now = Date.parse('2026-03-18T12:00:00.000Z');
    await store.put(record('old-pending', 'pending', now - 10 * DAY));
    for (let i = 0; i < 5; i++) await store.put(record(`done-${i}`, i % 2 ? 'failed' : 'delivered', now - (5 - i) * 1000));
    assert.equal(await store.prune(now), 2);
    const ids = store.page({ limit: 50, offset: 0 }).items.map((d) => d.id);
    assert.deepEqual(ids, ['done-4', 'done-3', 'done-2', 'old-pending']);
  });

  it('drops finished deliveries older than maxAgeMs', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'crateflow-prune-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const database = await Store.open(dir);
    t.after(() => database.close());
    const storage = new SqlPluginStorage(database, 'webhooks');
    const store = new DeliveryStore(storage, createLogger('silent'), { maxFinished: 100, maxAgeMs: 7 * DAY });
    const now = Date.parse('2026-03-18T12:00:00.000Z');
    await store.put(record('ancient', 'delivered', now - 8 * DAY));
    await store.put(record('recent', 'failed', now - 6 * DAY));
    await store.prune(now);
    assert.deepEqual(store.page({ limit: 50, offset: 0 }).items.map((d) => d.id), ['recent']);
  });
});

describe('DeliveryStore count trimming and shared payloads', () => {
  it('trims the oldest finished deliveries as they finish, and drops an event payload with its last delivery', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'crateflow-prune-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const database = await Store.open(dir);
    t.after(() => database.close());
    const storage = new SqlPluginStorage(database, 'webhooks');
    const store = new DeliveryStore(storage, createLogger('silent'), { maxFinished: 3, maxAgeMs: 30 * DAY });
    const now = Date.parse('2026-03-18T12:00:00.000Z');
    const created: StoredDelivery[] = [];
    for (let i = 0; i < 60; i++) {
      const pending = { ...record(`d${i}`, 'pending', now + i), event_id: `ev_${Math.floor(i / 2)}` };
      await store.create(pending, `{"n":${Math.floor(i / 2)}}`);
      created.push(pending);
    }
    assert.equal([...storage.entries('payload/')].map(([key]) => key).length, 30, 'one payload per event');
    for (const pending of created) await store.put({ ...pending, status: 'delivered', updated_at: new Date(now + 1000).toISOString() });
    const left = store.page({ limit: 100, offset: 0 }).items.map((d) => d.id);
    assert.ok(left.length >= 3 && left.length < 3 + 50, `${left.length} finished deliveries kept`);
    assert.equal(left.at(-1), `d${60 - left.length}`, 'the oldest went first');
    const payloads = [...storage.entries('payload/')].map(([key]) => key);
    const events = new Set(store.page({ limit: 100, offset: 0 }).items.map((d) => `payload/${d.event_id}`));
    assert.deepEqual(new Set(payloads), events, 'payloads are kept exactly while a delivery uses them');
    const survivor = store.get(left[0] ?? '');
    assert.ok(survivor);
    assert.equal(store.body(survivor), `{"n":29}`);
  });
});

describe('webhooks sink: delivery log', () => {
  it('prunes a week-old delivery on the hourly schedule of the plugin clock', async (t) => {
    const receiver = await startFakeWebhookReceiver();
    const clock = new ManualClock();
    const started = await startWebhookSink({ clock, webhooks: [{ name: 'w', url: receiver.url, events: ['queue_added'] }] });
    t.after(async () => {
      await started.close();
      await receiver.close();
    });
    await started.sink.deliver(sampleEvent('queue_added'));
    await waitUntil('delivered', () => started.admin.deliveries({ status: 'delivered', limit: 1, offset: 0 }).total === 1);
    await clock.advance(6 * DAY);
    assert.equal(started.admin.deliveries({ limit: 1, offset: 0 }).total, 1);
    await clock.advance(DAY + 3600_000);
    await waitUntil('pruned', () => started.admin.deliveries({ limit: 1, offset: 0 }).total === 0);
  });

  it('redelivers with a fresh retry budget, and refuses unknown ids and deliveries in flight', async (t) => {
    const receiver = await startFakeWebhookReceiver(() => ({ status: 500 }));
    const clock = new ManualClock();
    const started = await startWebhookSink({ clock, webhooks: [{ name: 'w', url: receiver.url, retry: 1, events: ['queue_added'] }] });
    t.after(async () => {
      await started.close();
      await receiver.close();
    });
    await started.sink.deliver(sampleEvent('queue_added'));
    await receiver.waitFor(1);
    await waitUntil('retry scheduled', () => clock.pending().length === 2);
    await clock.advance(2000);
    await waitUntil('failed for good', () => started.admin.deliveries({ status: 'failed', limit: 1, offset: 0 }).total === 1);
    const id = started.admin.deliveries({ limit: 1, offset: 0 }).items[0]?.id ?? assert.fail('no delivery');

    receiver.respondWith(() => ({ status: 500, delayMs: 300 }));
    const outcome = await started.admin.redeliver(id);
    assert.ok(outcome.ok);
    assert.equal(outcome.delivery.status, 'pending');
    await receiver.waitFor(3);
    const busy = await started.admin.redeliver(id);
    assert.deepEqual(busy.ok ? 'queued' : busy.reason, 'in-flight');
    await waitUntil('the redelivery retry is scheduled', () => started.admin.deliveries({ limit: 1, offset: 0 }).items[0]?.attempts.length === 3);
    assert.equal(started.admin.deliveries({ limit: 1, offset: 0 }).items[0]?.status, 'pending', 'the budget was reset: one retry left');
    receiver.respondWith(() => ({}));
    await clock.advance(2000);
    await waitUntil('delivered', () => started.admin.deliveries({ limit: 1, offset: 0 }).items[0]?.status === 'delivered');
    assert.equal(receiver.received.length, 4);

    const missing = await started.admin.redeliver('d_missing');
    assert.deepEqual(missing.ok ? 'queued' : missing.reason, 'not-found');
  });

  it('fails a pending delivery whose webhook was removed from the config before the restart', async (t) => {
    const receiver = await startFakeWebhookReceiver(() => ({ status: 500 }));
    const clock = new ManualClock();
    const first = await startWebhookSink({ clock, webhooks: [{ name: 'gone', url: receiver.url, retry: 3, events: ['queue_added'] }] });
    let second: Awaited<ReturnType<typeof startWebhookSink>> | undefined;
    t.after(async () => {
      await second?.stop();
      await rm(first.dataDir, { recursive: true, force: true });
      await receiver.close();
    });
    await first.sink.deliver(sampleEvent('queue_added'));
    await waitUntil('first attempt logged', () => first.admin.deliveries({ limit: 1, offset: 0 }).items[0]?.attempts.length === 1);
    await first.stop();
    second = await startWebhookSink({ clock, dataDir: first.dataDir, webhooks: [{ name: 'other', url: receiver.url, events: ['queue_added'] }] });
    const admin = second.admin;
    await clock.advance(2000);
    await waitUntil('failed', () => admin.deliveries({ limit: 1, offset: 0 }).items[0]?.status === 'failed');
    assert.equal(admin.deliveries({ limit: 1, offset: 0 }).items[0]?.attempts.at(-1)?.error, 'webhook "gone" is no longer configured');
    assert.equal(receiver.received.length, 1);
  });
});
