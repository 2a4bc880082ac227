import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sampleNotifications, testNotifierContract } from '@crateflow/sdk/testing';
import ntfy from '@crateflow/notify-ntfy';
import { RetryLaterError, type Notification } from '@crateflow/sdk';
import { startFakeNtfy } from '../../fakes/fake-ntfy.js';
import type { TestContext } from 'node:test';
import { createPluginTestContext } from '../../helpers/plugin-test-context.js';

const TOKEN = 'tk_abcdefghijklmnopqrstuvwxyz012';

testNotifierContract(ntfy, {
  service: () => startFakeNtfy({ token: TOKEN }),
  config: (fake) => ({ url: fake.url, topic: 'crateflow-contract', token: TOKEN }),
  delivered: (fake) => fake.messages.length,
});

describe('notify-ntfy', () => {
  it('cuts an over-long text to what ntfy takes as a message, on a character boundary', async (t) => {
    const fake = await startFakeNtfy();
    t.after(() => fake.close());
    const notifier = await notifierFor(t, { url: fake.url, topic: 'long' });
    const long = sampleNotifications[3] as Notification;
    await notifier.send(long);
    const [message] = await fake.waitFor(1, 5_000);
    assert.ok(message?.message !== undefined && Buffer.byteLength(message.message) <= 4000, 'within the message size limit: no attachment');
    assert.ok(message.message.endsWith('…'));
    assert.ok(!message.message.includes('\uFFFD'), 'no character cut in two');
  });

  it('asks to be called again later on 429 and on a server error, and says what to check on 401/403', async (t) => {
    const fake = await startFakeNtfy({ token: TOKEN });
    t.after(() => fake.close());
    const item = sampleNotifications[0] as Notification;
    const good = await notifierFor(t, { url: fake.url, topic: 'limits', token: TOKEN });
    fake.rateLimitNext(1);
    await assert.rejects(good.send(item), RetryLaterError);
    await good.send(item);
    assert.equal(fake.messages.length, 1);
    const wrong = await notifierFor(t, { url: fake.url, topic: 'limits', token: 'tk_zzzzzzzzzzzzzzzzzzzzzzzzzzzzz' });
    await assert.rejects(wrong.send(item), (err: unknown) => err instanceof Error && !(err instanceof RetryLaterError) && /401.*notifications\[\]\.token/.test(err.message));
    const none = await notifierFor(t, { url: fake.url, topic: 'limits' });
    await assert.rejects(none.send(item), /403/);
  });
});

async function notifierFor(t: TestContext, config: Record<string, unknown>) {
  const harness = createPluginTestContext(ntfy, config);
  t.after(() => harness.close());
  return ntfy.create(harness.context);
}
