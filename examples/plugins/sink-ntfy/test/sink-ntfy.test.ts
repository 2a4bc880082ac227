import assert from 'node:assert/strict';
import { EVENT_TYPES } from '@crateflow/sdk';
import { describe, it } from 'node:test';
import { configFor, createTestContext, sampleEvent, testEventSinkContract } from '@crateflow/sdk/testing';
import plugin from '../src/index.js';
import { startFakeNtfy, type FakeNtfy } from './fake-ntfy.js';

const service = async () => {
  const fake = await startFakeNtfy();
  return Object.assign(fake, { deliveries: () => fake.messages.length });
};

// Everything an event sink must do, checked by the sdk's kit.
testEventSinkContract(plugin, { service, config: (fake: FakeNtfy) => ({ topic_url: fake.url, events: [...EVENT_TYPES] }) });

describe('sink-ntfy', () => {
  it('posts "Artist — Album" with a title per event type and the bearer token', async (t) => {
    const fake = await startFakeNtfy();
    t.after(() => fake.close());
    const ctx = createTestContext(configFor(plugin, { topic_url: fake.url, access_token: 'tk_secret' }));
    t.after(() => ctx.close());
    const sink = await plugin.create(ctx);
    await sink.deliver(sampleEvent('queue_added'));
    assert.deepEqual(fake.messages, [{ title: 'Crateflow: New candidate', authorization: 'Bearer tk_secret', body: 'Low — Double Negative' }]);
  });

  it('sends nothing for event types left out of its config', async (t) => {
    const fake = await startFakeNtfy();
    t.after(() => fake.close());
    const ctx = createTestContext(configFor(plugin, { topic_url: fake.url, events: ['download_completed'] }));
    t.after(() => ctx.close());
    const sink = await plugin.create(ctx);
    await sink.deliver(sampleEvent('queue_rejected'));
    assert.equal(fake.messages.length, 0);
  });

  it('turns a 401 into CredentialsError and a 503 into RetryLaterError', async (t) => {
    const fake = await startFakeNtfy();
    t.after(() => fake.close());
    const ctx = createTestContext(configFor(plugin, { topic_url: fake.url }));
    t.after(() => ctx.close());
    const sink = await plugin.create(ctx);
    fake.answer(401);
    await assert.rejects(sink.deliver(sampleEvent('queue_added', { id: 'a' })), { name: 'CredentialsError' });
    fake.answer(503);
    await assert.rejects(sink.deliver(sampleEvent('queue_added', { id: 'b' })), { name: 'RetryLaterError' });
  });
});
