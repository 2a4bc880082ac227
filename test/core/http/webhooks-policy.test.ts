import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeWebhookReceiver } from '../../fakes/fake-webhook-receiver.js';
import { startApp } from '../../helpers/start-app.js';

async function liveTest(baseUrl: string, url: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${baseUrl}/api/v1/webhooks/test`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url, timeout_ms: 2000 }) });
  assert.equal(res.status, 200);
  const body: unknown = await res.json();
  assert.ok(body && typeof body === 'object' && !Array.isArray(body));
  return Object.fromEntries(Object.entries(body));
}

describe('webhooks_policy', () => {
  it('refuses loopback targets, live tests and deliveries alike, when loopback: block', async (t) => {
    const receiver = await startFakeWebhookReceiver();
    const app = await startApp({
      config: { webhooks_policy: { loopback: 'block' }, webhooks: [{ name: 'local', url: receiver.url, events: ['queue_added'] }] },
    });
    t.after(async () => {
      await app.close();
      await receiver.close();
    });
    for (const url of [receiver.url, receiver.url.replace('127.0.0.1', 'localhost'), receiver.url.replace('127.0.0.1', '[::ffff:127.0.0.1]')]) {
      const result = await liveTest(app.baseUrl, url);
      assert.equal(result.success, false, url);
      assert.match(String(result.error), /refused to connect to .*loopback address \(webhooks_policy\.loopback: block\)/, url);
    }
    await fetch(`${app.baseUrl}/api/v1/queue`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ artist: 'Policy', album: 'Probe' }) });
    let log: unknown;
    for (const until = Date.now() + 5000; Date.now() < until; await new Promise((resolve) => setTimeout(resolve, 20))) {
      log = await (await fetch(`${app.baseUrl}/api/v1/webhooks/deliveries?status=failed`)).json();
      if (JSON.stringify(log).includes('webhooks_policy.loopback')) break;
    }
    assert.match(JSON.stringify(log), /loopback address \(webhooks_policy\.loopback: block\)/);
    assert.equal(receiver.received.length, 0, 'nothing reached the loopback receiver');
  });

  it('lets allow_cidrs open one address inside a blocked category', async (t) => {
    const receiver = await startFakeWebhookReceiver();
    const app = await startApp({ config: { webhooks_policy: { loopback: 'block', allow_cidrs: ['127.0.0.1/32'] } } });
    t.after(async () => {
      await app.close();
      await receiver.close();
    });
    assert.equal((await liveTest(app.baseUrl, receiver.url)).success, true);
    assert.equal((await liveTest(app.baseUrl, receiver.url.replace('127.0.0.1', '[::1]'))).success, false, '::1 is not in the allowed CIDR');
  });

  it('still refuses metadata addresses when allow_cidrs names them', async (t) => {
    const app = await startApp({ config: { webhooks_policy: { allow_cidrs: ['169.254.0.0/16', '168.63.129.16/32'] } } });
    t.after(() => app.close());
    for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://168.63.129.16/machine']) {
      assert.match(String((await liveTest(app.baseUrl, url)).error), /refused to connect .*metadata/, url);
    }
  });

  it('stops the start with one line per CIDR that is not one', async () => {
    await assert.rejects(
      startApp({ config: { webhooks_policy: { allow_cidrs: ['lan'], block_cidrs: ['10.0.0.0/8', '300.1.1.1/8'] } } }),
      (err: unknown) => {
        assert.ok(err instanceof Error);
        assert.match(err.message, /webhooks_policy\.allow_cidrs\[0\]: "lan" is not a CIDR/);
        assert.match(err.message, /webhooks_policy\.block_cidrs\[1\]: "300\.1\.1\.1\/8" is not a CIDR/);
        assert.doesNotMatch(err.message, /block_cidrs\[0\]/);
        return true;
      },
    );
    await assert.rejects(startApp({ config: { webhooks_policy: { lan: 'deny' } } }), /webhooks_policy\.lan/);
  });
});
