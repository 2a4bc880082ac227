import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FakeAlbum } from './generate-albums.js';
import { listenOnLoopback } from './listen-on-loopback.js';
import { recordRequest, type RecordedRequest } from './recorded-request.js';
import { renderSubsonicXml } from './render-subsonic-xml.js';
import { replyText } from './reply.js';
import { albumId3, type SubsonicFlavour } from './subsonic-album-id3.js';
import { SubsonicAlbumQueries, type ArtistSummary } from './subsonic-album-queries.js';

export interface FakeSubsonicOptions {
  readonly username: string;
  readonly password: string;
  readonly albums: readonly FakeAlbum[];
  /** The server imitated, with its quirks (default `navidrome`); see subsonic-album-id3.ts. */
  readonly flavour?: SubsonicFlavour;
  /**
   * Navidrome's `Subsonic.LegacyClients`: a client whose `c` is a substring of this gets no OpenSubsonic fields.
   * Only Navidrome has the setting.
   */
  readonly legacyClients?: string;
  /** Whether the user is an admin (default true); startScan needs it. */
  readonly admin?: boolean;
  /** getScanStatus calls that still report `scanning: true` after startScan (default 1). */
  readonly scanPolls?: number;
}

export interface FakeSubsonic {
  /** Server base URL; methods live under `${url}/rest/`. */
  readonly url: string;
  readonly received: RecordedRequest[];
  close(): Promise<void>;
  /** Replaces the library, e.g. to make a freshly downloaded album appear after a scan. */
  setAlbums(albums: readonly FakeAlbum[]): void;
}

type Payload = Record<string, unknown>;
type Outcome = { readonly payload: Payload; readonly headers?: Record<string, string> } | { readonly code: number; readonly message: string };
interface Client { readonly legacy: boolean }

const API_VERSION = '1.16.1';
const EXTENSIONS = ['formPost', 'transcodeOffset', 'songLyrics', 'indexBasedQueue', 'transcoding', 'playbackReport',
  'topSongsByArtistId', 'sonicSimilarity'].map((name) => ({ name, versions: [1] }));

