import { createHttpClient, definePlugin, PLUGIN_API_VERSION, RetryLaterError, type Notification } from '@crateflow/sdk';
import { NtfyConfig } from './ntfy-config.schema.js';
import { ntfyMessage } from './ntfy-message.js';

/**
 * Candidates and news on a phone through ntfy (https://ntfy.sh or your own server): one JSON publish per message
 * (ntfy docs, "Publish as JSON"), with Approve and Reject buttons that post to the candidate's decision link.
 * Its requests obey the operator's `webhooks_policy`, as webhooks do: the target is named by the user.
 */
export default definePlugin({
  manifest: { name: 'notify-ntfy', kind: 'notifier', apiVersion: PLUGIN_API_VERSION, configSchema: NtfyConfig, version: '1.0.0' },
  create: (ctx) => {
    const { config } = ctx;
    const http = createHttpClient({ userAgent: `crateflow/${ctx.serverVersion} (notify-ntfy)`, defaultTimeoutMs: config.timeout_ms, ...(ctx.refuseTargetAddress ? { refuseAddress: ctx.refuseTargetAddress } : {}) });
    const endpoint = config.url.replace(/\/?$/, '/');
    return {
      async send(note: Notification) {
        // A message for one person goes to their own topic (sdk 1.6), checked by ntfy's topic rule as config.topic is.
        const topic = note.recipient ?? config.topic;
        if (!TOPIC.test(topic)) throw new Error(`"${topic.slice(0, 80)}" is not an ntfy topic (letters, digits, _ and -, at most 64)`);
        const res = await http.request({
          method: 'POST',
          url: endpoint,
          headers: { 'Content-Type': 'application/json', ...(config.token ? { Authorization: `Bearer ${config.token}` } : {}) },
          body: JSON.stringify(ntfyMessage(note, topic, config.priority)),
          maxResponseBytes: 64 * 1024,
          signal: ctx.signal,
        });
        if (res.status === 200) return;
        const why = ntfyError(res.text());
        // 429: the visitor's message quota; ntfy says when in no header, so the server's backoff decides.
        if (res.status === 429 || res.status >= 500) throw new RetryLaterError(`ntfy answered ${res.status}${why}`);
        throw new Error(`ntfy refused the message: ${res.status}${why}${res.status === 401 || res.status === 403 ? ' (check notifications[].token and the topic)' : ''}`);
      },
      async stop() {
        await http.close();
      },
    };
  },
});

// ntfy's topic rule (server/server.go, topicRegex), as in ntfy-config.schema.ts.
const TOPIC = /^[-_A-Za-z0-9]{1,64}$/;

/** ntfy's error body `{"code":40101,"http":401,"error":"…"}` as a short suffix, or nothing. */
function ntfyError(text: string): string {
  try {
    const body: unknown = JSON.parse(text);
    if (body && typeof body === 'object' && 'error' in body && typeof body.error === 'string') return ` (${body.error.slice(0, 200)})`;
  } catch {
    // not ntfy's JSON: a proxy's page, say
  }
  return '';
}
