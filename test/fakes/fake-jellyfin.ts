import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { findJellyfinToken } from './find-jellyfin-token.js';
import type { FakeAlbum } from './generate-albums.js';
import { listenOnLoopback } from './listen-on-loopback.js';
import { recordRequest, type RecordedRequest } from './recorded-request.js';
import { replyEmpty, replyJson } from './reply.js';

export interface FakeJellyfinUser {
  readonly token: string;
  readonly admin: boolean;
}

export interface FakeJellyfinOptions {
  /** An admin API key. */
  readonly apiKey: string;
  readonly albums: readonly FakeAlbum[];
  /** `EnableLegacyAuthorization` (default true, as up to 10.11); false behaves like 12.0's default. */
  readonly legacyAuth?: boolean;
  /** Extra user access tokens; a non-admin one gets 403 from admin-only endpoints. */
  readonly users?: readonly FakeJellyfinUser[];
  /** GET /ScheduledTasks calls that show the library scan `Running` after POST /Library/Refresh (default 1). */
  readonly scanPolls?: number;
  /**
   * The server version imitated (default `10.11.1`). From 10.11 on, `TotalRecordCount` of an album listing is
   * lower than the real count (jellyfin issue #15186: 1074 reported for 1102 albums); the fake leaves out 2.5%.
   */
  readonly version?: '10.10.7' | '10.11.1';
  /**
   * /Items requests that never answer, by StartIndex, and how many times each: 10.11 album pages can take
   * longer than a client's deadline (jellyfin #15313, ~10 s for 800 albums). A stalled request is dropped when
   * the client gives up. Off by default, since a stall costs the test a client timeout of real time.
   */
  readonly stallPages?: ReadonlyMap<number, number>;
}

export interface FakeJellyfin {
  readonly url: string;
  readonly received: RecordedRequest[];
  close(): Promise<void>;
  setAlbums(albums: readonly FakeAlbum[]): void;
}

type Json = Record<string, unknown>;
interface Call {
  readonly request: RecordedRequest;
  readonly res: ServerResponse;
  /** Query parameters by lower-cased name: Jellyfin's names are case-insensitive. */
  readonly query: ReadonlyMap<string, string>;
  readonly admin: boolean;
}

const SERVER_ID = createHash('md5').update('fake-jellyfin').digest('hex');
const LIBRARY_ID = createHash('md5').update('fake-jellyfin-music-library').digest('hex');
const TASK_ID = createHash('md5').update('fake-jellyfin-refresh-library').digest('hex');

