import { createHash } from 'node:crypto';
import { Type } from 'typebox';
import { UpstreamUnavailableError } from '../errors/upstream-unavailable-error.js';
import { NotModified } from '../http/not-modified.js';
import { route, type RouteSpec } from '../http/route.js';
import type { CoverService } from './cover-service.js';

export const ReleaseGroupMbid = Type.String({
  pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
  description: 'MusicBrainz release group id',
});

// A cover file never changes once stored, so the browser may keep it for a year without asking again. `private`:
// the answer may sit behind authentication, and a shared cache in between must not hand it to someone else.
const CACHE_CONTROL = 'private, max-age=31536000, immutable';

/** GET /covers/{mbid}: release-group front covers served from Crateflow, so the UI never loads images from elsewhere. */
export function coverRoutes(covers: CoverService): RouteSpec[] {
  return [
    route({
      method: 'get', path: '/covers/:mbid', tag: 'metadata', access: 'viewer', status: 200, responseMediaType: 'image',
      summary: 'The front cover of a release group (JPEG, PNG, GIF or WebP), 250 or 500 px',
      description:
        'Fetched from the Cover Art Archive the first time, then served from the data dir (cache/covers, at most ' +
        '`metadata.coverartarchive.cache_max_mb`; the least recently served go first). 404 when the release group has no ' +
        'front cover (remembered for 3 days); 304 for an `If-None-Match` naming its ETag; 503 with `Retry-After` when the archive cannot be reached, ' +
        'a redirect leads somewhere `metadata_policy` refuses (or to a URL that is not http/https), the bytes are not an image, or too many covers ' +
        'are being fetched at once. The Content-Type comes from the image bytes, and every answer carries `X-Content-Type-Options: nosniff`.',
      params: Type.Object({ mbid: ReleaseGroupMbid }),
      query: Type.Object(
        { size: Type.Integer({ enum: [250, 500], default: 250, description: 'edge length in pixels' }) },
        { additionalProperties: false },
      ),
      errors: [404, 503],
      handle: async ({ params, query, setHeader, request }) => {
        // On every answer, problems included: a browser must never guess a type other than the one we derived
        // from the bytes (an image that a sniffer reads as HTML would run as a page of this origin).
        setHeader('X-Content-Type-Options', 'nosniff');
        try {
          const image = await covers.image(params.mbid, query.size === 500 ? 500 : 250);
          // From the bytes: a cover fetched again after eviction is usually the same image, and then still matches.
          const etag = `"${createHash('sha256').update(image.bytes).digest('base64url').slice(0, 22)}"`;
          setHeader('ETag', etag);
          setHeader('Cache-Control', CACHE_CONTROL);
          if (matches(request.headers['if-none-match'], etag)) return new NotModified();
          setHeader('Content-Type', image.contentType);
          return image.bytes;
        } catch (err: unknown) {
          if (err instanceof UpstreamUnavailableError) setHeader('Retry-After', String(err.retryAfterS));
          throw err;
        }
      },
    }),
  ];
}

/** RFC 9110 §13.1.2: `*`, or a list of tags compared weakly (a `W/` prefix is ignored). */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag;
  });
}
