import type { WebhookAdmin } from '@crateflow/sdk';
import type { LoadedPluginOf, LoadedPlugins } from '../plugins/plugin-host.js';
import { guardPluginCall } from '../plugins/guard-plugin-call.js';
import type { PathProblem } from '../schema/format-schema-errors.js';

/** The event sink that serves `/api/v1/webhooks/*`, with its webhook-admin capability. */
export interface WebhookAdminProvider {
  plugin: LoadedPluginOf<'event-sink'>;
  admin: WebhookAdmin;
}

export type WebhookAdminChoice = { ok: true; provider: WebhookAdminProvider | undefined } | { ok: false; problems: PathProblem[] };

/**
 * The sink's webhook-admin capability, if it offers one. `admin` is the sdk 1.0.0 name of the same capability,
 * still honoured so that plugins written against it keep working within API version 1.
 */
export function webhookAdminOf(plugin: LoadedPluginOf<'event-sink'>): WebhookAdmin | undefined {
  return plugin.instance.webhookAdmin ?? plugin.instance.admin;
}

/**
 * Picks the one event sink that serves the webhooks API, by capability and never by name. With one sink that
 * offers it, that one. With several, the one that has targets configured (each is asked for `targets()`
 * once, with `timeoutMs`), so a third-party sink can take the API over from an empty `webhooks:` block; when
 * none has targets, the first loaded (the built-in `webhooks:` sink is mounted before `plugins:`). Two with
 * targets stop the start-up: the API addresses webhooks by name and deliveries by id in one namespace, so it
 * cannot serve two logs without making both ambiguous. No sink at all: `undefined`.
 */
export async function chooseWebhookAdmin(plugins: LoadedPlugins, timeoutMs: number): Promise<WebhookAdminChoice> {
  const offering = plugins.sinks.flatMap((plugin) => {
    const admin = webhookAdminOf(plugin);
    return admin ? [{ plugin, admin }] : [];
  });
  if (offering.length <= 1) return { ok: true, provider: offering[0] };
  const counted = await Promise.all(
    offering.map(async (provider) => {
      const targets = await guardPluginCall(provider.plugin.name, 'webhookAdmin.targets', timeoutMs, () => provider.admin.targets());
      return { provider, configured: targets.length > 0 };
    }),
  );
  const configured = counted.filter((entry) => entry.configured).map((entry) => entry.provider);
  if (configured.length <= 1) return { ok: true, provider: configured[0] ?? offering[0] };
  const names = configured.map((p) => `"${p.plugin.name}" (${p.plugin.configPath})`).join(' and ');
  return {
    ok: false,
    problems: configured.slice(1).map((p) => ({
      path: p.plugin.configPath,
      message: `${names} both have webhooks configured, and only one event sink can serve /api/v1/webhooks; configure webhooks in one of them`,
    })),
  };
}
