import { Type } from 'typebox';
import { WebhookDelivery, WebhookDeliveryPage, WebhookDeliveryStatus, WebhookTestRequest, WebhookTestResult } from '@crateflow/sdk';
import { ConflictError } from '../../errors/conflict-error.js';
import { NotFoundError } from '../../errors/not-found-error.js';
import { ValidationError } from '../../errors/validation-error.js';
import type { GuardedWebhookAdmin } from '../../webhooks/guarded-webhook-admin.js';
import { route, type RouteSpec } from '../route.js';
import { WebhookTargetList } from './webhooks.schema.js';
import { PageLimit, PageOffset } from '../page-query.schema.js';

const DeliveryQuery = Type.Object(
  {
    webhook: Type.Optional(Type.String({ minLength: 1, description: 'only deliveries to this webhook (by name)' })),
    status: Type.Optional(WebhookDeliveryStatus),
    limit: PageLimit,
    offset: PageOffset,
  },
  { additionalProperties: false },
);

/**
 * `/webhooks`: the configured webhooks, the test endpoint, the delivery log and redelivery, served by whichever
 * event sink offers the webhook-admin capability (see chooseWebhookAdmin), each call under a deadline.
 * Reading needs `viewer`; anything that sends needs `admin`.
 */
export function webhookRoutes(deps: { webhooks: GuardedWebhookAdmin }): RouteSpec[] {
  const admin = deps.webhooks;
  return [
    route({
      method: 'get', path: '/webhooks', tag: 'webhooks', access: 'read',
      summary: 'Configured webhooks (secrets are never included)',
      response: WebhookTargetList,
      errors: [503],
      handle: async () => ({ items: await admin.targets() }),
    }),
    route({
      method: 'post', path: '/webhooks/test', tag: 'webhooks', access: 'admin',
      summary: 'Send one sample download_completed delivery, or with dry_run show it without sending',
      description:
        'Give `url` (with an optional `secret`) or `name` (a configured webhook, whose url, secret and timeout are used; ' +
        'the secret stays on the server). A live test makes one attempt and never retries.',
      body: WebhookTestRequest,
      response: WebhookTestResult,
      errors: [400, 503],
      handle: async ({ body }) => {
        const outcome = await admin.test(body);
        if (!outcome.ok) throw new ValidationError([{ path: `body.${outcome.field}`, message: outcome.message }]);
        return outcome.result;
      },
    }),
    route({
      method: 'get', path: '/webhooks/deliveries', tag: 'webhooks', access: 'read',
      summary: 'The delivery log, newest first: each delivery with every attempt (time, status code or error, duration, next retry)',
      query: DeliveryQuery,
      response: WebhookDeliveryPage,
      errors: [400, 503],
      handle: ({ query }) => admin.deliveries(query),
    }),
    route({
      method: 'post', path: '/webhooks/deliveries/:id/redeliver', tag: 'webhooks', access: 'admin',
      summary: 'Send a logged delivery again now (same delivery id and bytes, a fresh retry budget)',
      params: Type.Object({ id: Type.String({ minLength: 1 }) }),
      response: Type.Object({ delivery: WebhookDelivery }),
      status: 202,
      errors: [404, 409, 503],
      handle: async ({ params }) => {
        const outcome = await admin.redeliver(params.id);
        if (outcome.ok) return { delivery: outcome.delivery };
        if (outcome.reason === 'not-found') throw new NotFoundError('delivery', params.id);
        throw new ConflictError(outcome.message, { reason: outcome.reason });
      },
    }),
  ];
}
