import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import type { RequestListener } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { buildNodePackage } from './build-node-package.js';
import { NodeRedTestHelper, nextEvent, serve, type FlowNode, type LoadedFlow } from './node-red-test-helper.js';
import { crateflowEvent, signWebhook, type SignedDelivery } from './sign-webhook.js';

const SECRET = 'shared-webhook-secret';
const PATH = '/crateflow/hooks';
let workDir: string;
let helper: NodeRedTestHelper;

before(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'crateflow-nr-webhook-'));
  helper = new NodeRedTestHelper(await buildNodePackage(join(workDir, 'package')));
  await helper.start();
});
after(async () => {
  await helper.stop();
  await rm(workDir, { recursive: true, force: true });
});
afterEach(() => helper.unload());

interface Receiver {
  flow: LoadedFlow;
  url: string;
  /** Messages per output, in arrival order. */
  outputs: Array<Array<Record<string, unknown>>>;
}

async function loadReceiver(config: Record<string, unknown> = {}, credentials: Record<string, string> = { webhookSecret: SECRET }): Promise<Receiver> {
  const outputCount = typeof config.outputs === 'number' ? config.outputs : 1;
  const outputs = Array.from({ length: outputCount }, () => new Array<Record<string, unknown>>());
  const flow: FlowNode[] = [
    { id: 's1', type: 'crateflow-server', url: 'http://127.0.0.1:9' },
    { id: 'w1', type: 'crateflow-webhook', server: 's1', path: PATH, wires: outputs.map((_, index) => [`out${index}`]), ...config },
    ...outputs.map((_, index) => ({ id: `out${index}`, type: 'helper' })),
  ];
  const loaded = await helper.load(['crateflow-server', 'crateflow-webhook'], flow, { s1: credentials });
  outputs.forEach((received, index) => loaded.getNode(`out${index}`).on('input', (msg: Record<string, unknown>) => received.push(msg)));
  return { flow: loaded, url: loaded.httpNodeUrl + PATH, outputs };
}

async function deliver(url: string, delivery: SignedDelivery): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, { method: 'POST', headers: delivery.headers, body: delivery.body });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

