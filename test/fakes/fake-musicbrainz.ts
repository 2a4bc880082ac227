import { systemClock, type Clock } from '@crateflow/sdk';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LeakyBucket } from './leaky-bucket.js';
import { listenOnLoopback } from './listen-on-loopback.js';
import { generateMusicBrainzCatalogue, type MusicBrainzCatalogue } from './musicbrainz-catalogue.js';
import { answerBrowse, answerSearch, type Answer } from './musicbrainz-queries.js';
import { artistJson, recordingJson, releaseGroupLookupJson } from './musicbrainz-json.js';
import { answerReleaseBrowse, answerReleaseLookup } from './musicbrainz-releases.js';
import { countRequestsTo, recordRequest } from './recorded-request.js';
import { answerHostile } from './musicbrainz-hostile-answers.js';
import { replyJson, replyText } from './reply.js';

/**
 * A real HTTP fake of the MusicBrainz web service (`/ws/2`, JSON). Every behaviour follows
 * shared/reference/musicbrainz-api.md; the section is named where it is implemented.
 */
export interface FakeMusicBrainzOptions {
  readonly catalogue?: MusicBrainzCatalogue;
  /** The fake's own clock for the rate limit and `created` (default the real clock). */
  readonly clock?: Clock;
  /** The per-IP limit (§2, default 1 request/s on average with a burst of 2); `false` turns it off. */
  readonly rateLimit?: { readonly perSecond: number; readonly burst: number } | false;
  /**
   * Global load shedding (§2): every `every`-th request that passes the User-Agent and per-IP checks is refused with
   * the "currently busy" 503 and `Retry-After: 0`, however politely it was paced. On by default, every 8th (real
   * MusicBrainz refused 12 of ~45 requests sent 1.1 s apart this way, all answered on retry: §2, from
   * aalomrani/it-stings `docs/api-reality.md`); counted, not random, so a test's requests are repeatable. `false`
   * turns it off where a test counts requests exactly or waits on the real clock.
   */
  readonly loadShedding?: { readonly every: number } | false;
}

/**
 * Failures a test can inject. From MusicBrainz itself (§2): IP over limit, global load shedding, search backend down,
 * an HTML 502 outage. Not sent by MusicBrainz but by what can stand in front of it (a broken proxy, a hostile
 * mirror configured as `metadata.musicbrainz.url`), as the probes of issue #27 did:
 * - `retry-after-huge`: 503 with `Retry-After: 999999999` (RFC 9110 §10.2.3 puts no bound on delta-seconds);
 * - `nested-json`: 200 JSON whose arrays nest 100,000 deep (valid JSON: RFC 8259 §9 lets a parser limit depth);
 * - `huge-body`: 200 JSON of 200 MB, streamed as the client reads it;
 * - `cut-off-body`: a Content-Length larger than the bytes sent, then the connection closes;
 * - `redirect-loop`: 301 to the very URL asked for (a lookup MusicBrainz answers 301 is a merged MBID, §3);
 * - `file-redirect`: 301 to `file:///etc/passwd`.
 */
export type MusicBrainzFailure = 'ip-rate' | 'busy' | 'search-down' | 'html-502' | HostileAnswer;
export type HostileAnswer = 'retry-after-huge' | 'nested-json' | 'huge-body' | 'cut-off-body' | 'redirect-loop' | 'file-redirect';

export interface AnsweredRequest {
  readonly path: string;
  readonly query: URLSearchParams;
  /** Arrival on the fake's clock. */
  readonly at: number;
  readonly status: number;
  readonly userAgent: string | undefined;
}

export interface FakeMusicBrainz {
  /** Origin; the API lives at `${url}/ws/2`. */
  readonly url: string;
  readonly catalogue: MusicBrainzCatalogue;
  readonly answered: readonly AnsweredRequest[];
  /** How many requests had a path starting with `prefix` (e.g. `/ws/2/release-group`). */
  requestsTo(prefix: string): number;
  /** 503s given because the client went over the per-IP rate (not the injected ones). */
  readonly refusedForRate: number;
  /** 503s given by the default load shedding (not the injected ones). */
  readonly shed: number;
  /** The next `count` requests that pass the User-Agent check fail this way. */
  failNext(count: number, failure: MusicBrainzFailure): void;
  close(): Promise<void>;
}

