import type { IncomingMessage, ServerResponse } from 'node:http';
import { listenOnLoopback } from './listen-on-loopback.js';
import { generateMusicBrainzCatalogue, type MbArtist, type MusicBrainzCatalogue } from './musicbrainz-catalogue.js';
import { recordRequest, type RecordedRequest } from './recorded-request.js';
import { replyText } from './reply.js';

/**
 * A real HTTP fake of Last.fm's `artist.getSimilar` (Web Services 2.0), per shared/reference/lastfm-api.md, sections
 * named below. Artists come from the MusicBrainz catalogue so a test can follow a similar artist into MusicBrainz.
 */
export interface FakeLastFmOptions {
  readonly catalogue?: MusicBrainzCatalogue;
  /** The one valid key (default 32 hex digits). */
  readonly apiKey?: string;
  /** HTTP status of "artist not found" (error 6): 200 per the examples; 4xx is possible (§3). */
  readonly notFoundStatus?: number;
}

/** Error codes a test can inject: 8 operation failed, 16 temporary error, 29 rate limit exceeded (§3). */
export type LastFmTransientError = 8 | 16 | 29;

export interface FakeLastFm {
  /** Origin; the API is `${url}/2.0/`. */
  readonly url: string;
  readonly apiKey: string;
  readonly catalogue: MusicBrainzCatalogue;
  readonly received: readonly RecordedRequest[];
  /** A misspelling that `autocorrect=1` maps to a catalogue artist (§4.5). */
  readonly misspelling: { readonly wrong: string; readonly right: string };
  failNext(count: number, code: LastFmTransientError): void;
  close(): Promise<void>;
}

const MESSAGES: Record<number, string> = {
  8: 'Operation failed - Most likely the backend service failed. Please try again.',
  16: 'There was a temporary error processing your request. Please try again',
  29: 'Rate limit exceeded - Your IP has made too many requests in a short period',
};
const PLACEHOLDER = '2a96cbd8b46e442fc41c2b86b821562f.png';

export async function startFakeLastFm(options: FakeLastFmOptions = {}): Promise<FakeLastFm> {
  const catalogue = options.catalogue ?? generateMusicBrainzCatalogue();
  const apiKey = options.apiKey ?? 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
  const artists = catalogue.artists.filter((artist) => artist.disambiguation === '');
  const right = artists[0]?.name ?? '';
  const misspelling = { wrong: right.toLowerCase().replace(/s\b/, ''), right };
  const received: RecordedRequest[] = [];
  const injected: LastFmTransientError[] = [];

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const request = await recordRequest(req);
    received.push(request);
    const params = request.query;
    const json = params.get('format') === 'json';
    // §1: no rate-limit headers; CORS open; openresty.
    const reply = (status: number, body: Record<string, unknown>) => json
      ? replyText(res, status, JSON.stringify(body), 'application/json', { 'access-control-allow-origin': '*', server: 'openresty' })
      : replyText(res, status, toXml(body), 'text/xml; charset=utf-8', { 'access-control-allow-origin': '*', server: 'openresty' });
    const fail = (status: number, error: number, message: string, extra: Record<string, unknown> = {}) => reply(status, { error, message, ...extra });
    if (request.path !== '/2.0/' && request.path !== '/2.0') return replyText(res, 404, 'Not Found');
    // §3: the observed statuses and bodies for a missing key, a bad key and an unknown method.
    if (!params.get('api_key')) return fail(400, 6, 'Invalid parameters - Your request is missing a required parameter');
    if (params.get('api_key') !== apiKey) return fail(403, 10, 'Invalid API key - You must be granted a valid key by last.fm');
    if (params.get('method')?.toLowerCase() !== 'artist.getsimilar') return fail(400, 3, 'Invalid Method - No method with that name in this package');
    const transient = injected.shift();
    if (transient) return fail(200, transient, MESSAGES[transient] ?? 'error');
    const name = params.get('artist');
    // §4.1: looking up by MBID often fails; this fake never finds an artist by MBID.
    if (!name) return fail(params.has('mbid') ? options.notFoundStatus ?? 200 : 400, 6, params.has('mbid') ? 'The artist you supplied could not be found' : 'Invalid parameters - Your request is missing a required parameter');
    // §4.1: the literal `[unknown]` gets an empty list, not an error.
    if (name === '[unknown]') return reply(200, { similarartists: { artist: [], '@attr': { artist: name } } });
    const corrected = params.get('autocorrect') === '1' && name.toLowerCase() === misspelling.wrong ? misspelling.right : name;
    const seed = artists.find((artist) => artist.name.toLowerCase() === corrected.toLowerCase());
    if (!seed) return fail(options.notFoundStatus ?? 200, 6, 'The artist you supplied could not be found', { links: [] });
    const limit = Math.max(1, Number.parseInt(params.get('limit') ?? '', 10) || 100);
    return reply(200, { similarartists: { artist: similarTo(seed, artists, catalogue.redirects).slice(0, limit), '@attr': { artist: seed.name } } });
  };

  const listener = await listenOnLoopback(handle);
  return {
    url: listener.origin, apiKey, catalogue, received, misspelling,
    failNext(count, code) {
      for (let i = 0; i < count; i++) injected.push(code);
    },
    close: () => listener.close(),
  };
}