/** Gives the runtime a moment to emit, before asserting on what was (or was not) emitted. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

/** Waits until output `index` has received `count` messages (messages reach helper nodes asynchronously). */
async function received(receiver: Receiver, count: number, index = 0): Promise<Array<Record<string, unknown>>> {
  const deadline = Date.now() + 3000;
  while ((receiver.outputs[index]?.length ?? 0) < count) {
    if (Date.now() > deadline) throw new Error(`output ${index} got ${receiver.outputs[index]?.length} of ${count} message(s)`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await settle();
  return receiver.outputs[index] ?? [];
}

describe('crateflow-webhook', () => {
  it('emits a delivery signed with both schemes as msg.payload, msg.event and msg.delivery and answers 200', async () => {
    const receiver = await loadReceiver();
    const payload = crateflowEvent('queue_added', { id: 'q1', artist: 'Portishead', album: 'Dummy' });
    const emitted = nextEvent<Record<string, unknown>>(receiver.flow.getNode('out0'), 'input');
    const delivery = signWebhook(SECRET, payload, { deliveryId: 'd-1' });
    const answer = await deliver(receiver.url, delivery);
    assert.equal(answer.status, 200);
    const msg = await emitted;
    assert.deepEqual(msg.payload, payload);
    assert.equal(msg.event, 'queue_added');
    assert.equal(msg.topic, 'queue_added');
    assert.equal(msg.delivery, 'd-1');
  });

  it('accepts X-Webhook-Signature alone and the Standard Webhooks headers alone', async () => {
    const receiver = await loadReceiver();
    const payload = crateflowEvent('queue_approved', { artist: 'Air', album: 'Moon Safari' });
    assert.equal((await deliver(receiver.url, signWebhook(SECRET, payload, { schemes: ['hex'] }))).status, 200);
    assert.equal((await deliver(receiver.url, signWebhook(SECRET, payload, { schemes: ['standard'] }))).status, 200);
    assert.equal((await received(receiver, 2)).length, 2);
  });

  it('verifies the exact bytes, so a body with different whitespace but the same JSON is refused', async () => {
    const receiver = await loadReceiver();
    const signed = signWebhook(SECRET, crateflowEvent('queue_added', { id: 'q2', artist: 'Low' }), { schemes: ['hex'] });
    const reformatted = JSON.stringify(JSON.parse(signed.body), null, 2);
    const answer = await deliver(receiver.url, { ...signed, body: reformatted });
    assert.equal(answer.status, 401);
    await settle();
    assert.equal(receiver.outputs[0]?.length, 0);
  });

  it('answers 401 problem+json and emits nothing when the signature is missing', async () => {
    const receiver = await loadReceiver();
    const response = await fetch(receiver.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-webhook-delivery': 'd-9' },
      body: JSON.stringify(crateflowEvent('queue_added', { id: 'q3', artist: 'Sade' })),
    });
    assert.equal(response.status, 401);
    assert.equal(response.headers.get('content-type'), 'application/problem+json');
    assert.deepEqual(await response.json(), { title: 'Unauthorized', status: 401, detail: 'missing signature' });
    await settle();
    assert.equal(receiver.outputs[0]?.length, 0);
  });

  it('answers 401 for a delivery signed with another secret, in either scheme', async () => {
    const receiver = await loadReceiver();
    const payload = crateflowEvent('queue_added', { id: 'q4', artist: 'Björk' });
    assert.equal((await deliver(receiver.url, signWebhook('forged', payload, { schemes: ['hex'] }))).status, 401);
    assert.equal((await deliver(receiver.url, signWebhook('forged', payload, { schemes: ['standard'] }))).status, 401);
    await settle();
    assert.equal(receiver.outputs[0]?.length, 0);
  });

  it('answers 401 when one of two signatures is wrong', async () => {
    const receiver = await loadReceiver();
    const good = signWebhook(SECRET, crateflowEvent('queue_added', { id: 'q5', artist: 'Can' }));
    const answer = await deliver(receiver.url, { ...good, headers: { ...good.headers, 'x-webhook-signature': '0'.repeat(64) } });
    assert.equal(answer.status, 401);
  });

  it('answers 401 for a Standard Webhooks timestamp outside the accepted window', async () => {
    const receiver = await loadReceiver({ toleranceSeconds: 60 });
    const old = Math.floor(Date.now() / 1000) - 120;
    const answer = await deliver(receiver.url, signWebhook(SECRET, crateflowEvent('queue_added', { id: 'q6', artist: 'Tortoise' }), { timestampSeconds: old }));
    assert.equal(answer.status, 401);
    assert.deepEqual(answer.body, { title: 'Unauthorized', status: 401, detail: 'timestamp outside the accepted window' });
  });

  it('checks the signed body timestamp when only X-Webhook-Signature is sent, and not at all with a window of 0', async () => {
    const stale = crateflowEvent('queue_added', { id: 'q7', artist: 'Slint' }, new Date(Date.now() - 3600_000));
    const strict = await loadReceiver({ toleranceSeconds: 300 });
    assert.equal((await deliver(strict.url, signWebhook(SECRET, stale, { schemes: ['hex'] }))).status, 401);
    await helper.unload();
    const lenient = await loadReceiver({ toleranceSeconds: 0 });
    assert.equal((await deliver(lenient.url, signWebhook(SECRET, stale, { schemes: ['hex'] }))).status, 200);
  });

  it('acknowledges a repeated delivery id with 200 without emitting it again', async () => {
    const receiver = await loadReceiver();
    const delivery = signWebhook(SECRET, crateflowEvent('queue_added', { id: 'q8', artist: 'Mogwai' }), { deliveryId: 'same' });
    assert.deepEqual(await deliver(receiver.url, delivery), { status: 200, body: { received: true } });
    assert.deepEqual(await deliver(receiver.url, delivery), { status: 200, body: { received: true, duplicate: true } });
    assert.equal((await received(receiver, 1)).length, 1);
  });

  it('emits a repeated delivery again when duplicate rejection is off', async () => {
    const receiver = await loadReceiver({ rejectDuplicates: false });
    const delivery = signWebhook(SECRET, crateflowEvent('queue_added', { id: 'q9', artist: 'Mogwai' }), { deliveryId: 'same' });
    await deliver(receiver.url, delivery);
    await deliver(receiver.url, delivery);
    assert.equal((await received(receiver, 2)).length, 2);
  });

  it('answers 200 but emits only the events of its filter', async () => {
    const receiver = await loadReceiver({ events: ['queue_approved'] });
    assert.equal((await deliver(receiver.url, signWebhook(SECRET, crateflowEvent('queue_added', { id: 'q10', artist: 'Yo La Tengo' })))).status, 200);
    assert.equal((await deliver(receiver.url, signWebhook(SECRET, crateflowEvent('queue_approved', { artist: 'Yo La Tengo' })))).status, 200);
    assert.deepEqual((await received(receiver, 1)).map((msg) => msg.event), ['queue_approved']);
  });

  it('sends each event to its own output when split, in the order of the selected events', async () => {
    const receiver = await loadReceiver({ events: ['queue_added', 'download_completed'], splitOutputs: true, outputs: 2 });
    await deliver(receiver.url, signWebhook(SECRET, crateflowEvent('download_completed', { artist: 'Stereolab', download_path: '/music/x' })));
    await deliver(receiver.url, signWebhook(SECRET, crateflowEvent('queue_added', { id: 'q11', artist: 'Stereolab' })));
    await received(receiver, 1, 0);
    await received(receiver, 1, 1);
    assert.deepEqual(receiver.outputs.map((messages) => messages.map((msg) => msg.event)), [['queue_added'], ['download_completed']]);
  });

  it('numbers the outputs by the five known events when split without a filter', async () => {
    const receiver = await loadReceiver({ splitOutputs: true, outputs: 5 });
    await deliver(receiver.url, signWebhook(SECRET, crateflowEvent('wishlist_removed', { artist: 'Can' })));
    await received(receiver, 1, 4);
    assert.deepEqual(receiver.outputs.map((messages) => messages.length), [0, 0, 0, 0, 1]);
  });

  it('refuses every delivery with 401 when the server node has no webhook secret', async () => {
    const receiver = await loadReceiver({}, {});
    const answer = await deliver(receiver.url, signWebhook('', crateflowEvent('queue_added', { id: 'q12', artist: 'Can' })));
    assert.equal(answer.status, 401);
    assert.deepEqual(answer.body, { title: 'Unauthorized', status: 401, detail: 'no webhook secret is configured in Node-RED' });
  });

  it('answers 400 to a correctly signed body that is not a Crateflow event', async () => {
    const receiver = await loadReceiver();
    const answer = await deliver(receiver.url, signWebhook(SECRET, ['not', 'an', 'event'], { schemes: ['hex'] }));
    assert.equal(answer.status, 400);
  });

  it('answers 413 to a body over 1 MiB without reading it all', async () => {
    const receiver = await loadReceiver();
    const big = signWebhook(SECRET, crateflowEvent('queue_added', { id: 'q13', artist: 'x'.repeat(1024 * 1024 + 10) }));
    assert.equal((await deliver(receiver.url, big)).status, 413);
  });

  it('removes its route when the flow stops', async () => {
    const receiver = await loadReceiver();
    const delivery = signWebhook(SECRET, crateflowEvent('queue_added', { id: 'q14', artist: 'Can' }));
    const app: RequestListener = receiver.flow.httpNode;
    await helper.unload();
    const server = await serve(app);
    try {
      const response = await fetch(server.origin + PATH, { method: 'POST', headers: delivery.headers, body: delivery.body });
      assert.equal(response.status, 404);
    } finally {
      await server.close();
    }
  });
});
