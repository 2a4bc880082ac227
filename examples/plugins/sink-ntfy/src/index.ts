import { CredentialsError, definePlugin, PLUGIN_API_VERSION, RetryLaterError, type PluginStorage } from '@crateflow/sdk';
import { formatMessage } from './format-message.js';
import { NtfyConfig } from './ntfy-config.schema.js';

// How many delivered event ids to remember. Delivery is at-least-once (the same event may come again after a
// restart), so the sink remembers what it already sent; older ids are forgotten.
const REMEMBERED = 1000;

export default definePlugin({
  manifest: { name: 'sink-ntfy', kind: 'event-sink', apiVersion: PLUGIN_API_VERSION, configSchema: NtfyConfig, version: '1.0.0' },
  create: ({ config, http, storage, log }) => ({
    async deliver(event) {
      if (!config.events.includes(event.type)) return;
      if (storage.get(`sent/${event.id}`) !== undefined) return;
      const message = formatMessage(event);
      const headers: Record<string, string> = { title: message.title, tags: message.tags, 'content-type': 'text/plain; charset=utf-8' };
      if (config.access_token) headers.authorization = `Bearer ${config.access_token}`;
      const res = await http.request({ url: config.topic_url, method: 'POST', headers, body: message.body, timeoutMs: config.timeout_ms });
      if (res.status === 401 || res.status === 403) throw new CredentialsError(`ntfy refused the access token (${res.status})`);
      if (res.status === 429 || res.status >= 500) {
        const retryAfter = Number(res.headers['retry-after']);
        throw new RetryLaterError(`ntfy answered ${res.status}`, Number.isFinite(retryAfter) ? { retryAfterMs: retryAfter * 1000 } : {});
      }
      if (res.status < 200 || res.status > 299) throw new Error(`ntfy answered ${res.status}: ${res.text().slice(0, 200)}`);
      await storage.set(`sent/${event.id}`, event.type);
      await forgetOldest(storage);
      log.debug({ event_id: event.id }, 'sent to ntfy');
    },
  }),
});

async function forgetOldest(storage: PluginStorage): Promise<void> {
  const sent = [...storage.entries('sent/')].map(([key]) => key);
  for (const key of sent.slice(0, Math.max(0, sent.length - REMEMBERED))) await storage.delete(key);
}
