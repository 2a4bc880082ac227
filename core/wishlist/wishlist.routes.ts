import { Type } from 'typebox';
import { route, type RouteSpec } from '../http/route.js';
import type { ProposalIntake } from '../queue/proposal-intake.js';
import { ProposedCandidate } from '../queue/proposed-candidate.schema.js';
import type { DownloadService } from '../downloads/download-service.js';
import { WishlistItem, WishlistPage, WishlistStatus } from './wishlist-item.schema.js';
import type { WishlistService } from './wishlist-service.js';
import { PageLimit, PageOffset } from '../http/page-query.schema.js';

const Id = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$', description: 'wishlist item id' });

/** The wishlist API (CONTRACT §2). */
export function wishlistRoutes(wishlist: WishlistService, downloads: DownloadService, intake: ProposalIntake): RouteSpec[] {
  return [
    route({
      method: 'get', path: '/wishlist', tag: 'wishlist', access: 'read',
      summary: 'Wishlist items: those with a download (newest first), then those waiting for one (most recently added first)',
      query: Type.Object(
        {
          limit: PageLimit,
          offset: PageOffset,
          status: Type.Optional(WishlistStatus),
        },
        { additionalProperties: false },
      ),
      response: WishlistPage,
      handle: ({ query }) => wishlist.list(query),
    }),
    route({
      method: 'post', path: '/wishlist', tag: 'wishlist', access: 'decide', status: 201, errors: [409, 503],
      summary: 'Add an item straight to the wishlist',
      description: 'Given only `mbid` (a MusicBrainz release group), artist, album and year are filled from MusicBrainz first.',
      body: ProposedCandidate,
      response: WishlistItem,
      handle: async ({ body }) => {
        const [candidate] = await intake.resolve([body], () => 'body');
        if (!candidate) throw new Error('resolving one candidate gave none');
        return wishlist.add(candidate);
      },
    }),
    route({
      method: 'delete', path: '/wishlist/:id', tag: 'wishlist', access: 'decide', errors: [404],
      summary: 'Remove an item from the wishlist (cancels its download)',
      params: Type.Object({ id: Id }),
      handle: async ({ params }) => {
        await downloads.cancelFor(new Set([params.id]));
        await wishlist.remove(params.id);
        return undefined;
      },
    }),
  ];
}
