import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { definePlugin, PLUGIN_API_VERSION, Type, type WebhookAdmin, type WebhookTarget } from '@crateflow/sdk';
import { eventSinkContractChecks, testEventSinkContract } from '@crateflow/sdk/testing';
import { startFakeWebhookReceiver, type FakeWebhookReceiver } from '../../fakes/fake-webhook-receiver.js';

type Flaw = 'none' | 'no-capability' | 'bad-target' | 'throws-on-unknown-name' | 'sends-on-dry-run' | 'lacks-redeliver' | 'ignores-limit';

const Config = Type.Object({ url: Type.String({ format: 'uri', description: 'the one endpoint' }) }, { additionalProperties: false });

/** A sink with one endpoint that offers the webhook-admin capability, with an optional flaw in it. */
function adminSink(flaw: Flaw) {
  return definePlugin({
    manifest: { name: 'admin-sink', kind: 'event-sink', apiVersion: PLUGIN_API_VERSION, configSchema: Config },
    create: ({ config, http, storage }) => {
      const target: WebhookTarget = { name: 'only', url: 'http://127.0.0.1/…', enabled: true, events: ['download_completed'], timeout_ms: 1000, retry: 0, has_secret: false };
      const send = (body: string) => http.request({ url: config.url, method: 'POST', body });
      const admin: WebhookAdmin = {
        targets: () => (flaw === 'bad-target' ? [{ ...target, retry: -1.5 }] : [target]),
        async test(input) {
          if (input.name !== undefined && input.name !== target.name) {
            if (flaw === 'throws-on-unknown-name') throw new Error(`unknown ${input.name}`);
            return { ok: false, field: 'name', message: `no endpoint "${input.name}"` };
          }
          if (flaw === 'sends-on-dry-run') await send('sample');
          return { ok: true, result: { dry_run: true, payload: {}, body: '{}', headers: {} } };
        },
        deliveries: (query) => ({ items: [], total: 0, limit: flaw === 'ignores-limit' ? 50 : query.limit, offset: query.offset }),
        redeliver: async (id) => ({ ok: false, reason: 'not-found', message: `no delivery "${id}"` }),
      };
      const deliver = async (event: { id: string; type: string }) => {
        if (storage.get(`sent/${event.id}`)) return;
        await send(event.type);
        await storage.set(`sent/${event.id}`, true);
      };
      if (flaw === 'no-capability') return { deliver };
      if (flaw === 'lacks-redeliver') {
        // A plugin in plain JavaScript can leave a method out; the type system cannot say so without a cast.
        const lacking: WebhookAdmin = { ...admin };
        Reflect.deleteProperty(lacking, 'redeliver');
        return { deliver, webhookAdmin: lacking };
      }
      return { deliver, webhookAdmin: admin };
    },
  });
}

async function startReceiver(): Promise<FakeWebhookReceiver & { deliveries(): number }> {
  const fake = await startFakeWebhookReceiver();
  return Object.assign(fake, { deliveries: () => fake.received.length });
}
const options = { service: startReceiver, config: (fake: FakeWebhookReceiver) => ({ url: fake.url }) };

testEventSinkContract(adminSink('none'), options);

function check(flaw: Flaw, name: RegExp) {
  const found = eventSinkContractChecks(adminSink(flaw), options).find((c) => name.test(c.name));
  assert.ok(found, `no check matching ${name}`);
  return found;
}

describe('event-sink contract kit: webhook-admin capability', () => {
  it('passes a sink that does not offer the capability', async () => {
    await check('no-capability', /schemas/).run();
    await check('no-capability', /dry-run/).run();
  });

  it('fails a capability whose targets do not match the WebhookTarget schema', async () => {
    await assert.rejects(check('bad-target', /schemas/).run(), /webhookAdmin\.targets\(\) is not valid:[\s\S]*\/0\/retry/);
  });

  it('fails a capability whose delivery page does not echo the limit it was asked for', async () => {
    await assert.rejects(check('ignores-limit', /schemas/).run(), /deliveries\(\) must echo the limit/);
  });

  it('fails a capability that throws on an unknown name instead of naming the field', async () => {
    await assert.rejects(check('throws-on-unknown-name', /dry-run/).run(), /unknown contract-kit-no-such-webhook/);
  });

  it('fails a capability whose dry-run test sends a request', async () => {
    await assert.rejects(check('sends-on-dry-run', /dry-run/).run(), /a dry-run test must send nothing/);
  });

  it('fails a capability that lacks one of its four methods, naming it', async () => {
    await assert.rejects(check('lacks-redeliver', /schemas/).run(), /webhookAdmin lacks redeliver\(\)/);
  });
});