const HELP = 'For usage, please see: https://musicbrainz.org/development/mmd';
const MBID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INCS: Record<string, readonly string[]> = {
  artist: ['aliases', 'tags', 'genres', 'ratings', 'annotation', 'url-rels', 'artist-rels', 'release-groups', 'releases', 'recordings'],
  'release-group': ['artist-credits', 'releases', 'tags', 'genres', 'ratings', 'aliases', 'annotation', 'url-rels', 'artist-rels'],
  recording: ['artist-credits', 'artists', 'releases', 'release-groups', 'isrcs', 'tags', 'genres', 'ratings', 'aliases', 'url-rels'],
  release: ['artist-credits', 'labels', 'recordings', 'release-groups', 'media', 'discids', 'isrcs', 'tags', 'genres', 'annotation', 'url-rels'],
};

export async function startFakeMusicBrainz(options: FakeMusicBrainzOptions = {}): Promise<FakeMusicBrainz> {
  const catalogue = options.catalogue ?? generateMusicBrainzCatalogue();
  const clock = options.clock ?? systemClock();
  const limit = options.rateLimit ?? { perSecond: 1, burst: 2 };
  const shedding = options.loadShedding ?? { every: 8 };
  const bucket = limit ? new LeakyBucket(clock, limit.perSecond, limit.burst) : undefined;
  const answered: AnsweredRequest[] = [];
  const injected: MusicBrainzFailure[] = [];
  let refusedForRate = 0;
  let admitted = 0;
  let shed = 0;

  const answer = (params: URLSearchParams, path: string, origin: string): Answer => {
    const [, entity, id, extra] = /^\/ws\/2\/([a-z-]+)(?:\/([^/]*))?(\/.*)?$/.exec(path) ?? [];
    if (!entity || extra !== undefined || !(entity in INCS)) return notFound();
    const inc = new Set((params.get('inc') ?? '').split(/[+ ]/).filter(Boolean));
    for (const name of inc) {
      if (!INCS[entity]?.includes(name)) return error(400, `${name} is not a valid inc parameter for the ${entity} resource.`);
    }
    if (id === undefined || id === '') {
      if (params.has('query')) return answerSearch(catalogue, entity, params, clock.now());
      if (entity === 'release-group' && params.has('artist')) return answerBrowse(catalogue, params, inc);
      if (entity === 'release' && params.has('release-group')) return answerReleaseBrowse(catalogue, params, inc);
      return error(400, `The given parameters do not match any available query type for the ${entity} resource.`);
    }
    if (!MBID.test(id)) return error(400, 'Invalid mbid.');
    // A lookup of a merged MBID answers 301 to the entity that absorbed it, with that entity as the body
    // (musicbrainz-server lib/MusicBrainz/Server/Controller/Role/Load.pm, `_load`: the gid found differs from the
    // one asked for). Browses by a merged MBID resolve it and answer 200 (`get_by_gid`).
    const absorbedBy = catalogue.redirects.get(id.toLowerCase());
    if (absorbedBy !== undefined) {
      const moved = answer(params, `/ws/2/${entity}/${absorbedBy}`, origin);
      const location = new URL(`/ws/2/${entity}/${absorbedBy}`, origin);
      for (const [name, value] of params) location.searchParams.append(name, value);
      return moved.status === 200 ? { status: 301, body: moved.body, headers: { location: location.href } } : moved;
    }
    if (entity === 'artist') {
      const artist = catalogue.artist(id.toLowerCase());
      return artist ? { status: 200, body: { ...artistJson(artist), 'life-span': { ended: null } } } : notFound();
    }
    if (entity === 'release-group') {
      const group = catalogue.releaseGroup(id.toLowerCase());
      return group ? { status: 200, body: releaseGroupLookupJson(group, inc) } : notFound();
    }
    if (entity === 'release') return answerReleaseLookup(catalogue, id, inc);
    const recording = catalogue.recording(id.toLowerCase());
    if (inc.has('artists')) inc.add('artist-credits');
    return recording ? { status: 200, body: recordingJson(recording, catalogue, inc, params) } : notFound();
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const request = await recordRequest(req);
    const userAgent = request.headers['user-agent'];
    const send = (status: number, body: unknown, headers: Record<string, string> = {}): void => {
      answered.push({ path: request.path, query: request.query, at: clock.now(), status, userAgent });
      // §1: CORS on every answer.
      replyJson(res, status, body, { 'access-control-allow-origin': '*', ...headers });
    };
    // §1 and §2: the edge checks the User-Agent first, then the IP rate, then global load.
    if (!userAgent) {
      return send(403, { error: 'Your requests are being throttled by MusicBrainz because the application you are using has not identified itself. Please update your application, and see http://musicbrainz.org/doc/XML_Web_Service/Rate_Limiting for more information.' },
        { 'x-ratelimit-who': 'ua-missing', 'x-mb-rate-limiter': 'lua' });
    }
    const withinRate = bucket?.admit() ?? true;
    let failure = withinRate ? injected.shift() : 'ip-rate';
    if (!withinRate) refusedForRate++;
    if (withinRate && failure === undefined && shedding && ++admitted % shedding.every === 0) {
      failure = 'busy';
      shed++;
    }
    if (failure === 'ip-rate') {
      return send(503, { error: 'Your requests are exceeding the allowable rate limit. Please see http://wiki.musicbrainz.org/XMLWebService for more information.' },
        { 'x-ratelimit-zone': 'ws ip=127.0.0.1', 'x-ratelimit-limit': '1', 'x-ratelimit-remaining': '0', 'retry-after': '1', server: 'openresty' });
    }
    if (failure === 'busy') {
      return send(503, { error: 'The MusicBrainz web server is currently busy. Please try again later.' },
        { 'x-ratelimit-zone': 'global', 'x-ratelimit-limit': '15', 'x-ratelimit-remaining': '3', 'retry-after': '0', server: 'openresty' });
    }
    if (failure === 'search-down') return send(503, { error: 'Could not retrieve sub-document page from search server. Error: timeout', help: HELP });
    if (failure === 'html-502') {
      answered.push({ path: request.path, query: request.query, at: clock.now(), status: 502, userAgent });
      return replyText(res, 502, '<html><body><h1>Server being naughty</h1></body></html>', 'text/html');
    }
    if (failure !== undefined) {
      const status = await answerHostile(req, res, failure);
      answered.push({ path: request.path, query: request.query, at: clock.now(), status, userAgent });
      return;
    }
    // §1: JSON only when asked for by `fmt=json` or `Accept`; the default is XML, here a stub no JSON parser reads.
    const wantsJson = request.query.get('fmt') === 'json' || (request.headers.accept ?? '').includes('application/json');
    if (!wantsJson) {
      answered.push({ path: request.path, query: request.query, at: clock.now(), status: 200, userAgent });
      return replyText(res, 200, '<?xml version="1.0" encoding="UTF-8"?><metadata xmlns="http://musicbrainz.org/ns/mmd-2.0#"/>', 'application/xml; charset=utf-8');
    }
    const outcome = answer(request.query, request.path, `http://${request.headers.host ?? '127.0.0.1'}`);
    // §2: successful answers carry the shared (not per-client) counters.
    const counters: Record<string, string> = outcome.status === 200 ? { 'x-ratelimit-limit': '1200', 'x-ratelimit-remaining': '1100', 'x-ratelimit-reset': String(Math.ceil(clock.now() / 1000) + 1) } : {};
    send(outcome.status, outcome.body, { ...counters, ...outcome.headers });
  };

  const listener = await listenOnLoopback(handle);
  return {
    url: listener.origin,
    catalogue,
    answered,
    requestsTo: (prefix) => countRequestsTo(answered, prefix),
    get refusedForRate() {
      return refusedForRate;
    },
    get shed() {
      return shed;
    },
    failNext(count, failure) {
      for (let i = 0; i < count; i++) injected.push(failure);
    },
    close: () => listener.close(),
  };
}

function error(status: number, text: string): Answer {
  return { status, body: { error: text, help: HELP } };
}

function notFound(): Answer {
  return error(404, 'Not Found');
}
