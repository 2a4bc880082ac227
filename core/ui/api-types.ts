/**
 * The API's requests and answers as the web UI sees them. Each is the static type of the schema the server
 * validates and serialises with, never a copy: the UI's JavaScript names these in JSDoc, so a change of an
 * answer's shape fails the UI's type check (core/ui/tsconfig.json, part of `npm run typecheck`) where a page
 * reads the old shape, instead of failing in a browser.
 */
import type { Static } from 'typebox';
import type {
  DomainEvent as DomainEventSchema,
  LibraryAlbum as LibraryAlbumSchema,
  Scope,
  WebhookDelivery as WebhookDeliverySchema,
  WebhookDeliveryPage as WebhookDeliveryPageSchema,
  WebhookTarget as WebhookTargetSchema,
  WebhookTestRequest as WebhookTestRequestSchema,
  WebhookTestResult as WebhookTestResultSchema,
} from '@crateflow/sdk';
import type { ApiKeyCreated as ApiKeyCreatedSchema, ApiKeyList as ApiKeyListSchema, ApiKeyView as ApiKeySchema, CreateApiKeyBody as ApiKeyCreateSchema } from '../users/api-key.schema.js';
import type { Download as DownloadSchema, DownloadPage as DownloadPageSchema } from '../downloads/download.schema.js';
import type { AuthInfo as AuthInfoSchema, LoginBody as LoginBodySchema } from '../http/routes/auth.schema.js';
import type { Stats as StatsSchema } from '../stats/stats.schema.js';
import type { WebhookTargetList as WebhookTargetListSchema } from '../http/routes/webhooks.schema.js';
import type { Job as JobSchema } from '../jobs/job.schema.js';
import type { LibraryPage as LibraryPageSchema, SyncStarted as SyncStartedSchema } from '../library/library-api.schema.js';
import type { QueueItem as QueueItemSchema } from '../queue/queue-item.schema.js';
import type { AddResult as QueueAddResultSchema } from '../queue/queue.routes.js';
import type { RequestItem as RequestItemSchema, RequestPage as RequestPageSchema } from '../requests/request.schema.js';
import type { ReleaseGroupResult as ReleaseGroupResultSchema, SearchResults as SearchResultsSchema } from '../search/search.schema.js';
import type { SourceList as SourceListSchema, SourceRunStarted as SourceRunStartedSchema, SourceView as SourceViewSchema } from '../sources/sources-api.schema.js';
import type {
  ApproveSelection as ApproveSelectionSchema,
  BulkResult as BulkResultSchema,
  BulkSelection as BulkSelectionSchema,
  OneQueueItem as OneQueueItemSchema,
  PendingPage as PendingPageSchema,
  PendingSources as PendingSourcesSchema,
} from '../queue/queue-api.schema.js';
import type {
  CreateUserBody as CreateUserBodySchema,
  UpdateUserBody as UpdateUserBodySchema,
  User as UserSchema,
  UserList as UserListSchema,
} from '../users/user.schema.js';
import type { WishlistItem as WishlistItemSchema, WishlistPage as WishlistPageSchema } from '../wishlist/wishlist-item.schema.js';

export type { Problem } from '../http/problem-middleware.js';
export type { FieldProblem } from '../errors/validation-error.js';

/** `GET /auth/info`, `POST /auth/login`; the roles a user may have, and the scopes that say what the UI offers them. */
export type AuthInfo = Static<typeof AuthInfoSchema>;
export type { Role, Scope } from '@crateflow/sdk';
export type LoginBody = Static<typeof LoginBodySchema>;

/** `GET /stats`. */
export type Stats = Static<typeof StatsSchema>;
export type DomainEvent = Static<typeof DomainEventSchema>;
export type EventType = DomainEvent['type'];

/** `GET /queue/pending` and `GET /queue?status=`; a decision or restore of one item; bulk decisions. */
export type QueueItem = Static<typeof QueueItemSchema>;
export type PendingPage = Static<typeof PendingPageSchema>;
export type OneQueueItem = Static<typeof OneQueueItemSchema>;
export type BulkSelection = Static<typeof BulkSelectionSchema>;
export type ApproveSelection = Static<typeof ApproveSelectionSchema>;
export type BulkResult = Static<typeof BulkResultSchema>;
/** `GET /queue/sources` (sources with pending items) and `GET /sources` (configured discovery sources). */
export type PendingSources = Static<typeof PendingSourcesSchema>;

