import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { ConfigError } from '../../core/config/config-error.js';
import { startStandardWebhooksReceiver, type StandardWebhooksReceiver } from '../fakes/standard-webhooks-receiver.js';
import { startApp, type StartedApp } from '../helpers/start-app.js';
import { expectedHexSignature } from '../plugins/sink-webhooks/verify-signatures.js';

// Receivers built with the official `standardwebhooks` package, configured as docs/webhooks.md tells a user to,
// verify real deliveries of a running Crateflow (real events, real HTTP, the library's own clock check).
const PLAIN = 'crateflow-plain-secret';
const UNICODE = 'clé-secrète-ünïcode';
const WHSEC = `whsec_${randomBytes(32).toString('base64')}`;
/** What docs/webhooks.md says to give the library for a plain secret. */
const asWhsec = (secret: string) => `whsec_${Buffer.from(secret, 'utf8').toString('base64')}`;

async function post(app: StartedApp, path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${app.baseUrl}/api/v1${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const parsed: unknown = await res.json();
  assert.ok(parsed && typeof parsed === 'object' && !Array.isArray(parsed));
  return { status: res.status, json: Object.fromEntries(Object.entries(parsed)) };
}

describe('Standard Webhooks interop: the official standardwebhooks library verifies Crateflow deliveries', () => {
  const receivers: Record<string, StandardWebhooksReceiver> = {};
  let app: StartedApp;

  before(async () => {
    receivers.plain = await startStandardWebhooksReceiver(asWhsec(PLAIN));
    receivers.plainRaw = await startStandardWebhooksReceiver(PLAIN, { format: 'raw' });
    receivers.unicode = await startStandardWebhooksReceiver(asWhsec(UNICODE));
    receivers.unicodeRaw = await startStandardWebhooksReceiver(UNICODE, { format: 'raw' });
    receivers.whsec = await startStandardWebhooksReceiver(WHSEC);
    const webhook = (name: string, secret: string) => ({ name, url: receivers[name]?.url, secret, events: ['queue_added'] });
    app = await startApp({
      config: {
        webhooks: [
          webhook('plain', PLAIN),
          webhook('plainRaw', PLAIN),
          webhook('unicode', UNICODE),
          webhook('unicodeRaw', UNICODE),
          webhook('whsec', WHSEC),
        ],
      },
    });
    const added = await post(app, '/queue', { artist: 'Low', album: 'Double Negative' });
    assert.equal(added.status, 201);
  });
  after(async () => {
    await app.close();
    await Promise.all(Object.values(receivers).map((receiver) => receiver.close()));
  });

  const onlyDelivery = async (name: string) => {
    const receiver = receivers[name];
    assert.ok(receiver, name);
    const [delivery] = await receiver.waitFor(1);
    assert.ok(delivery);
    return delivery;
  };

  it('verifies a plain secret given to the library as whsec_ + base64 of its UTF-8 bytes', async () => {
    const delivery = await onlyDelivery('plain');
    assert.equal(delivery.verified, true, delivery.reason);
    assert.equal(JSON.parse(delivery.body.toString('utf8')).event, 'queue_added');
  });

  it('verifies a plain ASCII secret given to the library as is with { format: "raw" }', async () => {
    const delivery = await onlyDelivery('plainRaw');
    assert.equal(delivery.verified, true, delivery.reason);
  });

  it('verifies a non-ASCII secret in the whsec_ form, while { format: "raw" } of the string does not (it takes one byte per UTF-16 unit)', async () => {
    const delivery = await onlyDelivery('unicode');
    assert.equal(delivery.verified, true, delivery.reason);
    const raw = await onlyDelivery('unicodeRaw');
    assert.equal(raw.verified, false, 'docs/webhooks.md limits { format: "raw" } with a string to ASCII secrets');
  });

  it('verifies a secret configured in the whsec_ form with the very same string, and keys X-Webhook-Signature with the string as written', async () => {
    const delivery = await onlyDelivery('whsec');
    assert.equal(delivery.verified, true, delivery.reason);
    assert.equal(delivery.headers['x-webhook-signature'], await expectedHexSignature(WHSEC, delivery.body));
  });

  it('rejects a delivery whose body was tampered with, and accepts the untouched bytes sent again', async () => {
    const receiver = receivers.whsec;
    assert.ok(receiver);
    const delivery = await onlyDelivery('whsec');
    const replay = (body: Buffer) => fetch(receiver.url, { method: 'POST', headers: delivery.headers, body });
    const tampered = Buffer.from(delivery.body.toString('utf8').replace('Double Negative', 'Double Positive'), 'utf8');
    assert.notDeepEqual(tampered, delivery.body);
    assert.equal((await replay(tampered)).status, 401);
    assert.equal(receiver.judged.at(-1)?.reason, 'No matching signature found');
    assert.equal((await replay(delivery.body)).status, 204, 'the same headers with the original bytes still verify');
  });

  it('signs a live test with a whsec_ secret so that the library verifies it', async () => {
    const receiver = await startStandardWebhooksReceiver(WHSEC);
    after(() => receiver.close());
    const tested = await post(app, '/webhooks/test', { url: receiver.url, secret: WHSEC, dry_run: false });
    assert.equal(tested.status, 200);
    assert.equal(tested.json.success, true);
    const [judged] = await receiver.waitFor(1);
    assert.equal(judged?.verified, true, judged?.reason);
  });

  it('answers 400 naming body.secret for a test secret that starts with whsec_ but is not base64', async () => {
    const tested = await post(app, '/webhooks/test', { url: 'http://127.0.0.1:9/hook', secret: 'whsec_not base64!', dry_run: true });
    assert.equal(tested.status, 400);
    assert.match(JSON.stringify(tested.json.errors), /"path":"body\.secret".*padded base64/);
  });
});

describe('webhooks[].secret in the whsec_ form', () => {
  it('stops the start-up naming the key when the part after whsec_ is not base64', async () => {
    const started = startApp({ config: { webhooks: [{ name: 'ha', url: 'http://127.0.0.1:9/hook', secret: 'whsec_abc', events: ['queue_added'] }] } });
    await assert.rejects(started, (err: unknown) => {
      assert.ok(err instanceof ConfigError, String(err));
      assert.deepEqual(
        err.problems.map((p) => p.path),
        ['webhooks[0].secret'],
      );
      assert.match(err.problems[0]?.message ?? '', /starts with "whsec_", so the rest must be the key in padded base64/);
      return true;
    });
  });
});
