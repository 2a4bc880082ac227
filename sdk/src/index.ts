// The public surface of @crateflow/sdk. Every export here is a promise we keep within a major version.
// The types below mention Node's (`Buffer` in HttpResponse, `AbortSignal`), so the emitted index.d.ts keeps this
// directive (since TypeScript 5.5, declaration output keeps only directives marked preserve="true"): a plugin
// project then gets Node's types for the sdk's declarations even when its own tsconfig lists no `types`.
// @types/node is an (optional) peer dependency for the same reason.
/// <reference types="node" preserve="true" />
export { PLUGIN_API_VERSION } from './api-version.js';
export { definePlugin, PLUGIN_KINDS } from './define-plugin.js';
export type { PluginKind, PluginManifest, PluginDefinition, KindContracts, ConfigProblem, SharedService } from './define-plugin.js';
export type { PluginContext } from './context.js';
export type { DecisionLinks, DecisionOutcome, IssuedDecisionLink } from './decision-links.js';
export type { Notification, NotifiedItem, Notifier } from './kinds/notifier.js';
export type { Logger } from './logger.js';
export type { PluginStorage, StorageWriteOptions } from './plugin-storage.js';
export type { JsonValue } from './json-value.js';
export { systemClock } from './clock.js';
export type { Clock } from './clock.js';
export { createHttpClient } from './http-client.js';
export type { HttpClient, HttpClientOptions, HttpRequest, HttpResponse } from './http-client.js';
export { RetryLaterError, CredentialsError, NotFoundError, HttpRequestError, isRetryLaterError, isCredentialsError, isNotFoundError, isHttpRequestError } from './errors.js';
export { DomainEvent, EventType, EVENT_TYPES, ItemType, WantedItem, DownloadState, DownloadUpdate, LibraryAlbum, Role, Scope, ROLE_SCOPES } from './records.js';
export type { LocalAccounts } from './local-accounts.js';
export type { AuthProvider, AuthRequest, Identity } from './kinds/auth.js';
export type { DownloadClient } from './kinds/download-client.js';
export type { LibraryBackend } from './kinds/library.js';
export type { EventSink } from './kinds/event-sink.js';
export { SourceCandidate, Reason, ReasonRef } from './kinds/source.js';
export type { DiscoverySource, SourceRun, KnownAs, LibraryArtist } from './kinds/source.js';
export { PreviewTrack } from './kinds/preview.js';
export type { PreviewProvider, PreviewQuery } from './kinds/preview.js';
export { isPreviewOrigin, isFromOrigins } from './preview-origins.js';
export type { MusicBrainz, ReleaseGroupQuery, CreditedArtist, ReleaseGroup, ReleaseGroupHit, RecordingReleaseGroups, Artist, ArtistHit, Tracklist, TracklistTrack } from './musicbrainz.js';
export type { PluginLifecycle, PluginHealth } from './kinds/plugin-lifecycle.js';
export { normalizeName, artistKey, albumKey, nameWords } from './normalize-name.js';
// Helpers for discovery sources: waiting on the context clock, a TTL cache in plugin storage, a ListenBrainz client
// with its rate-limit manners, and finding the MusicBrainz artist a library name means.
export { clockSleep } from './clock-sleep.js';
export { StorageCache } from './storage-cache.js';
export { ListenBrainzApi } from './listenbrainz-api.js';
export type { ListenBrainzApiOptions } from './listenbrainz-api.js';
export { resolveArtist } from './resolve-artist.js';
export { isKnownUnderCredit, releaseGroupCredit } from './release-group-credit.js';
export type { ResolvedArtist } from './resolve-artist.js';
/**
 * typebox (`Type`, `Static`, `TSchema`), re-exported so plugins build their config schemas with the same copy the
 * server validates with. Stick to JSON-Schema types (no `Type.Date` and the like): the server validates with ajv.
 *
 * @example
 * const Config = Type.Object({ url: Type.String({ format: 'uri', description: 'where the service runs' }) }, { additionalProperties: false });
 * type Config = Static<typeof Config>;
 */
export { Type } from 'typebox';
export type { Static, TSchema } from 'typebox';
export { hashSecret, verifySecret, isSecretHash } from './secret-hash.js';
// The webhook-admin capability of event sinks (EventSink.webhookAdmin) and the records of /api/v1/webhooks.
export { WebhookTarget, WebhookTestRequest, WebhookTestResult, WebhookDeliveryStatus, WebhookAttempt, WebhookDelivery, WebhookDeliveryPage } from './kinds/webhook-admin.js';
export type { WebhookAdmin, WebhookDeliveryQuery, WebhookTestOutcome, WebhookRedeliverOutcome } from './kinds/webhook-admin.js';
export { isRecord, stringField, numberField, booleanField, arrayField } from './json-fields.js';
export type { JsonRecord } from './json-fields.js';
