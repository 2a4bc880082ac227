import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { redactUrl, scrubTargetUrl } from '../../../plugins/sink-webhooks/redact-url.js';
import { startFakeWebhookReceiver } from '../../fakes/fake-webhook-receiver.js';
import { ManualClock } from '../../helpers/manual-clock.js';
import { sampleEvent } from './sample-events.js';
import { startWebhookSink } from './start-webhook-sink.js';
import { waitUntil } from './wait-until.js';

const PATH_TOKEN = 'ha-webhook-id-5e1f0c2d9b';

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = address && typeof address === 'object' ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('webhook URLs shown to viewers', () => {
  it('keep scheme, host and a hint only', () => {
    assert.equal(redactUrl(`http://u:p@ha.lan:8123/api/webhook/${PATH_TOKEN}`), 'http://ha.lan:8123/…2d9b');
    assert.equal(redactUrl('https://n8n.lan/'), 'https://n8n.lan/');
    assert.equal(redactUrl('not a url'), '(not a valid URL)');
  });

  it('scrubs the target URL out of an error text, whole or as origin and path', () => {
    const url = `http://10.0.0.5:8123/api/webhook/${PATH_TOKEN}?x=1`;
    const text = `request to http://10.0.0.5:8123/api/webhook/${PATH_TOKEN} failed; also ${url}`;
    const scrubbed = scrubTargetUrl(text, url);
    assert.ok(!scrubbed.includes(PATH_TOKEN), scrubbed);
    assert.equal(scrubbed, 'request to http://10.0.0.5:8123/…?x=1 failed; also http://10.0.0.5:8123/…?x=1');
  });

  it('keeps a token in the webhook path out of the delivery log, for network errors and redirects alike', async (t) => {
    const clock = new ManualClock();
    const port = await closedPort();
    const redirector = await startFakeWebhookReceiver(() => ({ status: 302, redirectTo: `http://elsewhere.lan/next/${PATH_TOKEN}` }));
    const started = await startWebhookSink({
      clock,
      webhooks: [
        { name: 'dead', url: `http://127.0.0.1:${port}/api/webhook/${PATH_TOKEN}`, events: ['download_completed'] },
        { name: 'moved', url: `${redirector.url}/${PATH_TOKEN}`, events: ['download_completed'] },
      ],
    });
    t.after(async () => {
      await started.close();
      await redirector.close();
    });
    await started.sink.deliver(sampleEvent('download_completed'));
    await waitUntil('both deliveries failed', () => started.admin.deliveries({ limit: 10, offset: 0, status: 'failed' }).total === 2);
    const log = JSON.stringify(started.admin.deliveries({ limit: 10, offset: 0 }));
    assert.ok(!log.includes(PATH_TOKEN), log);
    assert.match(log, /redirect 302 to http:\/\/elsewhere\.lan\/…2d9b not followed/);
    assert.match(log, new RegExp(`127\\.0\\.0\\.1:${port}/…`));
    assert.ok(!JSON.stringify(started.admin.targets()).includes(PATH_TOKEN));
  });
});
