import { systemClock, type Clock } from '@crateflow/sdk';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { deezerAlbumsOf, type DeezerAlbum, type DeezerArtist, type DeezerTrack } from './deezer-catalogue.js';
import { startFakeDeezerCdn, type PreviewSigner } from './fake-deezer-cdn.js';
import { listenOnLoopback } from './listen-on-loopback.js';
import { parseLuceneQuery } from './lucene-query.js';
import { generateMusicBrainzCatalogue, type MusicBrainzCatalogue } from './musicbrainz-catalogue.js';
import { recordRequest, type RecordedRequest } from './recorded-request.js';
import { replyJson } from './reply.js';

/**
 * A real HTTP fake of the Deezer public API's album search and album tracks, with signed 30-second previews on a
 * fake CDN (a second port), per shared/reference/deezer-api.md, sections named below.
 */
export interface FakeDeezerOptions {
  readonly catalogue?: MusicBrainzCatalogue;
  /** The clock for the quota and preview expiry (default the real clock). */
  readonly clock?: Clock;
  /** Distinct requests allowed per rolling 5 s (§1, default 50); `false` turns the quota off. */
  readonly quota?: number | false;
}

export interface FakeDeezer {
  /** API origin (`/search/album`, `/album/{id}`, `/album/{id}/tracks`). */
  readonly url: string;
  /** Preview CDN origin. */
  readonly cdnUrl: string;
  readonly albums: readonly DeezerAlbum[];
  readonly received: readonly RecordedRequest[];
  /**
   * Other devices behind the same public address spend the quota: after `after` more answers (default 0), the
   * next `answers` API requests are refused with error 4 however slowly this client asks (§1: the quota is per IP,
   * shared by every device behind it, freyr-js #32).
   */
  spendQuotaElsewhere(answers: number, after?: number): void;
  close(): Promise<void>;
}

type Json = Record<string, unknown>;
const QUOTA_WINDOW_MS = 5000;

export async function startFakeDeezer(options: FakeDeezerOptions = {}): Promise<FakeDeezer> {
  const albums = deezerAlbumsOf(options.catalogue ?? generateMusicBrainzCatalogue());
  const clock = options.clock ?? systemClock();
  const quota = options.quota ?? 50;
  const received: RecordedRequest[] = [];
  const recent: { url: string; at: number }[] = [];
  let refusedElsewhere = 0;
  let answeredFirst = 0;
  const cdn = await startFakeDeezerCdn(clock);

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const request = await recordRequest(req);
    received.push(request);
    const origin = `http://127.0.0.1:${listener.port}`;
    // §1: JSON, no cache or rate-limit headers, and no CORS on the API.
    const send = (body: unknown) => replyJson(res, 200, body, { server: 'Apache' });
    // §2: every application error is HTTP 200 with an error object.
    const fail = (type: string, message: string, code: number) => send({ error: { type, message, code } });
    if (refusedElsewhere > 0 && answeredFirst > 0) answeredFirst--;
    else if (refusedElsewhere > 0) {
      refusedElsewhere--;
      return fail('Exception', 'Quota limit exceeded', 4);
    }
    if (quota !== false && !withinQuota(request.path + '?' + request.query.toString())) return fail('Exception', 'Quota limit exceeded', 4);
    const params = request.query;
    const page = paging(params);
    if (request.path === '/search/album') {
      const q = params.get('q');
      if (q === null) return fail('MissingParameterException', 'Missing parameters: q', 501);
      if (!q.trim()) return fail('ParameterException', 'empty parameter', 500);
      const found = search(albums, q);
      return send(envelope(found.slice(page.index, page.index + page.limit).map((album) => albumJson(album)), found.length, page, `${origin}/search/album`, params));
    }
    const albumRoute = /^\/album\/(-?\d+)(\/tracks)?$/.exec(request.path);
    const album = albumRoute ? albums.find((candidate) => candidate.id === Number(albumRoute[1])) : undefined;
    if (albumRoute && !album) return fail('DataException', 'no data', 800);
    if (album && albumRoute?.[2]) {
      const tracks = album.tracks.slice(page.index, page.index + page.limit).map((track) => ({ ...trackJson(track, album, cdn.sign), ...placeOf(track) }));
      return send(envelope(tracks, album.tracks.length, page, `${origin}/album/${album.id}/tracks`, params));
    }
    if (album) {
      // §4: only the first 25 tracks are embedded.
      return send({ ...albumJson(album), label: 'Fake Records', contributors: album.contributors.map((artist) => ({ ...artistJson(artist), role: 'Main' })),
        explicit_content_lyrics: album.explicit ? 1 : 3, nb_tracks: album.tracks.length, duration: album.tracks.reduce((sum, track) => sum + track.duration, 0),
        release_date: album.releaseDate, available: true, tracks: { data: album.tracks.slice(0, 25).map((track) => trackJson(track, album, cdn.sign)) } });
    }
    fail('InvalidQueryException', `Unknown path components : ${request.path}`, 600);
  };

  /** §1: a rolling window per client; repeats of a URL are answered by the edge cache and do not count. */
  const withinQuota = (url: string): boolean => {
    const now = clock.now();
    while (recent[0] && recent[0].at <= now - QUOTA_WINDOW_MS) recent.shift();
    if (recent.some((entry) => entry.url === url)) return true;
    recent.push({ url, at: now });
    return recent.length <= (quota === false ? Infinity : quota);
  };

  const listener = await listenOnLoopback(handle);
  return {
    url: listener.origin, cdnUrl: cdn.origin, albums, received,
    spendQuotaElsewhere: (answers, after = 0) => {
      refusedElsewhere = answers;
      answeredFirst = after;
    },
    close: () => Promise.all([listener.close(), cdn.close()]).then(() => undefined) };
}

