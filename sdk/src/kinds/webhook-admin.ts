import { Type, type Static } from 'typebox';
import { EventType } from '../records.js';

// The webhook-admin capability of an event sink (`EventSink.webhookAdmin`): the operator's handle on a sink that
// delivers events to HTTP endpoints, which the server serves as `/api/v1/webhooks/*`. Everything in this file
// belongs to that capability; a sink that does not offer it never needs any of it. The schemas keep their
// `Webhook…` names and `$id`s because the HTTP API and its OpenAPI document are built from them.

/**
 * One configured webhook as the API shows it: everything but the secret, which is only reported as `has_secret`.
 *
 * @example
 * { name: 'home-assistant', url: 'http://192.168.1.20:8123/api/webhook/crateflow', enabled: true,
 *   events: ['download_completed'], timeout_ms: 10000, retry: 3, has_secret: true }
 */
export const WebhookTarget = Type.Object(
  {
    name: Type.String(),
    url: Type.String({ description: 'scheme, host and a hint of the target URL (`http://ha.lan:8123/…f00d`); credentials, path and query are never shown' }),
    enabled: Type.Boolean(),
    events: Type.Array(EventType),
    timeout_ms: Type.Integer(),
    retry: Type.Integer(),
    has_secret: Type.Boolean({ description: 'whether deliveries are signed; the secret itself is never shown' }),
    gone_at: Type.Optional(
      Type.String({ description: 'when the receiver answered 410 Gone: nothing is sent to it until a redelivery or a new url' }),
    ),
  },
  { $id: 'WebhookTarget' },
);
export type WebhookTarget = Static<typeof WebhookTarget>;

/**
 * A request to send (or, with `dry_run`, only show) one sample `download_completed` delivery. Give `url` for an
 * ad-hoc target or `name` for a configured webhook, whose url, secret and timeout are then used.
 *
 * @example
 * { name: 'home-assistant', dry_run: true }
 * { url: 'http://192.168.1.20:1880/crateflow', secret: 's3cret', timeout_ms: 2000 }
 */
export const WebhookTestRequest = Type.Object(
  {
    url: Type.Optional(Type.String({ minLength: 1, description: 'an http or https URL to send the sample to' })),
    name: Type.Optional(Type.String({ minLength: 1, description: 'a configured webhook to test' })),
    secret: Type.Optional(Type.String({ minLength: 1, description: 'sign with this secret (only with url)' })),
    timeout_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: 30000, description: 'deadline of the request' })),
    dry_run: Type.Boolean({ default: false, description: 'true: only show the payload and headers, send nothing' }),
  },
  { additionalProperties: false, $id: 'WebhookTestRequest' },
);
export type WebhookTestRequest = Static<typeof WebhookTestRequest>;

/**
 * The answer to a test: a dry run shows the exact payload, body bytes and headers that would be sent; a live
 * run reports how the single attempt went.
 *
 * @example
 * { dry_run: true, payload: { event: 'download_completed', … }, body: '{"event":…}', headers: { 'X-Webhook-Signature': '5d1c…' } }
 * { dry_run: false, success: false, status_code: 500, duration_ms: 12, error: 'answered 500' }
 */
export const WebhookTestResult = Type.Union(
  [
    Type.Object({
      dry_run: Type.Literal(true),
      payload: Type.Record(Type.String(), Type.Unknown()),
      body: Type.String({ description: 'the exact bytes that would be sent (the signature covers these)' }),
      headers: Type.Record(Type.String(), Type.String()),
    }),
    Type.Object({
      dry_run: Type.Literal(false),
      success: Type.Boolean(),
      status_code: Type.Union([Type.Integer(), Type.Null()]),
      duration_ms: Type.Integer({ minimum: 0 }),
      error: Type.Optional(Type.String()),
    }),
  ],
  { $id: 'WebhookTestResult' },
);
export type WebhookTestResult = Static<typeof WebhookTestResult>;

/** Where a delivery stands: waiting for (another) attempt, acknowledged with a 2xx, or out of retries. */
export const WebhookDeliveryStatus = Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]);
/** @example const s: WebhookDeliveryStatus = 'pending'; */
export type WebhookDeliveryStatus = Static<typeof WebhookDeliveryStatus>;

/**
 * One attempt to send a delivery: when, what came back (a status code, or `null` with an `error`), how long it
 * took, and when the next retry is due (`null` when none follows).
 *
 * @example
 * { at: '2026-03-18T12:00:00.000Z', status_code: 503, error: 'answered 503', duration_ms: 41, next_retry_at: '2026-03-18T12:00:02.041Z' }
 */
export const WebhookAttempt = Type.Object({
  at: Type.String(),
  status_code: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Optional(Type.String()),
  duration_ms: Type.Integer({ minimum: 0 }),
  next_retry_at: Type.Union([Type.String(), Type.Null()]),
});
export type WebhookAttempt = Static<typeof WebhookAttempt>;

