import { Type, type Static } from 'typebox';

/**
 * The records plugins exchange with the server. Each is a typebox schema (the server validates what a plugin
 * returns against it) and a type of the same name.
 */

/**
 * The events a sink can receive. The first four are the specification's; `queue_added` is Crateflow's addition.
 *
 * @example
 * const Config = Type.Object({ events: Type.Array(EventType, { default: ['download_completed'] }) });
 */
export const EventType = Type.Union([
  Type.Literal('download_completed'),
  Type.Literal('queue_approved'),
  Type.Literal('queue_rejected'),
  Type.Literal('wishlist_removed'),
  Type.Literal('queue_added'),
]);
/** @example const t: EventType = 'queue_approved'; */
export type EventType = Static<typeof EventType>;

/**
 * Every event type, in the order the documentation lists them.
 *
 * @example
 * for (const type of EVENT_TYPES) console.log(type);
 */
export const EVENT_TYPES: readonly EventType[] = ['download_completed', 'queue_approved', 'queue_rejected', 'wishlist_removed', 'queue_added'];

/**
 * A domain event, emitted after the store committed the change it describes. `id` is stable: a sink that sees
 * the same id twice (after a restart) is seeing the same event again.
 *
 * @example
 * { id: 'ev_01h…', type: 'download_completed', timestamp: '2026-03-18T12:00:00.000Z',
 *   data: { artist: 'Low', album: 'Things We Lost in the Fire', download_path: '/music/in/Low/Things…' } }
 */
export const DomainEvent = Type.Object({
  id: Type.String({ minLength: 1 }),
  type: EventType,
  timestamp: Type.String({ description: 'ISO 8601 UTC with milliseconds' }),
  data: Type.Object({
    artist: Type.String(),
    album: Type.Optional(Type.String()),
    mbid: Type.Optional(Type.String()),
    download_path: Type.Optional(Type.String()),
    id: Type.Optional(Type.String({ description: 'queue item id (queue_added only)' })),
    title: Type.Optional(Type.String({ description: 'the track title (track items only; an addition to the specification)' })),
    type: Type.Optional(Type.Union([Type.Literal('album'), Type.Literal('track')], { description: "'track' on events about a track item (an addition)" })),
    in_library: Type.Optional(Type.Boolean({ description: 'queue_approved only: the library already had the album, so nothing is downloaded (an addition)' })),
    decided_by: Type.Optional(Type.String({ description: 'queue_approved and queue_rejected: who decided (a user or key name, or "link"); absent when auth is disabled (an addition)' })),
    decided_via: Type.Optional(Type.String({ description: 'queue_approved and queue_rejected: through which channel ("web", "api", or where a decision link was sent) (an addition)' })),
    requested_by: Type.Optional(Type.String({ description: 'events about a request: the user who requested the album (an addition, sdk 1.6)' })),
    decline_reason: Type.Optional(Type.String({ description: 'queue_rejected: the reason the admin gave when declining (an addition, sdk 1.6)' })),
  }),
});
export type DomainEvent = Static<typeof DomainEvent>;

/**
 * Whether a candidate is a whole album or a single track.
 *
 * @example
 * const searchText = item.type === 'track' ? `${item.artist} ${item.title}` : `${item.artist} ${item.album}`;
 */
export const ItemType = Type.Union([Type.Literal('album'), Type.Literal('track')]);
export type ItemType = Static<typeof ItemType>;

/**
 * A wishlist item handed to a download client.
 *
 * @example
 * { id: 'w_3f…', artist: 'Low', album: 'Double Negative', type: 'album', mbid: '…', year: 2018 }
 */
export const WantedItem = Type.Object({
  id: Type.String({ description: 'wishlist item id' }),
  artist: Type.String(),
  album: Type.Optional(Type.String()),
  title: Type.Optional(Type.String()),
  mbid: Type.Optional(Type.String()),
  type: ItemType,
  year: Type.Optional(Type.Integer()),
});
export type WantedItem = Static<typeof WantedItem>;

