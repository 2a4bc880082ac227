import assert from 'node:assert/strict';
import { Type, type TSchema } from 'typebox';
import type { PluginDefinition } from '../define-plugin.js';
import type { EventSink } from '../kinds/event-sink.js';
import { WebhookDeliveryPage, WebhookTarget, WebhookTestResult, type WebhookAdmin } from '../kinds/webhook-admin.js';
import { assertRecord } from './check-record.js';
import type { ContractCheck } from './contract-check.js';
import type { EventSinkContractOptions, EventSinkService } from './event-sink-contract.js';
import { withInstance } from './plugin-harness.js';

/**
 * How long the kit lets one webhook-admin call take. The server's deadline is `events.sink_timeout_ms`
 * (10 s by default); half of that leaves a sink room on a loaded machine and still catches one that hangs.
 */
const CALL_DEADLINE_MS = 5_000;
const METHODS = ['targets', 'test', 'deliveries', 'redeliver'] as const;
const UNKNOWN_NAME = 'contract-kit-no-such-webhook';
const UNKNOWN_DELIVERY = 'contract-kit-no-such-delivery';

/**
 * The webhook-admin capability, checked only on a sink that offers it (`webhookAdmin`, or the sdk 1.0.0 name
 * `admin`): a sink without it passes by having neither member. The checks call every method as the server's
 * webhooks API does and hold the answers to the records' schemas and the outcome rules.
 *
 * @example
 * const checks = webhookAdminChecks(plugin, { config: {} });
 */
export function webhookAdminChecks<S extends TSchema, V extends EventSinkService>(
  plugin: PluginDefinition<'event-sink', S>,
  options: EventSinkContractOptions<S, V>,
): ContractCheck[] {
  const withAdmin = (body: (admin: WebhookAdmin, service: V | undefined) => Promise<void>) =>
    withInstance(plugin, options, async (h) => {
      const admin = offeredAdmin(plugin.manifest.name, h.instance);
      if (admin) await body(admin, h.service);
    });
  return [
    {
      name: 'webhook-admin capability (when offered): every call answers in time with records that match their schemas',
      run: () =>
        withAdmin(async (admin) => {
          const targets = await answered('targets()', () => admin.targets());
          assertRecord(Type.Array(WebhookTarget), targets, 'webhookAdmin.targets()');
          const page = await answered('deliveries()', () => admin.deliveries({ limit: 2, offset: 0 }));
          assertRecord(WebhookDeliveryPage, page, 'webhookAdmin.deliveries({ limit: 2, offset: 0 })');
          assert.equal(page.limit, 2, 'deliveries() must echo the limit it was given');
          assert.equal(page.offset, 0, 'deliveries() must echo the offset it was given');
          assert.ok(page.items.length <= 2, `deliveries() returned ${page.items.length} items for limit 2`);
        }),
    },
    {
      name: 'webhook-admin capability (when offered): unknown names and delivery ids are outcomes, and a dry-run test sends nothing',
      run: () =>
        withAdmin(async (admin, service) => {
          const unknown = await answered('test()', () => admin.test({ name: UNKNOWN_NAME, dry_run: true }));
          assert.deepEqual(
            unknown.ok ? unknown : { ok: unknown.ok, field: unknown.field },
            { ok: false, field: 'name' },
            'test() of a name that is not configured must answer { ok: false, field: "name" } (the API answers 400 naming body.name)',
          );
          const missing = await answered('redeliver()', () => admin.redeliver(UNKNOWN_DELIVERY));
          assert.equal(missing.ok ? 'ok' : missing.reason, 'not-found', 'redeliver() of an unknown id must answer { ok: false, reason: "not-found" }');
          const [first] = await answered('targets()', () => admin.targets());
          if (!first) return;
          const before = await service?.deliveries?.();
          const dry = await answered('test()', () => admin.test({ name: first.name, dry_run: true }));
          assert.ok(dry.ok, `a dry-run test of "${first.name}" failed: ${dry.ok ? '' : dry.message}`);
          assertRecord(WebhookTestResult, dry.result, `webhookAdmin.test({ name: "${first.name}", dry_run: true })`);
          assert.equal(dry.result.dry_run, true, 'a dry-run test must answer dry_run: true');
          if (before !== undefined) assert.equal(await service?.deliveries?.(), before, 'a dry-run test must send nothing');
        }),
    },
  ];
}

function offeredAdmin(name: string, instance: EventSink): WebhookAdmin | undefined {
  const admin = instance.webhookAdmin ?? instance.admin;
  if (admin === undefined) return undefined;
  const notFunctions = METHODS.filter((method) => typeof Reflect.get(admin, method) !== 'function');
  assert.deepEqual(notFunctions, [], `plugin "${name}": webhookAdmin lacks ${notFunctions.map((m) => `${m}()`).join(', ')}`);
  return admin;
}

async function answered<T>(what: string, call: () => T | Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new assert.AssertionError({ message: `webhookAdmin.${what} did not answer within ${CALL_DEADLINE_MS} ms` })), CALL_DEADLINE_MS);
  });
  try {
    return await Promise.race([Promise.resolve().then(call), late]);
  } finally {
    clearTimeout(timer);
  }
}
