import { Type, type Static } from 'typebox';
import { Role, Scope } from '@crateflow/sdk';
import { WebhooksPolicy } from '../net/webhooks-policy.schema.js';
import { MetadataPolicy } from '../net/metadata-policy.schema.js';
import { SourceEntry } from './source-entry.schema.js';
import { NotificationEntry } from './notification-entry.schema.js';

// The shape of config.yaml. Blocks that belong to a plugin (the download client, the library backend, the
// auth mode, webhooks and third-party plugins) are only checked here for the keys the core itself reads;
// the rest of each block is validated against the plugin's own schema when the plugin is loaded.

/** A duration written like 500ms, 30s, 5m, 6h or 1d. */
export const duration = (value: string, description: string) =>
  Type.String({ pattern: '^[0-9]+(ms|s|m|h|d)$', default: value, description: `${description} (e.g. 500ms, 30s, 5m, 6h, 1d)` });

const Server = Type.Object(
  {
    host: Type.String({ default: '127.0.0.1', minLength: 1, description: 'address to listen on; 0.0.0.0 or :: for every interface' }),
    port: Type.Integer({ default: 8080, minimum: 0, maximum: 65535, description: 'TCP port (env PORT overrides it)' }),
    shutdown_timeout_ms: Type.Integer({ default: 10000, minimum: 0, maximum: 120000, description: 'how long a shutdown waits for in-flight requests' }),
    allowed_hosts: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      description: 'host names besides localhost, IP addresses and server.host that requests may name in Host (the names a reverse proxy passes on)',
    }),
    max_connections: Type.Integer({ default: 256, minimum: 1, maximum: 65535, description: 'open TCP connections at most; a connection beyond it is closed at once' }),
    request_timeout_ms: Type.Integer({
      default: 30000,
      minimum: 1000,
      maximum: 600000,
      description: 'how long a client may take to send a whole request, headers and body; a slower one gets 408 and is disconnected',
    }),
    public_url: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2000,
        description: 'the address people reach Crateflow at (https://music.example.org): links in notifications and webhooks (decide_url) are built on it; without it no decision links are issued',
      }),
    ),
    max_event_streams: Type.Integer({ default: 32, minimum: 1, maximum: 10000, description: 'open GET /api/v1/events/stream connections at most; one more gets 503' }),
    event_stream_max_unread_bytes: Type.Integer({
      default: 262144,
      minimum: 4096,
      maximum: 67108864,
      description: 'bytes an event stream may hold for a client that does not read them; past that the client is dropped (it reconnects)',
    }),
  },
  { additionalProperties: false, default: {} },
);

const Approvals = Type.Object(
  {
    link_ttl: duration('48h', 'how long a decision link works after it is sent; at least 1m, at most 30d'),
  },
  { additionalProperties: false, default: {} },
);

const Storage = Type.Object(
  {
    dir: Type.String({ default: './data', minLength: 1, description: "folder for the data files; created if missing. A relative path is relative to the config file's folder (with no config file, to the current directory)" }),
    max_items: Type.Integer({
      minimum: 100,
      maximum: 1_000_000,
      default: 100_000,
      description: 'most live items (pending queue, wishlist and downloads) the store holds in memory; adding past it answers 507. Decided queue items are kept on disk and do not count',
    }),
  },
  { additionalProperties: false, default: {} },
);

const Log = Type.Object(
  {
    level: Type.Union([Type.Literal('fatal'), Type.Literal('error'), Type.Literal('warn'), Type.Literal('info'), Type.Literal('debug'), Type.Literal('trace'), Type.Literal('silent')], {
      default: 'info',
      description: 'log level; logs are JSON lines on stdout',
    }),
  },
  { additionalProperties: false, default: {} },
);

