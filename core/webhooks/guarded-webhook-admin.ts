import type {
  WebhookDeliveryPage,
  WebhookDeliveryQuery,
  WebhookRedeliverOutcome,
  WebhookTarget,
  WebhookTestOutcome,
  WebhookTestRequest,
} from '@crateflow/sdk';
import { PluginUnavailableError } from '../errors/plugin-unavailable-error.js';
import { ServiceUnavailableError } from '../errors/service-unavailable-error.js';
import { guardPluginCall } from '../plugins/guard-plugin-call.js';
import type { LoadedPlugins } from '../plugins/plugin-host.js';
import type { WebhookAdminProvider } from './choose-webhook-admin.js';

/**
 * The longest `timeout_ms` a test request may ask for (the WebhookTestRequest schema's maximum): a live test
 * may take that long on top of the usual deadline before the sink is considered stuck.
 */
export const MAX_TEST_TIMEOUT_MS = 30_000;

/**
 * The webhooks API's way into the chosen sink's webhook-admin capability. Every call has a deadline
 * (`callTimeoutMs`, plus MAX_TEST_TIMEOUT_MS for a test), like every other call into a plugin, so a stuck sink
 * costs an HTTP client one 503 instead of a hung request. Failures are noted in the plugin's status.
 *
 * With no sink offering the capability, the API answers as for an empty `webhooks:` block (no targets, an
 * empty log, unknown names and ids); only a test of an ad-hoc url, which needs a sink to send it, is a 503.
 */
export class GuardedWebhookAdmin {
  constructor(
    private readonly provider: WebhookAdminProvider | undefined,
    private readonly plugins: LoadedPlugins,
    private readonly callTimeoutMs: number,
    private readonly now: () => number,
  ) {}

  targets(): Promise<WebhookTarget[]> {
    return this.call('targets', this.callTimeoutMs, (admin) => admin.targets(), () => []);
  }

  test(input: WebhookTestRequest): Promise<WebhookTestOutcome> {
    return this.call('test', this.callTimeoutMs + MAX_TEST_TIMEOUT_MS, (admin) => admin.test(input), () => {
      if (input.name !== undefined) return { ok: false, field: 'name', message: `no webhook named "${input.name}" is configured` };
      throw new ServiceUnavailableError('no event sink that sends webhooks is loaded, so a test cannot be sent');
    });
  }

  deliveries(query: WebhookDeliveryQuery): Promise<WebhookDeliveryPage> {
    return this.call('deliveries', this.callTimeoutMs, (admin) => admin.deliveries(query), () => ({ items: [], total: 0, limit: query.limit, offset: query.offset }));
  }

  redeliver(id: string): Promise<WebhookRedeliverOutcome> {
    return this.call('redeliver', this.callTimeoutMs, (admin) => admin.redeliver(id), () => ({ ok: false, reason: 'not-found', message: `no delivery "${id}" in the log` }));
  }

  private async call<T>(
    operation: string,
    timeoutMs: number,
    run: (admin: WebhookAdminProvider['admin']) => T | Promise<T>,
    withoutProvider: () => T,
  ): Promise<T> {
    const provider = this.provider;
    if (!provider) return withoutProvider();
    try {
      const result = await guardPluginCall(provider.plugin.name, `webhookAdmin.${operation}`, timeoutMs, () => run(provider.admin));
      this.plugins.noteSuccess(provider.plugin, new Date(this.now()));
      return result;
    } catch (err: unknown) {
      this.plugins.noteFailure(provider.plugin, err, new Date(this.now()));
      throw new PluginUnavailableError(`the webhooks API could not be served: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  }
}
