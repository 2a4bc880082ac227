import { systemClock, type Clock } from '@crateflow/sdk';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { listenOnLoopback } from './listen-on-loopback.js';
import { listenBrainzUsers, type FakeListenBrainzUser } from './listenbrainz-users.js';
import { generateMusicBrainzCatalogue, type MusicBrainzCatalogue } from './musicbrainz-catalogue.js';
import { recordRequest, type RecordedRequest } from './recorded-request.js';
import { replyEmpty, replyJson } from './reply.js';
import { startFakeListenBrainzLabs, type SimilarityTable } from './fake-listenbrainz-labs.js';

/**
 * A real HTTP fake of the ListenBrainz API (`/1`) and, on a second port, its Labs API, per
 * shared/reference/listenbrainz-api.md (sections named below). Users come from listenbrainz-users.ts.
 */
export interface FakeListenBrainzOptions {
  readonly catalogue?: MusicBrainzCatalogue;
  readonly users?: readonly FakeListenBrainzUser[];
  /** The fake's clock for the fixed rate-limit windows (default the real clock). */
  readonly clock?: Clock;
  /** Requests per 10 s window per address (§2, default 30); `false` turns the limit off. */
  readonly rateLimit?: number | false;
  /** The window's length in seconds (§2: 10 as LB configures it at start-up; production reads it from Redis, so it can differ). */
  readonly rateLimitWindowSeconds?: number;
  /** The Labs similar-artists answers per seed MBID (default: every other artist, the same for every seed). */
  readonly similarity?: SimilarityTable;
  /** Seed MBIDs (lower case) whose Labs query fails inside the server (500 with `{}`); a test may change the set later. */
  readonly similarityFailsFor?: ReadonlySet<string>;
}

export interface FakeListenBrainz {
  /** API origin: paths start with `/1`. */
  readonly url: string;
  /** Labs API origin (`/similar-artists/json`). */
  readonly labsUrl: string;
  readonly users: readonly FakeListenBrainzUser[];
  readonly received: readonly RecordedRequest[];
  close(): Promise<void>;
}

const MAX_ITEMS = 1000;
const ROUTE = /^\/1\/(?:cf\/recommendation\/user\/([^/].*?[^/]+)\/recording|stats\/user\/([^/].*?[^/]+)\/artists)$/;
/** Werkzeug's NotFound description (werkzeug/exceptions.py), as LB's error handler puts it in JSON. */
const NOT_FOUND = 'The requested URL was not found on the server. If you entered the URL manually please check your spelling and try again.';
const RANGES = ['this_week', 'this_month', 'this_year', 'week', 'month', 'quarter', 'year', 'half_yearly', 'all_time'];

