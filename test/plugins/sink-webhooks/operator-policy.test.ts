import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeWebhookReceiver } from '../../fakes/fake-webhook-receiver.js';
import { ManualClock } from '../../helpers/manual-clock.js';
import { sampleEvent } from './sample-events.js';
import { startWebhookSink } from './start-webhook-sink.js';
import { waitUntil } from './wait-until.js';

describe('webhooks sink: the host’s outbound policy (refuseTargetAddress)', () => {
  it('refuses what the operator’s policy refuses, for deliveries and the live test, without connecting', async (t) => {
    const receiver = await startFakeWebhookReceiver();
    const asked: string[] = [];
    const started = await startWebhookSink({
      clock: new ManualClock(),
      webhooks: [{ name: 'local', url: receiver.url, events: ['download_completed'] }],
      refuseTargetAddress: (address) => {
        asked.push(address);
        return address === '127.0.0.1' ? 'blocked by the test policy' : undefined;
      },
    });
    t.after(async () => {
      await started.close();
      await receiver.close();
    });
    await started.sink.deliver(sampleEvent('download_completed'));
    await waitUntil('the delivery failed', () => started.admin.deliveries({ limit: 1, offset: 0 }).items[0]?.status === 'failed');
    assert.match(started.admin.deliveries({ limit: 1, offset: 0 }).items[0]?.attempts[0]?.error ?? '', /refused to connect to 127\.0\.0\.1: blocked by the test policy/);
    const live = await started.admin.test({ url: receiver.url, dry_run: false });
    assert.ok(live.ok && !live.result.dry_run && live.result.success === false);
    assert.equal(receiver.received.length, 0);
    assert.ok(asked.includes('127.0.0.1'));
  });

  it('keeps its own floor: a policy that allows everything still cannot open metadata addresses', async (t) => {
    const started = await startWebhookSink({
      clock: new ManualClock(),
      webhooks: [{ name: 'meta', url: 'http://168.63.129.16/machine', events: ['download_completed'] }],
      refuseTargetAddress: () => undefined,
    });
    t.after(() => started.close());
    const live = await started.admin.test({ name: 'meta', dry_run: false });
    assert.ok(live.ok && !live.result.dry_run);
    assert.match(live.result.dry_run ? '' : (live.result.error ?? ''), /refused to connect to 168\.63\.129\.16: cloud metadata address/);
  });
});