/** A real HTTP fake of a Subsonic API as Navidrome, gonic or a plain Subsonic serves it. See shared/reference/subsonic-api.md. */
export async function startFakeSubsonic(options: FakeSubsonicOptions): Promise<FakeSubsonic> {
  const flavour = options.flavour ?? 'navidrome';
  const openSubsonic = flavour !== 'plain';
  const legacyClients = flavour === 'navidrome' ? (options.legacyClients ?? 'DSub') : '';
  const received: RecordedRequest[] = [];
  let albums = options.albums;
  let library = new SubsonicAlbumQueries(albums);
  const scan = { scanning: false, pollsLeft: 0, lastScan: new Date() };

  // gonic `server/ctrlsubsonic/spec/spec.go` NewResponse; Navidrome `server/subsonic/helpers.go` newResponse.
  const envelope = (status: 'ok' | 'failed'): Payload =>
    flavour === 'navidrome'
      ? { status, version: API_VERSION, type: 'navidrome', serverVersion: '0.58.0 (fake)', openSubsonic: true }
      : flavour === 'gonic'
        ? { status, version: API_VERSION, type: 'gonic', serverVersion: '0.22.0 (fake)', openSubsonic: true }
        : { status, version: API_VERSION };

  const scanStatus = (): Payload => ({
    scanStatus: {
      scanning: scan.scanning,
      count: albums.reduce((sum, album) => sum + album.songCount, 0),
      folderCount: albums.length,
      lastScan: scan.lastScan.toISOString(),
    },
  });

  const handlers: Record<string, (params: URLSearchParams, client: Client) => Outcome> = {
    ping: () => ({ payload: {} }),
    getAlbumList2: (params, client) => {
      const selection = library.select(params);
      if ('error' in selection) return selection.error;
      const size = Math.max(0, Math.min(integer(params, 'size', 10), 500)); // Navidrome clamps silently
      const offset = Math.max(0, integer(params, 'offset', 0));
      const page = selection.albums.slice(offset, offset + size).map((album) => albumOf(album, client));
      // An empty page leaves the `album` key out entirely: `"albumList2": {}`.
      return { payload: { albumList2: { album: page.length > 0 ? page : undefined } }, headers: { 'x-total-count': String(selection.albums.length) } };
    },
    search3: (params, client) => {
      const found = library.search(params.get('query'));
      const artists = found.artists.slice(integer(params, 'artistOffset', 0), integer(params, 'artistOffset', 0) + integer(params, 'artistCount', 20));
      const albums = found.albums.slice(integer(params, 'albumOffset', 0), integer(params, 'albumOffset', 0) + integer(params, 'albumCount', 20));
      return {
        payload: {
          searchResult3: {
            artist: artists.length > 0 ? artists.map((artist) => artistId3(artist, client)) : undefined,
            album: albums.length > 0 ? albums.map((album) => albumOf(album, client)) : undefined,
          },
        },
      };
    },
    getScanStatus: () => {
      if (scan.scanning && --scan.pollsLeft < 0) {
        scan.scanning = false;
        scan.lastScan = new Date();
      }
      return { payload: scanStatus() };
    },
    startScan: () => {
      if (options.admin === false) return { code: 50, message: 'User is not authorized for the given operation.' };
      scan.scanning = true;
      scan.pollsLeft = options.scanPolls ?? 1;
      return { payload: scanStatus() };
    },
  };
  // A Map, so that names such as `toString` are not found on the object prototype.
  const methods = new Map(Object.entries(handlers));

  const albumOf = (album: FakeAlbum, client: Client): Payload => albumId3(album, flavour, !client.legacy);
  const artistId3 = (artist: ArtistSummary, client: Client): Payload => ({
    id: artist.id,
    name: artist.name,
    coverArt: `ar-${artist.id}_0`,
    albumCount: artist.albumCount,
    ...(openSubsonic && !client.legacy ? { musicBrainzId: artist.mbid, sortName: artist.name.toLowerCase(), roles: ['albumartist'] } : {}),
  });

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const request = await recordRequest(req);
    received.push(request);
    const method = /^\/rest\/([A-Za-z0-9]+?)(?:\.view)?$/.exec(request.path)?.[1];
    const params = new URLSearchParams(request.query);
    // formPost: parameters may also come as a urlencoded POST body; Navidrome merges them into the query.
    if (request.method === 'POST' && (request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
      for (const [key, value] of new URLSearchParams(request.text)) params.append(key, value);
    }
    if (method === 'search') return replyText(res, 410, 'Gone');
    const known = method !== undefined && (methods.has(method) || (openSubsonic && method === 'getOpenSubsonicExtensions'));
    if (!known) return replyText(res, 404, '404 page not found');
    const send = (body: Payload, headers: Record<string, string> = {}): void => respond(res, params, body, headers);
    const fail = (code: number, message: string): void => send({ ...envelope('failed'), error: { code, message } });
    if (method === 'getOpenSubsonicExtensions') return send({ ...envelope('ok'), openSubsonicExtensions: EXTENSIONS });
    for (const name of ['u', 'v', 'c']) {
      if (!params.get(name)) return fail(10, `missing parameter: '${name}'`);
    }
    if (!authenticated(params, options.username, options.password)) return fail(40, 'Wrong username or password');
    // Navidrome's test is `strings.Contains(LegacyClients, c)`: `c` is looked for inside the setting.
    const client: Client = { legacy: legacyClients.includes(params.get('c') ?? '') };
    const outcome = methods.get(method)?.(params, client) ?? { code: 0, message: 'not implemented' };
    if ('code' in outcome) return fail(outcome.code, outcome.message);
    send({ ...envelope('ok'), ...outcome.payload }, outcome.headers);
  };

  const listener = await listenOnLoopback(handle);
  return {
    url: listener.origin,
    received,
    close: () => listener.close(),
    setAlbums(next) {
      albums = next;
      library = new SubsonicAlbumQueries(next);
    },
  };
}

function authenticated(params: URLSearchParams, username: string, password: string): boolean {
  if (params.get('u') !== username) return false;
  const pass = params.get('p');
  const token = params.get('t');
  if (pass) return decodePassword(pass) === password;
  if (token) return createHash('md5').update(password + (params.get('s') ?? ''), 'utf8').digest('hex') === token;
  return false;
}

/** `enc:` + hex of the UTF-8 bytes; Navidrome keeps the raw value when the hex does not decode. */
function decodePassword(pass: string): string {
  if (!pass.startsWith('enc:')) return pass;
  const hex = pass.slice(4);
  return /^(?:[0-9a-fA-F]{2})*$/.test(hex) ? Buffer.from(hex, 'hex').toString('utf8') : pass;
}

function integer(params: URLSearchParams, name: string, fallback: number): number {
  const value = Number.parseInt(params.get(name) ?? '', 10);
  return Number.isNaN(value) ? fallback : value;
}

function respond(res: ServerResponse, params: URLSearchParams, body: Payload, headers: Record<string, string>): void {
  const format = params.get('f') ?? 'xml';
  if (format === 'json' || format === 'jsonp') {
    const json = JSON.stringify({ 'subsonic-response': body });
    const callback = params.get('callback');
    if (format === 'jsonp' && callback) return replyText(res, 200, `${callback}(${json})`, 'application/javascript', headers);
    return replyText(res, 200, json, 'application/json', headers);
  }
  replyText(res, 200, renderSubsonicXml(body), 'application/xml', headers);
}