/** §3: `index` offset, `limit` default 25 clamped to 100. */
function paging(params: URLSearchParams): { index: number; limit: number } {
  const index = Math.max(0, Number.parseInt(params.get('index') ?? '0', 10) || 0);
  const limit = Math.min(100, Math.max(1, Number.parseInt(params.get('limit') ?? '25', 10) || 25));
  return { index, limit };
}

/** §3: `next`/`prev` are absolute URLs, absent at the ends. */
function envelope(data: Json[], total: number, page: { index: number; limit: number }, base: string, params: URLSearchParams): Json {
  const link = (index: number) => {
    const next = new URLSearchParams(params);
    next.set('index', String(index));
    return `${base}?${next.toString()}`;
  };
  return { data, total, ...(page.index > 0 ? { prev: link(Math.max(0, page.index - page.limit)) } : {}), ...(page.index + page.limit < total ? { next: link(page.index + page.limit) } : {}) };
}

/**
 * §3: `artist:"…" album:"…"` fields, plain words matched loosely; ranked by popularity, not by closeness. Matching
 * is fuzzy unless `strict=on` (§3), and an advanced query still returns other artists (§3.1): an `artist:` phrase
 * matches an album whose artist shares a word with it, so "A & B" finds A's albums and a same-named album by
 * someone else who shares a word of the name.
 */
function search(albums: readonly DeezerAlbum[], q: string): DeezerAlbum[] {
  const terms = parseLuceneQuery(q).map((term) => ({ ...term, text: searchTokens(term.text) })).filter((term) => term.text);
  return albums.filter((album) => terms.every((term) => {
    const title = searchTokens(album.title);
    const artist = searchTokens(album.artist.name);
    if (term.field === 'album') return title.includes(term.text);
    // An advanced artist query still returns albums that only name the artist in their title (the tribute).
    if (term.field === 'artist') return artist.includes(term.text) || title.includes(term.text) || sharesAWord(artist, term.text);
    if (term.field === 'track') return album.tracks.some((track) => searchTokens(track.title).includes(term.text));
    return term.text.split(' ').some((word) => title.includes(word) || artist.includes(word));
  })).sort((a, b) => b.popularity - a.popularity);
}

/**
 * A search engine's view of a text: lower-case words, punctuation dropped. Deezer's search is a fuzzy full-text
 * search (§3: fuzzy unless `strict=on`), so `album:"Songs Broken"` finds `Songs: "Broken"`; the fake only keeps the
 * word order and spelling strict, which is narrower than the real one, never kinder.
 */
function searchTokens(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}&]+/gu, ' ').trim();
}

const SMALL_WORDS = new Set(['a', 'an', 'and', 'the', 'of', 'feat', 'ft', 'with', 'x', '&']);

function sharesAWord(name: string, phrase: string): boolean {
  const words = new Set(name.split(/[\s,]+/));
  return phrase.split(/[\s,]+/).some((word) => !SMALL_WORDS.has(word) && words.has(word));
}

function artistJson(artist: DeezerArtist): Json {
  return { id: artist.id, name: artist.name, link: `https://www.deezer.com/artist/${artist.id}`, type: 'artist' };
}

/** `/album/{id}/tracks` items carry the place on the album; the tracks `/album/{id}` embeds do not (§4 cassette). */
function placeOf(track: DeezerTrack): Json {
  return { track_position: track.position, disk_number: track.disk };
}

function albumJson(album: DeezerAlbum): Json {
  const cover = (size: number) => `https://e-cdns-images.dzcdn.net/images/cover/${album.md5Image}/${size}x${size}-000000-80-0-0.jpg`;
  return {
    id: album.id, title: album.title, link: `https://www.deezer.com/album/${album.id}`, cover: `https://api.deezer.com/album/${album.id}/image`,
    cover_small: cover(56), cover_medium: cover(250), cover_big: cover(500), cover_xl: cover(1000), md5_image: album.md5Image,
    genre_id: 113, nb_tracks: album.tracks.length, record_type: album.recordType, tracklist: `https://api.deezer.com/album/${album.id}/tracks`,
    explicit_lyrics: album.explicit, artist: artistJson(album.artist), type: 'album',
  };
}

/** §4, §6: `preview` a freshly signed URL or `""` when not licensed; `title_version` sometimes missing. */
function trackJson(track: DeezerTrack, album: DeezerAlbum, sign: PreviewSigner): Json {
  return {
    id: track.id, readable: track.previewable, title: track.title, title_short: track.title,
    ...(track.titleVersion === undefined ? {} : { title_version: track.titleVersion }),
    link: `https://www.deezer.com/track/${track.id}`, duration: track.duration, rank: 851_865 - track.id % 1000,
    explicit_lyrics: album.explicit, explicit_content_lyrics: album.explicit ? 1 : 0, explicit_content_cover: 0, preview: track.previewable ? sign(track.id) : '',
    artist: { id: album.artist.id, name: album.artist.name, type: 'artist' }, type: 'track',
  };
}