export const ApiKeyConfig = Type.Object(
  {
    name: Type.String({ minLength: 1, description: 'who uses the key; recorded as decided_by' }),
    key: Type.Optional(Type.String({ minLength: 16, description: 'the key itself (write ${ENV_NAME} to keep it out of the file)' })),
    key_hash: Type.Optional(Type.String({ pattern: '^\\$scrypt\\$', description: 'an scrypt PHC hash of the key (crateflow hash-password)' })),
    role: Type.Union([Role], { default: 'approver', description: 'admin, approver, requester or viewer: the most the key may do (the user\'s role when `user` is set and the user has one)' }),
    user: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$', description: 'the user the key acts for: requests and decisions made with it are recorded under this name' })),
    scopes: Type.Optional(Type.Array(Scope, { minItems: 1, uniqueItems: true, description: 'narrows the key to these of its role\'s scopes: read, request, decide, admin (e.g. [read, decide] for Node-RED)' })),
  },
  { additionalProperties: false },
);
export type ApiKeyConfig = Static<typeof ApiKeyConfig>;

// Keys of ui.auth that the core reads itself; everything else in the block belongs to the auth plugin.
export const CORE_AUTH_KEYS = ['enabled', 'type', 'api_keys', 'roles', 'trusted_proxies', 'logout_url'] as const;

const Auth = Type.Object(
  {
    enabled: Type.Boolean({ default: false, description: 'false: no authentication (put a forward-auth proxy in front)' }),
    type: Type.String({ default: 'basic', minLength: 1, description: 'basic (login form, HTTP Basic) or proxy (trust Remote-* headers from trusted_proxies)' }),
    api_keys: Type.Array(ApiKeyConfig, { default: [], description: 'keys accepted in every mode as Authorization: Bearer or X-API-Key' }),
    roles: Type.Record(Type.String(), Role, { default: {}, description: 'group → role, for groups sent in Remote-Groups' }),
    trusted_proxies: Type.Array(Type.String({ minLength: 1 }), {
      default: ['127.0.0.1/32', '::1/128'],
      description: 'CIDRs of the reverse proxies whose identity and X-Forwarded-* headers are believed',
    }),
    logout_url: Type.Optional(
      Type.String({ pattern: '^https?://', description: 'proxy mode: where "Sign out" leads, e.g. the Authelia portal\'s logout address' }),
    ),
  },
  { additionalProperties: true, default: {} },
);

const Ui = Type.Object(
  {
    auth: Auth,
    notice: Type.Optional(Type.String({
      minLength: 1, maxLength: 500,
      description: 'a line of plain text shown at the top of every page, sign-in included (npm run demo says its services are fakes)',
    })),
  },
  { additionalProperties: false, default: {} },
);

export const CORE_DOWNLOAD_KEYS = ['type', 'poll_interval', 'max_active'] as const;
const DownloadClientBlock = Type.Object(
  {
    type: Type.String({ default: 'blackhole', minLength: 1, description: 'blackhole or slskd' }),
    poll_interval: duration('10s', 'how often active downloads are polled'),
    max_active: Type.Integer({ default: 5, minimum: 1, maximum: 100, description: 'downloads handed to the client at once' }),
  },
  { additionalProperties: true, default: {} },
);

export const CORE_LIBRARY_KEYS = ['type', 'sync_interval', 'refresh_after_download'] as const;
const LibraryBlock = Type.Object(
  {
    type: Type.String({ default: 'filesystem', minLength: 1, description: 'filesystem, subsonic or jellyfin' }),
    sync_interval: duration('6h', 'how often the library is synced'),
    refresh_after_download: Type.Boolean({ default: false, description: 'ask the library to rescan after a download completes' }),
  },
  { additionalProperties: true, default: {} },
);

export const CORE_PREVIEW_KEYS = ['type', 'cache_ttl', 'cache_max_albums'] as const;
const PreviewsBlock = Type.Object(
  {
    type: Type.String({ default: 'deezer', minLength: 1, description: 'deezer, none (no previews), or the name of a plugins: entry of kind preview' }),
    cache_ttl: duration('10m', 'how long an album\'s previews are remembered; Deezer preview links stop working 15 minutes after they were handed out'),
    cache_max_albums: Type.Integer({ default: 500, minimum: 1, maximum: 100_000, description: 'albums whose previews are remembered at most; the least recently asked go first' }),
  },
  { additionalProperties: true, default: {} },
);

const PluginEntry = Type.Object(
  {
    use: Type.String({ minLength: 1, description: "the plugin: a package name (installed next to config.yaml or next to Crateflow), or a path to its package folder or .js file, relative to config.yaml" }),
    config: Type.Record(Type.String(), Type.Unknown(), { default: {}, description: "the plugin's config block" }),
  },
  { additionalProperties: false },
);

