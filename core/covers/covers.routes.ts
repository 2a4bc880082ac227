import { createHash } from 'node:crypto';
import { Type } from 'typebox';
import { NotFoundError } from '../errors/not-found-error.js';
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
const MISSING_CACHE_CONTROL = 'private, max-age=259200';
// The smallest transparent GIF (1×1, GIF89a with a transparent colour): a stand-in that loads without an error.
const TRANSPARENT_GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/** GET /covers/{mbid}: release-group front covers served from Crateflow, so the UI never loads images from elsewhere. */
export function coverRoutes(covers: CoverService): RouteSpec[] {
  return [
    route({
      method: 'get', path: '/covers/:mbid', tag: 'metadata', access: ['read', 'request'], status: 200, responseMediaType: 'image',
      summary: 'The front cover of a release group (JPEG, PNG, GIF or WebP), 250 or 500 px',
      description:
        'Fetched from the Cover Art Archive the first time, then served from the data dir (cache/covers, at most ' +
        '`metadata.coverartarchive.cache_max_mb`; the least recently served go first). 404 when the release group has no ' +
        'front cover (remembered for 3 days); 304 for an `If-None-Match` naming its ETag; 503 with `Retry-After` when the archive cannot be reached, ' +
        'a redirect leads somewhere `metadata_policy` refuses (or to a URL that is not http/https), the bytes are not an image, or too many covers ' +
        'are being fetched at once. The Content-Type comes from the image bytes, and every answer carries `X-Content-Type-Options: nosniff`.',
      params: Type.Object({ mbid: ReleaseGroupMbid }),
      query: Type.Object(
        {
          size: Type.Integer({ enum: [250, 500], default: 250, description: 'edge length in pixels' }),
          missing: Type.Union([Type.Literal('404'), Type.Literal('empty')], {
            default: '404',
            description: 'a release group without a front cover: 404 (default), or `empty`: 200 with a transparent 1×1 GIF and `X-Cover-Missing: true`, so an <img> shows its own placeholder and the browser logs no failed load',
          }),
        },
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
          if (err instanceof NotFoundError && query.missing === 'empty') {
            // As long as the archive's "no cover" is remembered (3 days): a cover added later shows after that.
            setHeader('Cache-Control', MISSING_CACHE_CONTROL);
            setHeader('X-Cover-Missing', 'true');
            setHeader('Content-Type', 'image/gif');
            return TRANSPARENT_GIF;
          }
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