export async function startFakeListenBrainz(options: FakeListenBrainzOptions = {}): Promise<FakeListenBrainz> {
  const catalogue = options.catalogue ?? generateMusicBrainzCatalogue();
  const users = options.users ?? listenBrainzUsers(catalogue);
  const clock = options.clock ?? systemClock();
  const limit = options.rateLimit ?? 30;
  const windowSeconds = options.rateLimitWindowSeconds ?? 10;
  const received: RecordedRequest[] = [];
  const window = { start: 0, used: 0 };
  const labs = await startFakeListenBrainzLabs(catalogue, received, options.similarity, options.similarityFailsFor);

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const request = await recordRequest(req);
    received.push(request);
    // §1: since 2026-08 the edge blocks requests without a User-Agent; the client sees a dropped connection.
    if (!request.headers['user-agent']) {
      res.socket?.destroy();
      return;
    }
    // A path no route matches never reaches the rate limiter (listenbrainz-server: `@ratelimit()` decorates each
    // view): Werkzeug's 404, no X-RateLimit headers, and it does not count. The user-name converter needs two
    // characters or more (listenbrainz/webserver/converters.py, `[^/].*?[^/]+`), so a one-letter user is this 404 too.
    const route = ROUTE.exec(request.path);
    if (request.path !== '/1/validate-token' && !route) return replyJson(res, 404, { code: 404, error: NOT_FOUND });
    // §2: a fixed window aligned to multiples of its length; every answer, the 429 included, carries the headers.
    const now = clock.now() / 1000;
    const start = Math.floor(now / windowSeconds) * windowSeconds;
    if (start !== window.start) Object.assign(window, { start, used: 0 });
    window.used++;
    const headers = limit === false ? {} : {
      'x-ratelimit-limit': String(limit), 'x-ratelimit-remaining': String(Math.max(limit - window.used, 0)),
      'x-ratelimit-reset': String(start + windowSeconds), 'x-ratelimit-reset-in': String(Math.ceil(start + windowSeconds - now)),
      // brainzutils ratelimit.py, `inject_x_rate_headers`: this order, no spaces.
      'access-control-expose-headers': 'X-RateLimit-Remaining,X-RateLimit-Limit,X-RateLimit-Reset,X-RateLimit-Reset-In',
      'access-control-allow-origin': '*',
    };
    const fail = (code: number, error: string) => replyJson(res, code, { code, error }, headers);
    if (limit !== false && window.used > limit) {
      return fail(429, 'You have exceeded your rate limit. See the X-RateLimit-* response headers for more information on your current rate limit.');
    }
    const params = request.query;
    if (request.path === '/1/validate-token') {
      // §3.4: the Token scheme, case-insensitively; any other scheme falls back to ?token=.
      const header = /^token\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
      const token = header ?? params.get('token');
      if (!token) return fail(400, 'You need to provide an Authorization token.');
      const owner = users.find((user) => user.token === token);
      return replyJson(res, 200, owner ? { code: 200, message: 'Token valid.', valid: true, user_name: owner.name } : { code: 200, message: 'Token invalid.', valid: false }, headers);
    }
    if (!route) return fail(404, NOT_FOUND);
    const asked = decodeURIComponent(route[1] ?? route[2] ?? '');
    // §1: user names match case-insensitively and are echoed as requested.
    const user = users.find((candidate) => candidate.name.toLowerCase() === asked.toLowerCase());
    if (!user) return fail(404, `Cannot find user: ${asked}`);
    // `offset` is checked before `count` (recommendations_cf_recording_api.py, stats_api.py).
    const count = nonNegative(params.get('count'), 25);
    const offset = nonNegative(params.get('offset'), 0);
    if (offset === undefined) return fail(400, "'offset' should be a non-negative integer");
    if (count === undefined) return fail(400, "'count' should be a non-negative integer");
    const take = Math.min(count, MAX_ITEMS);
    if (route[1] !== undefined) {
      // A stored row with `raw: null` passes the model (`Optional`) and fails at `len(None)` in the view
      // (recommendations_cf_recording_api.py); Flask's 500 handler answers JSON under /1 with the text of an
      // exception that has no description (listenbrainz/webserver/errors.py, `handle_error`), misspelling and all.
      if (user.unreadableRecommendations) return fail(500, 'An unknown error occured.');
      // §3.1: no recommendations (none computed, or an empty list) is 204 with no body at all.
      if (!user.recommendations || user.recommendations.length === 0) return replyEmpty(res, 204, headers);
      const mbids = user.recommendations.slice(offset, offset + take);
      return replyJson(res, 200, { payload: {
        model_id: null, model_url: null, mbids, entity: 'recording', user_name: asked, last_updated: user.lastUpdated,
        count: mbids.length, total_mbid_count: user.recommendations.length, offset,
      } }, headers);
    }
    const range = params.get('range') ?? 'all_time';
    if (!RANGES.includes(range)) return fail(400, `Invalid range: ${range}`);
    // §3.2: stats not computed is 204 too.
    if (!user.topArtists) return replyEmpty(res, 204, headers);
    const artists = user.topArtists.slice(offset, offset + take);
    replyJson(res, 200, { payload: {
      user_id: asked, artists, count: artists.length, total_artist_count: user.topArtists.length, offset, range,
      from_ts: user.lastUpdated - 365 * 86_400, to_ts: user.lastUpdated, last_updated: user.lastUpdated,
    } }, headers);
  };

  const listener = await listenOnLoopback(handle);
  return {
    url: listener.origin,
    labsUrl: labs.origin,
    users,
    received,
    close: () => Promise.all([listener.close(), labs.close()]).then(() => undefined),
  };
}

/** §3: `count`/`offset` must be non-negative integers; undefined when they are not. */
function nonNegative(text: string | null, fallback: number): number | undefined {
  if (text === null) return fallback;
  return /^\d+$/.test(text) ? Number(text) : undefined;
}