/** A requester's quota of automatic approvals: `albums` per `per`. */
export const RequestQuota = Type.Object(
  {
    albums: Type.Integer({ minimum: 0, maximum: 10_000, description: 'requests the auto-approve rule lets through in each window; past it, requests wait for an admin' }),
    per: Type.String({ pattern: '^[1-9][0-9]{0,5}(m|h|d)$', description: 'the sliding window, e.g. 7d or 24h (at least 1m)' }),
  },
  { additionalProperties: false },
);

const Requests = Type.Object(
  {
    quota: Type.Optional(RequestQuota),
    max_waiting: Type.Integer({
      default: 20, minimum: 1, maximum: 10_000,
      description: 'requests one user may have waiting for an admin at once; past it, more are refused (429) until some are decided',
    }),
    auto_approve: Type.Array(Type.String({ pattern: '^(role:(admin|approver|requester|viewer)|[^\\s:]{1,64})$' }), {
      default: [],
      maxItems: 1000,
      description: 'whose requests are approved without an admin (up to the quota): user names, or role:<role> (e.g. role:requester)',
    }),
  },
  { additionalProperties: false, default: {} },
);

const Events = Type.Object(
  {
    sink_timeout_ms: Type.Integer({
      default: 10000,
      minimum: 100,
      maximum: 120000,
      description: 'how long one call into an event sink may take: a delivery, or a /api/v1/webhooks request (a live webhook test gets 30 s more)',
    }),
  },
  { additionalProperties: false, default: {} },
);

const MusicBrainzBlock = Type.Object(
  {
    url: Type.String({ default: 'https://musicbrainz.org', pattern: '^https?://', description: 'the MusicBrainz server (a mirror of your own, or a test fake)' }),
    request_interval_ms: Type.Integer({
      default: 1000,
      minimum: 0,
      maximum: 60000,
      description: 'the least time between two requests; musicbrainz.org allows one a second, so less than 1000 is refused for it',
    }),
    cache_max_mb: Type.Integer({ default: 64, minimum: 1, maximum: 10240, description: 'disk space for cached answers (data dir, cache/musicbrainz); the oldest go first' }),
  },
  { additionalProperties: false, default: {} },
);

const CoverArtArchiveBlock = Type.Object(
  {
    url: Type.String({ default: 'https://coverartarchive.org', pattern: '^https?://', description: 'the Cover Art Archive (or a test fake)' }),
    cache_max_mb: Type.Integer({ default: 512, minimum: 1, maximum: 102400, description: 'disk space for stored covers (data dir, cache/covers); the least recently served go first' }),
  },
  { additionalProperties: false, default: {} },
);

const Metadata = Type.Object(
  {
    contact: Type.Optional(
      Type.String({
        minLength: 3,
        maxLength: 200,
        description: "optional: your e-mail address or URL, added to the User-Agent after Crateflow's own address (which is all MusicBrainz asks of an application)",
      }),
    ),
    musicbrainz: MusicBrainzBlock,
    coverartarchive: CoverArtArchiveBlock,
  },
  { additionalProperties: false, default: {} },
);
export type MetadataConfig = Static<typeof Metadata>;

export const AppConfig = Type.Object(
  {
    server: Server,
    storage: Storage,
    log: Log,
    ui: Ui,
    download_client: DownloadClientBlock,
    library: LibraryBlock,
    previews: PreviewsBlock,
    webhooks: Type.Array(Type.Unknown(), { default: [], description: 'outbound webhooks (see README)' }),
    webhooks_policy: WebhooksPolicy,
    events: Events,
    plugins: Type.Array(PluginEntry, { default: [], description: 'third-party plugins' }),
    metadata: Metadata,
    metadata_policy: MetadataPolicy,
    approvals: Approvals,
    requests: Requests,
    notifications: Type.Array(NotificationEntry, { default: [], maxItems: 20, description: 'where people are told about new candidates and can decide (ntfy; see README, "Deciding from a phone")' }),
    sources: Type.Array(SourceEntry, { default: [], maxItems: 100, description: 'discovery sources that fill the pending queue (see README, "Discovery sources")' }),
  },
  { additionalProperties: false },
);
export type AppConfig = Static<typeof AppConfig>;
