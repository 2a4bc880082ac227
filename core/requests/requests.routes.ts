import { Type } from 'typebox';
import { route, type RouteSpec } from '../http/route.js';
import { PageLimit, PageOffset } from '../http/page-query.schema.js';
import { deciderOf } from '../queue/decider.js';
import { QueueItemId } from '../queue/queue-api.schema.js';
import type { QueueService } from '../queue/queue-service.js';
import { UserName } from '../users/user.schema.js';
import type { RequestLedger } from './request-ledger.js';
import { RequestItem, RequestPage, RequestStatus } from './request.schema.js';

const RequestsQuery = Type.Object(
  {
    user: Type.Optional(UserName),
    status: Type.Optional(RequestStatus),
    limit: PageLimit,
    offset: PageOffset,
  },
  { additionalProperties: false },
);

/**
 * Requests, followed to the library (issue #31). A requester sees and cancels their own; whoever may read
 * everything sees everyone's, and an admin may cancel any.
 */
export function requestRoutes(ledger: RequestLedger, queue: QueueService): RouteSpec[] {
  return [
    route({
      method: 'get', path: '/requests', tag: 'requests', access: ['read', 'request'],
      summary: 'Requests, newest first, with where each stands (own for requesters, all for those who may read everything)',
      description: 'A caller without the `read` scope sees only their own requests, whatever `user` says.',
      query: RequestsQuery,
      response: RequestPage,
      handle: ({ query, identity, scopes }) => {
        const ownOnly = !scopes.has('read');
        const user = ownOnly ? (identity?.name ?? '') : query.user;
        return ledger.page({ ...(user === undefined ? {} : { user }), ...(query.status === undefined ? {} : { status: query.status }), limit: query.limit, offset: query.offset });
      },
    }),
    route({
      method: 'post', path: '/requests/:id/cancel', tag: 'requests', access: ['request', 'admin'], errors: [404, 409],
      summary: 'Take back a request that still waits for an admin',
      description: 'A requester cancels their own (another user\'s answers 404); an admin may cancel anyone\'s. Once approved or declined, 409.',
      params: Type.Object({ id: QueueItemId }),
      response: Type.Object({ request: RequestItem }),
      handle: async ({ params, identity, scopes }) => {
        const item = await queue.cancelRequest(params.id, deciderOf(identity), scopes.has('admin'));
        return { request: ledger.describe(item) };
      },
    }),
  ];
}
