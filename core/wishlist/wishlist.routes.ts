import { Type } from 'typebox';
import { route, type RouteSpec } from '../http/route.js';
import { Candidate } from '../queue/queue-item.schema.js';
import type { DownloadService } from '../downloads/download-service.js';
import { WishlistItem, WishlistPage, WishlistStatus } from './wishlist-item.schema.js';
import type { WishlistService } from './wishlist-service.js';

const Id = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$', description: 'wishlist item id' });

/** The wishlist API (CONTRACT §2). */
export function wishlistRoutes(wishlist: WishlistService, downloads: DownloadService): RouteSpec[] {
  return [
    route({
      method: 'get', path: '/wishlist', tag: 'wishlist', access: 'viewer',
      summary: 'Wishlist items, newest first',
      query: Type.Object(
        {
          limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
          offset: Type.Integer({ minimum: 0, default: 0 }),
          status: Type.Optional(WishlistStatus),
        },
        { additionalProperties: false },
      ),
      response: WishlistPage,
      handle: ({ query }) => wishlist.list(query),
    }),
    route({
      method: 'post', path: '/wishlist', tag: 'wishlist', access: 'approver', status: 201, errors: [409],
      summary: 'Add an item straight to the wishlist',
      body: Candidate,
      response: WishlistItem,
      handle: ({ body }) => wishlist.add(body),
    }),
    route({
      method: 'delete', path: '/wishlist/:id', tag: 'wishlist', access: 'approver', errors: [404],
      summary: 'Remove an item from the wishlist (cancels its download)',
      params: Type.Object({ id: Id }),
      handle: async ({ params }) => {
        await downloads.cancelFor(params.id);
        await wishlist.remove(params.id);
        return undefined;
      },
    }),
  ];
}
