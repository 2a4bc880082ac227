import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { definePlugin, PLUGIN_API_VERSION, Type } from '@crateflow/sdk';
import { eventSinkContractChecks, testEventSinkContract } from '@crateflow/sdk/testing';
import { startFakeWebhookReceiver, type FakeWebhookReceiver } from '../../fakes/fake-webhook-receiver.js';

type Flaw = 'none' | 'not-idempotent' | 'throws' | 'wrong-api';

const Config = Type.Object({ url: Type.String({ format: 'uri', description: 'where to post' }) }, { additionalProperties: false });

/** A sink that posts each event's type, remembering sent ids in its storage; with an optional flaw. */
function sampleSink(flaw: Flaw = 'none') {
  return definePlugin({
    manifest: { name: 'sample-sink', kind: 'event-sink', apiVersion: flaw === 'wrong-api' ? 2 : PLUGIN_API_VERSION, configSchema: Config },
    create: ({ config, http, storage }) => ({
      async deliver(event) {
        if (flaw === 'throws' && event.type === 'wishlist_removed') throw new TypeError('cannot read properties of undefined');
        if (flaw !== 'not-idempotent' && storage.get(`sent/${event.id}`)) return;
        await http.request({ url: config.url, method: 'POST', body: event.type });
        await storage.set(`sent/${event.id}`, true);
      },
    }),
  });
}

async function startReceiver(): Promise<FakeWebhookReceiver & { deliveries(): number }> {
  const fake = await startFakeWebhookReceiver();
  return Object.assign(fake, { deliveries: () => fake.received.length });
}
const options = { service: startReceiver, config: (fake: FakeWebhookReceiver) => ({ url: fake.url }) };

testEventSinkContract(sampleSink(), options);

function check(flaw: Flaw, name: RegExp) {
  const found = eventSinkContractChecks(sampleSink(flaw), options).find((c) => name.test(c.name));
  assert.ok(found, `no check matching ${name}`);
  return found;
}

describe('event-sink contract kit', () => {
  it('fails a sink that sends an event again when it sees the same id twice', async () => {
    await assert.rejects(check('not-idempotent', /only once/).run(), /reached the service 2 time\(s\)/);
  });

  it('fails a sink that throws on a valid event', async () => {
    await assert.rejects(check('throws', /every type/).run(), /cannot read properties of undefined/);
  });

  it('fails a plugin built for another plugin API with the server’s wording', async () => {
    await assert.rejects(check('wrong-api', /manifest/).run(), /plugin "sample-sink" was built for plugin API 2, this sdk \(and servers built on it\) supports 1/);
  });
});
