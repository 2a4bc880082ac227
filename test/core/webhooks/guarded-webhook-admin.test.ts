import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ServiceUnavailableError } from '../../../core/errors/service-unavailable-error.js';
import { LoadedPlugins } from '../../../core/plugins/plugin-host.js';
import { chooseWebhookAdmin } from '../../../core/webhooks/choose-webhook-admin.js';
import { GuardedWebhookAdmin } from '../../../core/webhooks/guarded-webhook-admin.js';

// The built-in webhooks: sink is always loaded, so a running service always has a sink offering the capability;
// an embedding without one must still answer the webhooks API as for an empty webhooks: block.
describe('GuardedWebhookAdmin without a sink that offers the capability', () => {
  const noPlugins = new LoadedPlugins([], undefined, undefined, undefined, []);
  const admin = new GuardedWebhookAdmin(undefined, noPlugins, 1000, () => Date.now());

  it('is what chooseWebhookAdmin picks when no sink offers it', async () => {
    assert.deepEqual(await chooseWebhookAdmin(noPlugins, 1000), { ok: true, provider: undefined });
  });

  it('lists no targets and an empty delivery log, echoing the page asked for', async () => {
    assert.deepEqual(await admin.targets(), []);
    assert.deepEqual(await admin.deliveries({ limit: 20, offset: 40 }), { items: [], total: 0, limit: 20, offset: 40 });
  });

  it('reports an unknown delivery id and an unknown webhook name as outcomes (404 and 400 naming body.name)', async () => {
    assert.deepEqual(await admin.redeliver('d_1'), { ok: false, reason: 'not-found', message: 'no delivery "d_1" in the log' });
    assert.deepEqual(await admin.test({ name: 'home-assistant', dry_run: true }), {
      ok: false,
      field: 'name',
      message: 'no webhook named "home-assistant" is configured',
    });
  });

  it('answers a test of an ad-hoc url with 503, since nothing could send it', async () => {
    await assert.rejects(admin.test({ url: 'http://127.0.0.1:9/hook', dry_run: false }), (err: unknown) => {
      assert.ok(err instanceof ServiceUnavailableError);
      assert.equal(err.status, 503);
      return true;
    });
  });
});
