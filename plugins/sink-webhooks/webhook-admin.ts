import type {
  Clock,
  HttpClient,
  WebhookAdmin,
  WebhookRedeliverOutcome,
  WebhookTarget,
  WebhookTestOutcome,
  WebhookTestRequest,
} from '@crateflow/sdk';
import { buildPayload, sampleEvent, serializePayload } from './build-payload.js';
import { toDeliveryView } from './delivery-record.js';
import type { DeliveryStore } from './delivery-store.js';
import type { GoneReceivers } from './gone-receivers.js';
import type { Outbox } from './outbox.js';
import { redactUrl } from './redact-url.js';
import { sendAttempt, type AttemptTarget } from './send-attempt.js';
import { deliveryHeaders } from './sign-delivery.js';
import { whsecFormProblem } from './standard-webhooks-key.js';
import type { WebhookConfig } from './webhook-config.schema.js';

export interface WebhookAdminOptions {
  webhooks: ReadonlyMap<string, WebhookConfig>;
  store: DeliveryStore;
  outbox: Outbox;
  gone: GoneReceivers;
  http: HttpClient;
  clock: Clock;
  userAgent: string;
  newId: () => string;
  signal: AbortSignal;
}

const DEFAULT_TEST_TIMEOUT_MS = 10_000;

/** The operator's view of the webhooks: list, test, read the delivery log, redeliver. */
export function createWebhookAdmin(options: WebhookAdminOptions): WebhookAdmin {
  const { webhooks, store, outbox, gone, clock } = options;
  return {
    targets: () => [...webhooks.values()].map((webhook) => toTarget(webhook, gone.since(webhook.name, webhook.url))),

    async test(input: WebhookTestRequest): Promise<WebhookTestOutcome> {
      const resolved = resolveTestTarget(input, webhooks);
      if (!resolved.ok) return resolved;
      const target = resolved.target;
      const now = clock.now();
      const payload = buildPayload(sampleEvent(now));
      const body = serializePayload(payload);
      const deliveryId = `test_${options.newId()}`;
      if (input.dry_run) {
        const headers = deliveryHeaders({ body, event: payload.event, deliveryId, secret: target.secret, timestampSeconds: Math.floor(now / 1000) });
        return { ok: true, result: { dry_run: true, payload: { ...payload }, body, headers: { ...headers, 'User-Agent': options.userAgent } } };
      }
      const result = await sendAttempt(options.http, { target, body, event: payload.event, deliveryId, now, signal: options.signal });
      return {
        ok: true,
        result: {
          dry_run: false,
          success: result.ok,
          status_code: result.status_code,
          duration_ms: result.duration_ms,
          ...(result.error === null ? {} : { error: callerError(result.status_code, result.error) }),
        },
      };
    },

    deliveries: (query) => store.page(query),

    async redeliver(id: string): Promise<WebhookRedeliverOutcome> {
      const record = store.get(id);
      if (!record) return { ok: false, reason: 'not-found', message: `no delivery "${id}" in the log` };
      const webhook = webhooks.get(record.webhook);
      if (!webhook || !webhook.enabled) {
        const state = webhook ? 'disabled' : 'no longer configured';
        return { ok: false, reason: 'webhook-gone', message: `webhook "${record.webhook}" is ${state}` };
      }
      if (outbox.isSending(id)) return { ok: false, reason: 'in-flight', message: `delivery "${id}" is being sent right now` };
      // A redelivery is the operator saying "try this receiver again": it lifts a 410 Gone flag.
      await gone.clear(webhook.name);
      const now = clock.now();
      const queued = { ...record, status: 'pending' as const, round_attempts: 0, next_attempt_at: now, updated_at: new Date(now).toISOString() };
      await store.put(queued);
      outbox.sendNow(queued);
      return { ok: true, delivery: toDeliveryView(queued) };
    },
  };
}

function toTarget(webhook: WebhookConfig, goneSince: string | undefined): WebhookTarget {
  return {
    name: webhook.name,
    url: redactUrl(webhook.url),
    enabled: webhook.enabled,
    events: [...webhook.events],
    timeout_ms: webhook.timeout_ms,
    retry: webhook.retry,
    has_secret: webhook.secret !== undefined,
    ...(goneSince === undefined ? {} : { gone_at: goneSince }),
  };
}

/**
 * What the caller of the test endpoint learns about a failure. The body a receiver answered with stays out:
 * the endpoint reaches any LAN address, and an internal service's error page (stack traces, config, tokens)
 * must not come back through it. The delivery log, which only operators read, keeps the excerpt.
 */
function callerError(statusCode: number | null, error: string): string {
  if (statusCode === null || (statusCode >= 300 && statusCode < 400)) return error;
  return statusCode === 410 ? 'answered 410 Gone' : `answered ${statusCode}`;
}

type ResolvedTarget = { ok: true; target: AttemptTarget } | Extract<WebhookTestOutcome, { ok: false }>;

function resolveTestTarget(input: WebhookTestRequest, webhooks: ReadonlyMap<string, WebhookConfig>): ResolvedTarget {
  if (input.name !== undefined && input.url !== undefined) {
    return { ok: false, field: 'url', message: 'give either url or name (a configured webhook), not both' };
  }
  if (input.name !== undefined) {
    const webhook = webhooks.get(input.name);
    if (!webhook) return { ok: false, field: 'name', message: `no webhook named "${input.name}" is configured` };
    if (input.secret !== undefined) {
      return { ok: false, field: 'secret', message: 'a configured webhook is tested with its own secret; give secret only with url' };
    }
    return { ok: true, target: { url: webhook.url, secret: webhook.secret, timeout_ms: input.timeout_ms ?? webhook.timeout_ms } };
  }
  if (input.url === undefined) return { ok: false, field: 'url', message: 'give url, or name for a configured webhook' };
  const secretProblem = input.secret === undefined ? undefined : whsecFormProblem(input.secret);
  if (secretProblem) return { ok: false, field: 'secret', message: secretProblem };
  if (!URL.canParse(input.url)) return { ok: false, field: 'url', message: `"${input.url}" is not a URL` };
  const protocol = new URL(input.url).protocol;
  if (protocol !== 'http:' && protocol !== 'https:') return { ok: false, field: 'url', message: `must be an http or https URL (got ${protocol})` };
  return { ok: true, target: { url: input.url, secret: input.secret, timeout_ms: input.timeout_ms ?? DEFAULT_TEST_TIMEOUT_MS } };
}
