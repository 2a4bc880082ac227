import { Type } from 'typebox';
import { route, type RouteSpec } from '../http/route.js';
import type { DecisionLinkService } from './decision-links.js';

const RevokeResult = Type.Object({ revoked: Type.Integer({ minimum: 0, description: 'how many live decision links were ended' }) }, { additionalProperties: false });

/** `POST /api/v1/approvals/revoke`: ends every decision link that still works (a phone was lost, a chat leaked). */
export function approvalRoutes(deps: { links: DecisionLinkService }): RouteSpec[] {
  return [
    route({
      method: 'post',
      path: '/approvals/revoke',
      summary: 'Revoke every live decision link',
      description: 'Every decision link not yet used or expired stops working at once: opened afterwards, it answers 410 and says it was revoked. Links issued afterwards work as usual.',
      tag: 'approvals',
      access: 'admin',
      response: RevokeResult,
      errors: [401, 403],
      handle: async () => ({ revoked: await deps.links.revokeAll() }),
    }),
  ];
}