/** An artist MBID MusicBrainz answers 404 for, which Last.fm still gives one of the catalogue's artists. */
export const STALE_ARTIST_MBID = '7c1f0b52-3a8e-4f6d-9b21-5e0d8a4c6f13';

/**
 * §2, §4.1: `match` a decimal string in 0–1, the first exactly `"1"`; `mbid` a UUID, `""` or absent; every image the
 * grey-star placeholder.
 *
 * Artists MusicBrainz knows well come with every kind of `mbid` Last.fm sends, not only right ones: the second and
 * third of the list with `""` and none (§2, §5; lastfm-api.md quotes pylast #128 and a Dart capture), the fourth (in a
 * catalogue that has one) with an MBID MusicBrainz does not know, and an artist MusicBrainz merged another one into
 * with that other, old MBID.
 * Last.fm's MBIDs are its own matches and lag or disagree with MusicBrainz's: it answers wrong or empty results for
 * current MBIDs (navidrome/navidrome #1091, the reason navidrome stopped trusting them, §4.1) and recommendations
 * carry another artist's MBID (lklynet/aurral #96); an MBID that MusicBrainz has since merged or deleted is one more
 * of those.
 */
function similarTo(seed: MbArtist, artists: readonly MbArtist[], redirects: ReadonlyMap<string, string>): Record<string, unknown>[] {
  const oldIdOf = new Map([...redirects].map(([old, to]) => [to, old]));
  const quirky = (artist: MbArtist, index: number): string | undefined =>
    oldIdOf.get(artist.id) ?? (index === 1 ? '' : index === 2 ? undefined : index === 3 ? STALE_ARTIST_MBID : artist.id);
  const rows: { name: string; mbid: string | undefined }[] = [
    ...artists.filter((artist) => artist.id !== seed.id).map((artist, index) => ({ name: artist.name, mbid: quirky(artist, index) })),
    { name: `${seed.name} Tribute Band`, mbid: '' },
    { name: 'Obscure Bedroom Project', mbid: undefined },
  ];
  return rows.map((row, index) => ({
    name: row.name,
    ...(row.mbid === undefined ? {} : { mbid: row.mbid }),
    match: index === 0 ? '1' : (0.9 - index * 0.0831).toFixed(6),
    url: `https://www.last.fm/music/${encodeURIComponent(row.name).replace(/%20/g, '+')}`,
    image: ['small', 'medium', 'large', 'extralarge', 'mega', ''].map((size) => ({ '#text': `https://lastfm.freetls.fastly.net/i/u/34s/${PLACEHOLDER}`, size })),
    streamable: '0',
  }));
}

/** §6: anything but `format=json` is XML; a stub that is `<lfm>` and never JSON is enough for a fake. */
function toXml(body: Record<string, unknown>): string {
  const error = body['error'];
  if (typeof error === 'number') return `<?xml version="1.0" encoding="UTF-8"?>\n<lfm status="failed"><error code="${error}">${String(body['message'])}</error></lfm>\n`;
  return '<?xml version="1.0" encoding="UTF-8"?>\n<lfm status="ok"><similarartists/></lfm>\n';
}