/**
 * One delivery of one event to one webhook, with its attempt log. `id` is the `X-Webhook-Delivery` value.
 *
 * @example
 * { id: 'd_9f2c…', webhook: 'home-assistant', event: 'download_completed', event_id: '01h…', status: 'delivered',
 *   created_at: '…', updated_at: '…', next_attempt_at: null, attempts: [{ at: '…', status_code: 200, duration_ms: 8, next_retry_at: null }] }
 */
export const WebhookDelivery = Type.Object(
  {
    id: Type.String(),
    webhook: Type.String(),
    event: EventType,
    event_id: Type.String(),
    status: WebhookDeliveryStatus,
    created_at: Type.String(),
    updated_at: Type.String(),
    next_attempt_at: Type.Union([Type.String(), Type.Null()]),
    attempts: Type.Array(WebhookAttempt),
  },
  { $id: 'WebhookDelivery' },
);
export type WebhookDelivery = Static<typeof WebhookDelivery>;

/**
 * A page of the delivery log, newest first.
 *
 * @example
 * { items: [ … ], total: 120, limit: 50, offset: 0 }
 */
export const WebhookDeliveryPage = Type.Object({
  items: Type.Array(WebhookDelivery),
  total: Type.Integer({ minimum: 0 }),
  limit: Type.Integer({ minimum: 1 }),
  offset: Type.Integer({ minimum: 0 }),
});
export type WebhookDeliveryPage = Static<typeof WebhookDeliveryPage>;

/**
 * Which part of the delivery log to read.
 *
 * @example
 * { webhook: 'home-assistant', status: 'failed', limit: 50, offset: 0 }
 */
export interface WebhookDeliveryQuery {
  webhook?: string;
  status?: WebhookDeliveryStatus;
  limit: number;
  offset: number;
}

/**
 * What `admin.test()` answers: the result, or the input field that is wrong and why.
 *
 * @example
 * { ok: false, field: 'name', message: 'no webhook named "nas" is configured' }
 */
export type WebhookTestOutcome = { ok: true; result: WebhookTestResult } | { ok: false; field: 'url' | 'name' | 'secret'; message: string };

/**
 * What `admin.redeliver()` answers: the delivery, queued again, or why it could not be.
 *
 * @example
 * { ok: false, reason: 'not-found', message: 'no delivery "d_1" in the log' }
 */
export type WebhookRedeliverOutcome =
  | { ok: true; delivery: WebhookDelivery }
  | { ok: false; reason: 'not-found' | 'in-flight' | 'webhook-gone'; message: string };

/**
 * The webhook-admin capability: an event sink that offers it as `webhookAdmin` serves `/api/v1/webhooks/*`.
 *
 * - The server looks for it on every loaded event sink, never by plugin name, and wraps every call in a deadline
 *   (`events.sink_timeout_ms`; a live `test()` gets 30 s more, the longest `timeout_ms` a test may ask for).
 *   A call that overruns or throws answers the HTTP client `503` (`urn:crateflow:problem:plugin-unavailable`).
 * - Exactly one sink serves the API. When several offer it, the one with targets configured serves
 *   (`targets()` is asked once at start-up); when none has targets, the first loaded serves (the built-in
 *   `webhooks:` sink comes first); when more than one has targets, the start-up stops naming them.
 * - Outcomes, not exceptions, carry what the caller got wrong: `test()` names the bad input field (the API
 *   answers 400 naming it), `redeliver()` says why not (404 for `not-found`, 409 otherwise). Throw only for a
 *   failure of the sink itself.
 * - Every record returned must match its schema (`WebhookTarget`, `WebhookDeliveryPage`, …); the contract kit
 *   (`@crateflow/sdk/testing`, event-sink contract) checks this whenever a sink offers the capability.
 *
 * @example
 * create: ({ config }) => ({
 *   deliver,
 *   webhookAdmin: {
 *     targets: () => config.endpoints.map(toTarget),
 *     test: async (input) => ({ ok: false, field: 'name', message: `no endpoint named "${input.name}"` }),
 *     deliveries: ({ limit, offset }) => ({ items: [], total: 0, limit, offset }),
 *     redeliver: async (id) => ({ ok: false, reason: 'not-found', message: `no delivery "${id}"` }),
 *   },
 * })
 */
export interface WebhookAdmin {
  /** The configured webhooks, without secrets. (A promise is fine too, for a sink that reads them from elsewhere.) */
  targets(): WebhookTarget[] | Promise<WebhookTarget[]>;
  /** Sends (or with `dry_run` only builds) one sample delivery; never retried, never logged as a delivery. */
  test(input: WebhookTestRequest): Promise<WebhookTestOutcome>;
  /** Reads the delivery log, newest first. (A promise is fine too, for a log kept in a database.) */
  deliveries(query: WebhookDeliveryQuery): WebhookDeliveryPage | Promise<WebhookDeliveryPage>;
  /** Queues a logged delivery again (same id, same bytes, a fresh retry budget) and sends it now. */
  redeliver(id: string): Promise<WebhookRedeliverOutcome>;
}
