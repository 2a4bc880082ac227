import { createHttpClient, definePlugin, PLUGIN_API_VERSION, type DomainEvent, type EventType, type PluginContext, type ConfigProblem } from '@crateflow/sdk';
import { refuseAddress } from './address-policy.js';
import { buildPayload, serializePayload } from './build-payload.js';
import { withDecisionLink } from './decision-link-body.js';
import { deliveryId } from './delivery-id.js';
import type { StoredDelivery } from './delivery-record.js';
import { DeliveryStore } from './delivery-store.js';
import { GoneReceivers } from './gone-receivers.js';
import { Outbox } from './outbox.js';
import { createWebhookAdmin } from './webhook-admin.js';
import { secretFormProblems } from './standard-webhooks-key.js';
import { duplicateNameProblems, WebhooksConfig, type WebhookConfig } from './webhook-config.schema.js';

/** Attempts in flight per webhook; beyond that, deliveries to that webhook wait their turn. */
export const CONCURRENCY_PER_TARGET = 8;

/**
 * The `webhooks:` sink. `deliver()` only writes one outbox entry per matching webhook and returns; the outbox
 * sends, signs, retries and logs (see outbox.ts). Mounted from the top-level `webhooks:` array of config.yaml.
 */
export default definePlugin({
  manifest: { name: 'webhooks', kind: 'event-sink', apiVersion: PLUGIN_API_VERSION, configSchema: WebhooksConfig, version: '1.0.0' },
  checkConfig: configProblems,
  create: (ctx) => createWebhookSink(ctx),
});

/** What the schema cannot say: names are unique, and a `whsec_` secret is really one. */
function configProblems(webhooks: Readonly<WebhooksConfig>): ConfigProblem[] {
  return [...duplicateNameProblems(webhooks), ...secretFormProblems(webhooks)];
}

function createWebhookSink(ctx: PluginContext<WebhooksConfig>) {
  const problems = configProblems(ctx.config);
  if (problems.length > 0) throw new Error(problems.map((p) => `webhooks${p.path}: ${p.message}`).join('\n'));
  const webhooks = new Map<string, WebhookConfig>(ctx.config.map((webhook) => [webhook.name, webhook]));
  // The plugin's floor (link-local, metadata) first; then the operator's webhooks_policy, when the host offers it.
  const refuse = (address: string): string | undefined => refuseAddress(address) ?? ctx.refuseTargetAddress?.(address);
  warnAboutRefusedTargets(ctx, refuse);

  const userAgent = `crateflow/${ctx.serverVersion}`;
  // One client for every webhook: the address policy is checked on the address actually connected to, and the
  // pool allows every webhook its own slots even when several share one origin.
  const http = createHttpClient({
    userAgent,
    refuseAddress: refuse,
    connectionsPerOrigin: CONCURRENCY_PER_TARGET * Math.max(1, webhooks.size),
  });
  const store = new DeliveryStore(ctx.storage, ctx.log);
  const gone = new GoneReceivers(ctx.storage);
  const outbox = new Outbox({
    store, http, clock: ctx.clock, log: ctx.log, webhooks, concurrencyPerTarget: CONCURRENCY_PER_TARGET, gone,
    ...(ctx.decisionLinks ? { finalBody: withDecisionLink(ctx.decisionLinks, ctx.log) } : {}),
  });
  const persisting = new Map<string, Promise<void>>();

  /** Stores one delivery per matching enabled webhook (once per event and webhook), then hands them to the outbox. */
  async function deliver(event: DomainEvent): Promise<void> {
    const targets = [...webhooks.values()].filter((webhook) => webhook.enabled && webhook.events.includes(event.type));
    if (targets.length === 0) return;
    const body = serializePayload(buildPayload(event));
    const now = new Date(ctx.clock.now()).toISOString();
    await Promise.all(targets.map((webhook) => storeDelivery(deliveryId(event.id, webhook.name), webhook.name, event, body, now)));
  }

  async function storeDelivery(id: string, webhook: string, event: DomainEvent, body: string, now: string): Promise<void> {
    const writing = persisting.get(id);
    if (writing) return writing; // the same event is being handed over concurrently: wait for that write
    const existing = store.get(id);
    // A second hand-over of an event (at-least-once from the event bus) keeps the first delivery; writing it
    // again makes sure it is on disk before this call acknowledges the event.
    const record: StoredDelivery = existing ?? {
      id,
      webhook,
      event: event.type,
      event_id: event.id,
      status: 'pending',
      created_at: now,
      updated_at: now,
      next_attempt_at: null,
      round_attempts: 0,
      attempts: [],
    };
    const write = (existing ? store.put(existing) : store.create(record, body)).finally(() => persisting.delete(id));
    persisting.set(id, write);
    await write;
    outbox.track(record);
  }

  return {
    deliver,
    // The deliveries are written in the transaction of the change that fired the event (their writes join it), so
    // the outbox holds exactly the committed changes' events; they go to the outbox once that commit is durable.
    record(event: DomainEvent) {
      deliver(event).catch((err: unknown) => ctx.log.debug({ err, event: event.type }, 'deliveries not recorded: their change was undone or not saved'));
    },
    // Events no enabled webhook lists are not journaled by the server at all: no disk flush for them.
    accepts: (type: EventType) => [...webhooks.values()].some((webhook) => webhook.enabled && webhook.events.includes(type)),
    async start() {
      outbox.resume();
    },
    async stop() {
      await outbox.stop();
      await http.close();
    },
    webhookAdmin: createWebhookAdmin({ webhooks, store, outbox, gone, http, clock: ctx.clock, userAgent, newId: () => ctx.newId(), signal: ctx.signal }),
  };
}

// A URL whose host is written as a refused address can never be delivered to; say so at startup rather than
// only in the delivery log. (Names are checked when they are resolved, on every connection.)
function warnAboutRefusedTargets(ctx: PluginContext<WebhooksConfig>, refuse: (address: string) => string | undefined): void {
  ctx.config.forEach((webhook, index) => {
    if (!URL.canParse(webhook.url)) return;
    const reason = refuse(new URL(webhook.url).hostname);
    if (reason) ctx.log.warn({ webhook: webhook.name }, `webhooks[${index}].url: deliveries will be refused: ${reason}`);
  });
}