/** A real HTTP fake of the Jellyfin endpoints a music library plugin uses. See shared/reference/jellyfin-api.md. */
export async function startFakeJellyfin(options: FakeJellyfinOptions): Promise<FakeJellyfin> {
  const legacyAuth = options.legacyAuth ?? true;
  const version = options.version ?? '10.11.1';
  const stallsLeft = new Map(options.stallPages ?? []);
  const received: RecordedRequest[] = [];
  const tokens = new Map<string, boolean>([[options.apiKey, true], ...(options.users ?? []).map((u): [string, boolean] => [u.token, u.admin])]);
  let albums = options.albums;
  let sorted = new Map<string, readonly FakeAlbum[]>();
  const scan: { pollsLeft: number; running: boolean; lastStart?: Date; lastEnd?: Date } = { pollsLeft: 0, running: false };
  const publicInfo = (origin: string): Json => ({
    LocalAddress: origin, ServerName: 'fake-jellyfin', Version: version, ProductName: 'Jellyfin Server',
    OperatingSystem: '', Id: SERVER_ID, StartupWizardCompleted: true,
  });
  let origin = '';

  const sortedAlbums = (sortBy: string, order: string): readonly FakeAlbum[] => {
    const cacheKey = `${sortBy}|${order}`;
    const cached = sorted.get(cacheKey);
    if (cached) return cached;
    const keys = sortBy.split(',').map((key) => key.trim().toLowerCase());
    const keyOf = (album: FakeAlbum): string =>
      keys.map((key) => key === 'productionyear' ? String(album.year ?? 0).padStart(4, '0')
        : key === 'datecreated' ? album.createdAt
        : key === 'albumartist' ? album.artist.toLowerCase()
        : album.name.toLowerCase()).join('\u0000');
    const keyed = albums.map((album) => ({ album, key: keyOf(album) }));
    keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const result = keyed.map((entry) => entry.album);
    if (order.toLowerCase() === 'descending') result.reverse();
    sorted.set(cacheKey, result);
    return result;
  };

  const listItems = ({ res, query }: Call): void => {
    const stallAt = integer(query.get('startindex'), 0);
    const stalls = stallsLeft.get(stallAt) ?? 0;
    if (stalls > 0) {
      stallsLeft.set(stallAt, stalls - 1);
      return; // no answer at all: the client's deadline ends the request, closeAllConnections() the socket
    }
    const list = (name: string): string[] => (query.get(name) ?? '').split(',').map((v) => v.trim().toLowerCase()).filter((v) => v !== '');
    const types = list('includeitemtypes');
    const fields = new Set(list('fields'));
    const parentId = normalizeGuid(query.get('parentid') ?? '');
    let items: readonly FakeAlbum[] = [];
    // Albums sit below library folders: without Recursive=true only direct children of the root are seen.
    const recursive = (query.get('recursive') ?? '').toLowerCase() === 'true';
    const wantsAlbums = types.length === 0 || types.includes('musicalbum');
    if (recursive && wantsAlbums && (parentId === '' || parentId === LIBRARY_ID)) {
      items = query.has('sortby') ? sortedAlbums(query.get('sortby') ?? '', query.get('sortorder') ?? 'Ascending') : albums;
      const term = (query.get('searchterm') ?? '').toLowerCase();
      const years = list('years');
      const artistIds = list('albumartistids').map(normalizeGuid);
      const ids = list('ids').map(normalizeGuid);
      if (term || years.length || artistIds.length || ids.length) {
        items = items.filter((a) => (!term || a.name.toLowerCase().includes(term))
          && (!years.length || years.includes(String(a.year)))
          && (!artistIds.length || artistIds.includes(a.artistId))
          && (!ids.length || ids.includes(a.id)));
      }
    }
    const startIndex = Math.max(0, integer(query.get('startindex'), 0));
    const limit = integer(query.get('limit'), Number.MAX_SAFE_INTEGER);
    const page = items.slice(startIndex, startIndex + Math.max(0, limit));
    const root = !recursive && types.length === 0 && parentId === '' ? [libraryFolder()] : [];
    const total = items.length + root.length;
    replyJson(res, 200, {
      Items: [...root, ...page.map((album) => albumDto(album, fields))],
      TotalRecordCount: version === '10.10.7' ? total : total - Math.floor(total * 0.025),
      StartIndex: startIndex,
    });
  };

  const routes: Record<string, (call: Call) => void> = {
    'GET /system/info': ({ res }) => replyJson(res, 200, {
      ...publicInfo(origin), OperatingSystemDisplayName: 'Linux', HasPendingRestart: false, IsShuttingDown: false,
      SupportsLibraryMonitor: true, WebSocketPortNumber: 8096, CanSelfRestart: false, CanLaunchWebBrowser: false, HasUpdateAvailable: false,
    }),
    'GET /items': listItems,
    'GET /users/:id/items': listItems,
    'GET /library/mediafolders': ({ res }) => replyJson(res, 200, { Items: [libraryFolder()], TotalRecordCount: 1, StartIndex: 0 }),
    'POST /library/refresh': ({ res, admin }) => {
      if (!admin) return replyEmpty(res, 403);
      // Re-queues the "Scan Media Library" task, cancelling a run already in progress, and answers at once.
      scan.running = true;
      scan.pollsLeft = options.scanPolls ?? 1;
      scan.lastStart = new Date();
      replyEmpty(res, 204);
    },
    'GET /scheduledtasks': ({ res, admin }) => {
      if (!admin) return replyEmpty(res, 403);
      if (scan.running && --scan.pollsLeft < 0) {
        scan.running = false;
        scan.lastEnd = new Date();
      }
      replyJson(res, 200, [{
        Name: 'Scan Media Library', State: scan.running ? 'Running' : 'Idle', CurrentProgressPercentage: scan.running ? 50 : undefined,
        Id: TASK_ID, Key: 'RefreshLibrary', Category: 'Library', IsHidden: false, Triggers: [],
        LastExecutionResult: scan.lastStart && scan.lastEnd ? {
          StartTimeUtc: scan.lastStart.toISOString(), EndTimeUtc: scan.lastEnd.toISOString(), Status: 'Completed',
          Name: 'Scan Media Library', Key: 'RefreshLibrary', Id: TASK_ID,
        } : undefined,
      }]);
    },
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const request = await recordRequest(req);
    received.push(request);
    const path = request.path.toLowerCase().replace(/\/+$/, '') || '/';
    const query = new Map<string, string>();
    for (const [name, value] of request.query) if (!query.has(name.toLowerCase())) query.set(name.toLowerCase(), value);
    if (path === '/system/ping' && (request.method === 'GET' || request.method === 'POST')) return replyJson(res, 200, 'fake-jellyfin');
    if (path === '/system/info/public' && request.method === 'GET') return replyJson(res, 200, publicInfo(origin));
    const key = `${request.method} ${path.replace(/^\/users\/[^/]+\/items$/, '/users/:id/items')}`;
    const route = routes[key];
    if (!Object.hasOwn(routes, key) || !route) return replyEmpty(res, 404);
    const token = findJellyfinToken(request, legacyAuth);
    const admin = token === undefined ? undefined : tokens.get(token);
    if (admin === undefined) return replyEmpty(res, 401);
    route({ request, res, query, admin });
  };

  const albumDto = (album: FakeAlbum, fields: ReadonlySet<string>): Json => ({
    Name: album.name,
    ServerId: SERVER_ID,
    Id: album.id,
    SortName: fields.has('sortname') ? album.name.toLowerCase() : undefined,
    DateCreated: fields.has('datecreated') ? album.createdAt.replace(/\.(\d{3})Z$/, (_m, ms: string) => `.${ms}0000Z`) : undefined,
    Path: fields.has('path') ? `/music/${album.artist}/${album.name}` : undefined,
    Type: 'MusicAlbum',
    IsFolder: true,
    ProductionYear: album.year,
    PremiereDate: album.year === undefined ? undefined : `${album.year}-01-01T00:00:00.0000000Z`,
    RunTimeTicks: album.durationSeconds * 10_000_000,
    ...albumArtistsOf(album),
    // The DTO carries ProviderIds only when the caller asked for that field.
    ProviderIds: fields.has('providerids')
      ? { MusicBrainzAlbum: album.mbid, MusicBrainzReleaseGroup: album.releaseGroupMbid, MusicBrainzAlbumArtist: album.artistMbid }
      : undefined,
    LocationType: 'FileSystem',
  });

  const listener = await listenOnLoopback(handle);
  origin = listener.origin;
  return {
    url: listener.origin,
    received,
    close: () => listener.close(),
    setAlbums(next) {
      albums = next;
      sorted = new Map();
    },
  };
}

