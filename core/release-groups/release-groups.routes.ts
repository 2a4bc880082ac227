import { Type } from 'typebox';
import { ReleaseGroupMbid } from '../covers/covers.routes.js';
import { UpstreamUnavailableError } from '../errors/upstream-unavailable-error.js';
import { route, type RouteSpec } from '../http/route.js';
import { ReleaseGroupDetail } from './release-group-detail.schema.js';
import type { ReleaseGroupDetails } from './release-group-details.js';

/** GET /release-groups/{mbid}: an album's tracks and research links, for the detail panel. */
export function releaseGroupRoutes(details: ReleaseGroupDetails): RouteSpec[] {
  return [
    route({
      method: 'get', path: '/release-groups/:mbid', tag: 'metadata', access: ['read', 'request'], errors: [404, 503],
      summary: 'A release group with its tracks and links to MusicBrainz, ListenBrainz, Last.fm and a Bandcamp search',
      description:
        "The tracks are those of the group's earliest official release with the track count most of its releases share " +
        '(not a deluxe edition or a promo). From MusicBrainz through the shared client: up to three requests the first ' +
        'time, a second apart, then from its disk cache. 404 for an mbid MusicBrainz does not know; 503 `upstream-unavailable` ' +
        'with `Retry-After` when MusicBrainz cannot be reached.',
      params: Type.Object({ mbid: ReleaseGroupMbid }),
      response: ReleaseGroupDetail,
      handle: async ({ params, setHeader }) => {
        try {
          return await details.detail(params.mbid);
        } catch (err: unknown) {
          if (err instanceof UpstreamUnavailableError) setHeader('Retry-After', String(err.retryAfterS));
          throw err;
        }
      },
    }),
  ];
}
