import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeWebhookReceiver } from '../../fakes/fake-webhook-receiver.js';
import { startApp } from '../../helpers/start-app.js';

async function getJson(url: string): Promise<unknown> {
  const res = await fetch(url);
  assert.equal(res.status, 200);
  return res.json();
}

describe('GET /webhooks after a receiver answered 410 Gone', () => {
  it('shows gone_at on the webhook and the final 410 attempt in the delivery log', async (t) => {
    const receiver = await startFakeWebhookReceiver(() => ({ status: 410 }));
    const app = await startApp({ config: { webhooks: [{ name: 'left', url: receiver.url, events: ['queue_added'], retry: 5 }] } });
    t.after(async () => {
      await app.close();
      await receiver.close();
    });
    const added = await fetch(`${app.baseUrl}/api/v1/queue`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ artist: 'Gone', album: 'Away' }) });
    assert.equal(added.status, 201);
    let log = '';
    for (const until = Date.now() + 5000; Date.now() < until && !log.includes('"status":"failed"'); await new Promise((resolve) => setTimeout(resolve, 20))) {
      log = JSON.stringify(await getJson(`${app.baseUrl}/api/v1/webhooks/deliveries?webhook=left`));
    }
    assert.match(log, /"status":"failed"/, log);
    assert.match(log, /"status_code":410,"error":"answered 410 Gone: final, no retries; the webhook is flagged as gone"/);
    assert.match(log, /"next_attempt_at":null/);
    const list = JSON.stringify(await getJson(`${app.baseUrl}/api/v1/webhooks`));
    assert.match(list, /"name":"left".*"gone_at":"\d{4}-\d\d-\d\dT/);
    assert.equal(receiver.received.length, 1, 'retry: 5 notwithstanding, one attempt');
  });
});
