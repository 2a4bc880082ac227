import { UpstreamUnavailableError } from '../errors/upstream-unavailable-error.js';
import { route, type RouteSpec } from '../http/route.js';
import type { ReleaseGroupSearch } from './release-group-search.js';
import { SearchQuery, SearchResults } from './search.schema.js';

/** GET /search: find release groups on MusicBrainz to propose or wishlist by mbid. */
export function searchRoutes(search: ReleaseGroupSearch): RouteSpec[] {
  return [
    route({
      method: 'get', path: '/search', tag: 'metadata', access: ['read', 'request'], errors: [503],
      summary: 'Release groups on MusicBrainz, each marked in_library, queued, wishlisted or rejected',
      description:
        'Searches MusicBrainz release groups whose title or artist matches `q` ("Low" lists albums by Low and albums ' +
        'called Low; an artist\'s own albums come first), or by artist and title when `q` is written "Artist - Album". ' +
        'Answers are cached on disk (a day). 503 `upstream-unavailable` with `Retry-After` when MusicBrainz cannot be reached ' +
        'or too many searches are waiting for it.',
      query: SearchQuery,
      response: SearchResults,
      handle: async ({ query, setHeader }) => {
        try {
          return await search.search(query.q, query.limit);
        } catch (err: unknown) {
          if (err instanceof UpstreamUnavailableError) setHeader('Retry-After', String(err.retryAfterS));
          throw err;
        }
      },
    }),
  ];
}
