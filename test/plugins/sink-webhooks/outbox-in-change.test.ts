// start-app first: it loads reflect-metadata, which the decorated services need.
import { startApp } from '../../helpers/start-app.js';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Tokens } from '../../../core/di/tokens.js';
import { UnitOfWork } from '../../../core/events/unit-of-work.js';
import type { Store } from '../../../core/storage/store.js';
import { readDatabase } from '../../helpers/read-stored.js';
import { startFakeWebhookReceiver } from '../../fakes/fake-webhook-receiver.js';

/** What the database holds for the webhooks sink: its stored deliveries' event ids, and events still in core's outbox for it. */
function storedFor(dataDir: string): { deliveries: string[]; coreOutbox: number } {
  return readDatabase(dataDir, (db) => ({
    deliveries: (db.prepare("SELECT value FROM plugin_entries WHERE plugin = 'webhooks' AND key LIKE 'delivery/%' ORDER BY seq").pluck().all() as string[])
      .map((value) => (JSON.parse(value) as { event_id: string }).event_id),
    coreOutbox: db.prepare("SELECT count(*) FROM event_deliveries WHERE sink = 'webhooks'").pluck().get() as number,
  }));
}

describe('webhooks sink: its outbox in the transaction of the change', () => {
  it('stores the delivery in the commit that holds the change, and sends it once that commit is durable', async (t) => {
    const receiver = await startFakeWebhookReceiver();
    const app = await startApp({ config: { webhooks: [{ name: 'hook', url: receiver.url, events: ['queue_added'] }] } });
    t.after(async () => {
      await app.close();
      await receiver.close();
    });
    const store = app.crateflow.container.resolve<Store>(Tokens.Store);
    const work = app.crateflow.container.resolve(UnitOfWork);
    const before = store.commits.committed;
    const event = await work.mutate((emit) => {
      emit('queue_added', { id: 'q1', artist: 'Low', album: 'Double Negative' });
      return 'done';
    });
    assert.equal(event, 'done');
    assert.equal(store.commits.committed, before + 1, 'the change and the delivery: one transaction');
    const stored = storedFor(app.dataDir);
    assert.equal(stored.deliveries.length, 1, 'the delivery is on disk as the change is acknowledged');
    assert.equal(stored.coreOutbox, 0, 'the sink took the event in the transaction: core keeps no outbox row for it');
    const [request] = await receiver.waitFor(1);
    assert.equal(JSON.parse(request?.text ?? '{}').data.artist, 'Low');
  });

  it('stores no delivery for a change that is undone, and sends nothing', async (t) => {
    const receiver = await startFakeWebhookReceiver();
    const app = await startApp({ config: { webhooks: [{ name: 'hook', url: receiver.url, events: ['queue_added'] }] } });
    t.after(async () => {
      await app.close();
      await receiver.close();
    });
    const work = app.crateflow.container.resolve(UnitOfWork);
    await assert.rejects(work.mutate((emit) => {
      emit('queue_added', { id: 'q1', artist: 'Undone', album: 'A' });
      throw new Error('the change fails after its event');
    }), /the change fails after its event/);
    // A change that commits afterwards is sent; the undone one never was.
    await work.mutate((emit) => emit('queue_added', { id: 'q2', artist: 'Kept', album: 'A' }));
    const [request] = await receiver.waitFor(1);
    assert.equal(JSON.parse(request?.text ?? '{}').data.artist, 'Kept');
    assert.equal(storedFor(app.dataDir).deliveries.length, 1);
    assert.equal(receiver.received.length, 1);
  });
});