/** `GET /wishlist`. */
export type WishlistItem = Static<typeof WishlistItemSchema>;
export type WishlistPage = Static<typeof WishlistPageSchema>;

/** `GET /downloads`. */
export type Download = Static<typeof DownloadSchema>;
export type DownloadPage = Static<typeof DownloadPageSchema>;

/** `GET /library`, `POST /library/sync`, `GET /jobs/:id`. */
export type LibraryAlbum = Static<typeof LibraryAlbumSchema>;
export type LibraryPage = Static<typeof LibraryPageSchema>;
export type Job = Static<typeof JobSchema>;
export type SyncStarted = Static<typeof SyncStartedSchema>;

/** `GET /webhooks`, `POST /webhooks/test`, `GET /webhooks/deliveries`. */
export type WebhookTarget = Static<typeof WebhookTargetSchema>;
export type WebhookTargetList = Static<typeof WebhookTargetListSchema>;
export type WebhookTestRequest = Static<typeof WebhookTestRequestSchema>;
export type WebhookTestResult = Static<typeof WebhookTestResultSchema>;
export type WebhookDelivery = Static<typeof WebhookDeliverySchema>;
export type WebhookDeliveryPage = Static<typeof WebhookDeliveryPageSchema>;

/** `POST /queue` (one candidate or many): what was added and what was skipped as a duplicate. */
export type QueueAddResult = Static<typeof QueueAddResultSchema>;

/** `GET /search?q=`: MusicBrainz release groups, each flagged in_library, queued, wishlisted or rejected. */
export type ReleaseGroupResult = Static<typeof ReleaseGroupResultSchema>;
export type SearchResults = Static<typeof SearchResultsSchema>;

/** `GET /sources`, `POST /sources/:name/run`. */
export type SourceView = Static<typeof SourceViewSchema>;
export type SourceList = Static<typeof SourceListSchema>;
export type SourceRunStarted = Static<typeof SourceRunStartedSchema>;

/** `GET /users`, `POST /users`, `PATCH /users/:name`; a quota counts requests approved automatically per window. */
export type User = Static<typeof UserSchema>;
export type UserList = Static<typeof UserListSchema>;
export type UserCreate = Static<typeof CreateUserBodySchema>;
export type UserChange = Static<typeof UpdateUserBodySchema>;
export type Quota = NonNullable<User['quota']>;

/** `GET /requests`: albums someone asked for, each with where it stands on its way to the library. */
export type RequestItem = Static<typeof RequestItemSchema>;
export type RequestPage = Static<typeof RequestPageSchema>;
/** `POST /requests/:id/cancel`. */
export interface RequestCancelled {
  request: RequestItem;
}

/*
 * Previews and album detail: written by hand, in the shapes agreed with the branch that builds their routes
 * (`GET /previews`, `GET /release-groups/:mbid`). Once that branch is merged, replace both with the Static types of
 * its schemas, as above, so the UI is checked against what the server really sends.
 */

/** One 30-second preview of a track, on the provider's CDN. */
export interface PreviewTrack {
  title: string;
  artist: string;
  position?: number;
  disc?: number;
  duration_s?: number;
  preview_url: string;
  source: string;
  link?: string;
}

/** `GET /previews?mbid=` (or `artist` and `album`). */
export interface Previews {
  tracks: PreviewTrack[];
  source: string;
}

/** `GET /release-groups/:mbid`: an album's facts, its tracks (first release) and where to read about it. */
export interface ReleaseGroupDetail {
  mbid: string;
  title: string;
  artist: string;
  year?: number;
  primary_type: string | null;
  secondary_types: string[];
  tracks: { position: number; title: string; length_s?: number }[];
  links: { musicbrainz: string; listenbrainz: string; lastfm: string; bandcamp_search: string };
}

/** API keys: `GET /api-keys` entries, the `POST /api-keys` body and its answer (the key shown once). */
export type ApiKey = Static<typeof ApiKeySchema>;
export type ApiKeyList = Static<typeof ApiKeyListSchema>;
export type ApiKeyCreate = Static<typeof ApiKeyCreateSchema>;
export type ApiKeyCreated = Static<typeof ApiKeyCreatedSchema>;