function libraryFolder(): Json {
  return { Name: 'Music', ServerId: SERVER_ID, Id: LIBRARY_ID, Type: 'CollectionFolder', CollectionType: 'music', IsFolder: true };
}

/** Jellyfin writes GUIDs as 32 hex digits (format "N") but accepts the dashed form. */
function normalizeGuid(value: string): string {
  return value.replace(/-/g, '').toLowerCase();
}

function integer(value: string | undefined, fallback: number): number {
  const parsed = Number.parseInt(value ?? '', 10);
  return Number.isNaN(parsed) ? fallback : parsed;
}

/**
 * The artist fields of a MusicAlbum DTO. A compilation ripped without ALBUMARTIST gets its track performers
 * as album artists (`MediaBrowser.Providers/MediaInfo/AudioFileProber.cs`: "Album artists not provided, fall
 * back to performers"), gathered over its songs most frequent first (`MediaBrowser.Providers/Music/
 * AlbumMetadataService.cs` SetAlbumArtistFromSongs), so "Various Artists" appears nowhere; `AlbumArtist` is the
 * first of them. Several album artists are listed one by one.
 */
function albumArtistsOf(album: FakeAlbum): Json {
  const refs = album.performers
    ? album.performers.map((name) => ({ Name: name, Id: createHash('md5').update(`artist:${name}`).digest('hex') }))
    : (album.albumArtists ?? [{ id: album.artistId, name: album.artist }]).map((a) => ({ Name: a.name, Id: a.id }));
  return {
    AlbumArtist: refs[0]?.Name,
    AlbumArtists: refs,
    Artists: refs.map((r) => r.Name),
    ArtistItems: refs,
  };
}