/**
 * The life of a download as the server tracks it.
 *
 * @example
 * const finished = (s: DownloadState) => s === 'completed' || s === 'failed';
 */
export const DownloadState = Type.Union([
  Type.Literal('queued'),
  Type.Literal('searching'),
  Type.Literal('downloading'),
  Type.Literal('completed'),
  Type.Literal('failed'),
]);
export type DownloadState = Static<typeof DownloadState>;

/**
 * What a download client reports about one download when polled.
 * - `completed` needs `download_path` (the local folder that now holds the files).
 * - `failed` needs `error`; with `retry_after_ms` the item goes back to `wanted` and is tried again later
 *   (for example: a search that found nothing), instead of staying failed.
 *
 * @example
 * { state: 'downloading', progress: 0.42 }
 * { state: 'completed', progress: 1, download_path: '/downloads/Double Negative' }
 * { state: 'failed', progress: 0, error: 'no search results', retry_after_ms: 3_600_000 }
 */
export const DownloadUpdate = Type.Object({
  state: DownloadState,
  progress: Type.Number({ minimum: 0, maximum: 1 }),
  download_path: Type.Optional(Type.String({ minLength: 1 })),
  error: Type.Optional(Type.String()),
  retry_after_ms: Type.Optional(Type.Integer({ minimum: 0 })),
});
export type DownloadUpdate = Static<typeof DownloadUpdate>;

/**
 * One album known to the library backend. `mbid` is the MusicBrainz release id when the backend knows it;
 * `release_group_mbid` the release-group id. `artist` is the credit as the server shows it; `artists` lists the
 * other names the album is filed under (each album artist of a collaboration, a compilation's "Various
 * Artists"), and a wishlist item naming any of them matches.
 *
 * @example
 * { artist: 'Low', album: 'Double Negative', mbid: '…', year: 2018 }
 * { artist: 'JAY-Z • Kanye West', album: 'Watch the Throne', artists: ['JAY-Z', 'Kanye West', 'JAY-Z & Kanye West'] }
 */
export const LibraryAlbum = Type.Object({
  artist: Type.String(),
  artists: Type.Optional(Type.Array(Type.String(), { description: 'other artist names the album is filed under; each one matches' })),
  album: Type.String(),
  mbid: Type.Optional(Type.String()),
  release_group_mbid: Type.Optional(Type.String()),
  year: Type.Optional(Type.Integer()),
});
export type LibraryAlbum = Static<typeof LibraryAlbum>;

/**
 * A role a request can hold (sdk 1.6 adds `requester`). What each may do is a set of scopes (ROLE_SCOPES):
 * `admin` everything; `approver` reads, requests and decides; `requester` searches and requests albums and follows
 * their own requests; `viewer` reads.
 *
 * @example
 * return { name: user, groups: [], via: 'proxy', role: 'viewer' };
 */
export const Role = Type.Union([Type.Literal('admin'), Type.Literal('approver'), Type.Literal('requester'), Type.Literal('viewer')]);
export type Role = Static<typeof Role>;

/**
 * What a caller may do (sdk 1.6): `read` everything, `request` albums (and follow one's own requests), `decide`
 * queue items, `admin` the service. An API key carries a subset of its user's scopes.
 *
 * @example
 * const canDecide = identity.scopes?.includes('decide') ?? true;
 */
export const Scope = Type.Union([Type.Literal('read'), Type.Literal('request'), Type.Literal('decide'), Type.Literal('admin')]);
export type Scope = Static<typeof Scope>;

/** The scopes each role grants. */
export const ROLE_SCOPES: Readonly<Record<Role, readonly Scope[]>> = {
  admin: ['read', 'request', 'decide', 'admin'],
  approver: ['read', 'request', 'decide'],
  requester: ['request'],
  viewer: ['read'],
};
