import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTestContext, MemoryStorage } from '@crateflow/sdk/testing';
import { startFakeWebhookReceiver } from '../../fakes/fake-webhook-receiver.js';

describe('createTestContext', () => {
  it('hands over the config, a real HTTP client, and an abort signal that close() aborts', async (t) => {
    const fake = await startFakeWebhookReceiver(() => ({ body: 'pong' }));
    t.after(() => fake.close());
    const ctx = createTestContext({ url: fake.url });
    const res = await ctx.http.request({ url: ctx.config.url });
    assert.equal(res.text(), 'pong');
    assert.equal(fake.received[0]?.headers['user-agent'], 'crateflow-sdk-test');
    await ctx.close();
    assert.equal(ctx.signal.aborted, true);
  });

  it('records what the plugin logs, with child bindings, without printing it', async () => {
    const ctx = createTestContext({});
    ctx.log.child({ job: 'sync' }).warn({ status: 503 }, 'library unreachable');
    assert.deepEqual(ctx.log.at('warn'), [{ level: 'warn', msg: 'library unreachable', fields: { job: 'sync', status: 503 } }]);
    await ctx.close();
  });
});

describe('MemoryStorage', () => {
  it('keeps values as JSON, so mutating a read value does not change what is stored', async () => {
    const storage = new MemoryStorage();
    await storage.set('outbox/a', { attempts: 0 });
    const read = storage.get<{ attempts: number }>('outbox/a');
    assert.ok(read);
    read.attempts = 5;
    assert.deepEqual(storage.get('outbox/a'), { attempts: 0 });
    await storage.set('other', 1);
    assert.deepEqual([...storage.entries('outbox/')], [['outbox/a', { attempts: 0 }]]);
    await storage.delete('outbox/a');
    assert.deepEqual(storage.snapshot(), { other: 1 });
  });
});
