import { route, type RouteSpec } from '../http/route.js';
import { UpstreamUnavailableError } from '../errors/upstream-unavailable-error.js';
import type { PreviewService } from './preview-service.js';
import { Previews, PreviewsQuery } from './previews.schema.js';
import { PreviewsUnavailableError } from './previews-unavailable-error.js';

/** GET /previews: 30-second previews of an album's tracks, to listen before deciding. */
export function previewRoutes(previews: PreviewService): RouteSpec[] {
  return [
    route({
      method: 'get', path: '/previews', tag: 'metadata', access: ['read', 'request'], errors: [400, 404, 503],
      summary: "Short previews of an album's tracks from the configured preview provider (Deezer by default)",
      description:
        'Name the album by `mbid` (a release group; its artist and title come from the queue or wishlist item with that mbid, ' +
        'else from MusicBrainz), or by `artist` and `album`. The provider is asked only now, never in the background, and the ' +
        'answer is remembered for `previews.cache_ttl` (10 minutes; Deezer preview links expire after 15). An album the provider ' +
        'does not have answers 200 with no tracks. 404 for an mbid MusicBrainz does not know; 503 `previews-unavailable` with ' +
        '`Retry-After` when the provider is over its quota, down or failing, and with `config_key` when `previews.type` is `none`; ' +
        '503 `upstream-unavailable` for an mbid only MusicBrainz could name while it cannot be reached.',
      query: PreviewsQuery,
      response: Previews,
      handle: async ({ query, setHeader }) => {
        try {
          return await previews.previews(query);
        } catch (err: unknown) {
          if (err instanceof PreviewsUnavailableError && err.retryAfterS !== undefined) setHeader('Retry-After', String(err.retryAfterS));
          if (err instanceof UpstreamUnavailableError) setHeader('Retry-After', String(err.retryAfterS));
          throw err;
        }
      },
    }),
  ];
}
