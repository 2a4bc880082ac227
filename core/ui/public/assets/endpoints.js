// Every call the UI makes to the API, each answering the type the server declares for the route (core/ui/api-types.ts
// derives them from the server's own schemas). A change of an answer's shape therefore fails `npm run typecheck`
// at the line of the UI that reads it, instead of breaking a page in the browser.
import { api } from './api.js';

/** @typedef {import('../../api-types.js').AuthInfo} AuthInfo */
/** @typedef {import('../../api-types.js').LoginBody} LoginBody */
/** @typedef {import('../../api-types.js').Stats} Stats */
/** @typedef {import('../../api-types.js').PendingPage} PendingPage */
/** @typedef {import('../../api-types.js').OneQueueItem} OneQueueItem */
/** @typedef {import('../../api-types.js').BulkSelection} BulkSelection */
/** @typedef {import('../../api-types.js').BulkResult} BulkResult */
/** @typedef {import('../../api-types.js').WishlistPage} WishlistPage */
/** @typedef {import('../../api-types.js').DownloadPage} DownloadPage */
/** @typedef {import('../../api-types.js').LibraryPage} LibraryPage */
/** @typedef {import('../../api-types.js').SyncStarted} SyncStarted */
/** @typedef {import('../../api-types.js').Job} Job */
/** @typedef {import('../../api-types.js').WebhookTargetList} WebhookTargetList */
/** @typedef {import('../../api-types.js').WebhookTestRequest} WebhookTestRequest */
/** @typedef {import('../../api-types.js').WebhookTestResult} WebhookTestResult */
/** @typedef {import('../../api-types.js').WebhookDeliveryPage} WebhookDeliveryPage */
/** @typedef {import('../../api-types.js').QueueAddResult} QueueAddResult */
/** @typedef {import('../../api-types.js').WishlistItem} WishlistItem */
/** @typedef {import('../../api-types.js').SearchResults} SearchResults */
/** @typedef {import('../../api-types.js').SourceList} SourceList */
/** @typedef {import('../../api-types.js').SourceRunStarted} SourceRunStarted */
/** @typedef {import('../../api-types.js').Previews} Previews */
/** @typedef {import('../../api-types.js').ReleaseGroupDetail} ReleaseGroupDetail */
/** @typedef {import('../../api-types.js').RequestPage} RequestPage */
/** @typedef {import('../../api-types.js').RequestCancelled} RequestCancelled */
/** @typedef {import('../../api-types.js').User} User */
/** @typedef {import('../../api-types.js').UserList} UserList */
/** @typedef {import('../../api-types.js').UserCreate} UserCreate */
/** @typedef {import('../../api-types.js').UserChange} UserChange */
/** @typedef {import('../../api-types.js').ApiKeyList} ApiKeyList */
/** @typedef {import('../../api-types.js').ApiKeyCreate} ApiKeyCreate */
/** @typedef {import('../../api-types.js').ApiKeyCreated} ApiKeyCreated */

/**
 * A decision on pending queue items, as it appears in the route's path.
 * @typedef {'approve' | 'reject'} Decision
 */

const segment = encodeURIComponent;

/**
 * `GET /auth/info`: how the server authenticates, and who this request is.
 * @returns {Promise<AuthInfo>}
 */
export const getAuthInfo = () => api('/auth/info');

/**
 * `POST /auth/login`. A 401 (wrong password) is the form's to show, not an ended session.
 * @param {LoginBody} credentials
 * @returns {Promise<AuthInfo>}
 */
export const logIn = (credentials) => api('/auth/login', { method: 'POST', body: credentials, allow401: true });

/** @returns {Promise<undefined>} */
export const logOut = () => api('/auth/logout', { method: 'POST' });

/**
 * `GET /stats`: everything the dashboard shows.
 * @param {AbortSignal} signal
 * @returns {Promise<Stats>}
 */
export const getStats = (signal) => api('/stats', { signal });

/**
 * `GET /queue/pending` with a query string from `query()` (search, sort, paging).
 * @param {string} search
 * @param {AbortSignal} signal
 * @returns {Promise<PendingPage>}
 */
export const getPendingQueue = (search, signal) => api(`/queue/pending${search}`, { signal });

/**
 * `GET /queue?status=…`: approved or rejected items, newest decision first.
 * @param {string} search
 * @param {AbortSignal} signal
 * @returns {Promise<PendingPage>}
 */
export const getQueueByStatus = (search, signal) => api(`/queue${search}`, { signal });

/**
 * `POST /queue/:id/approve` or `/reject`: the item as decided.
 * @param {string} id
 * @param {Decision} decision
 * @returns {Promise<OneQueueItem>}
 */
export const decideQueueItem = (id, decision) => api(`/queue/${segment(id)}/${decision}`, { method: 'POST' });

/**
 * `POST /queue/:id/reject` with the reason the requester reads (a household request is declined this way).
 * @param {string} id
 * @param {string} reason
 * @returns {Promise<OneQueueItem>}
 */
export const declineQueueItem = (id, reason) =>
  api(`/queue/${segment(id)}/reject`, { method: 'POST', body: reason ? { reason } : undefined });

/**
 * `POST /queue/approve` or `/reject` for several items at once.
 * @param {Decision} decision
 * @param {BulkSelection} selection
 * @returns {Promise<BulkResult>}
 */
export const decideQueueItems = (decision, selection) => api(`/queue/${decision}`, { method: 'POST', body: selection });

/**
 * `POST /queue/:id/restore`: a rejected item back to pending.
 * @param {string} id
 * @returns {Promise<OneQueueItem>}
 */
export const restoreQueueItem = (id) => api(`/queue/${segment(id)}/restore`, { method: 'POST' });

/**
 * `GET /wishlist` with a query string from `query()`.
 * @param {string} search
 * @param {AbortSignal} signal
 * @returns {Promise<WishlistPage>}
 */
export const getWishlist = (search, signal) => api(`/wishlist${search}`, { signal });

/**
 * `DELETE /wishlist/:id` (also cancels its download).
 * @param {string} id
 * @returns {Promise<undefined>}
 */
export const removeWishlistItem = (id) => api(`/wishlist/${segment(id)}`, { method: 'DELETE' });

/**
 * `GET /downloads` with a query string from `query()`.
 * @param {string} search
 * @param {AbortSignal} signal
 * @returns {Promise<DownloadPage>}
 */
export const getDownloads = (search, signal) => api(`/downloads${search}`, { signal });

/**
 * `POST /downloads/:id/retry`. The page reloads its list afterwards, so the answer is not read.
 * @param {string} id
 * @returns {Promise<unknown>}
 */
export const retryDownload = (id) => api(`/downloads/${segment(id)}/retry`, { method: 'POST' });

/**
 * `GET /library` with a query string from `query()`.
 * @param {string} search
 * @param {AbortSignal} signal
 * @returns {Promise<LibraryPage>}
 */
export const getLibrary = (search, signal) => api(`/library${search}`, { signal });

/**
 * `POST /library/sync`: the sync job started, or the one already running.
 * @returns {Promise<SyncStarted>}
 */
export const startLibrarySync = () => api('/library/sync', { method: 'POST' });

/**
 * `GET /jobs/:id`.
 * @param {string} id
 * @returns {Promise<Job>}
 */
export const getJob = (id) => api(`/jobs/${segment(id)}`);

/**
 * `GET /webhooks`: the configured webhooks, without secrets.
 * @param {AbortSignal} signal
 * @returns {Promise<WebhookTargetList>}
 */
export const getWebhooks = (signal) => api('/webhooks', { signal });

/**
 * `POST /webhooks/test`: one sample delivery, or with `dry_run` what it would send.
 * @param {WebhookTestRequest} request
 * @returns {Promise<WebhookTestResult>}
 */
export const testWebhook = (request) => api('/webhooks/test', { method: 'POST', body: request });

/**
 * `GET /webhooks/deliveries` with a query string from `query()`.
 * @param {string} search
 * @param {AbortSignal} signal
 * @returns {Promise<WebhookDeliveryPage>}
 */
export const getWebhookDeliveries = (search, signal) => api(`/webhooks/deliveries${search}`, { signal });

/**
 * `POST /webhooks/deliveries/:id/redeliver`. The log reloads afterwards, so the answer is not read.
 * @param {string} id
 * @returns {Promise<unknown>}
 */
export const redeliverWebhook = (id) => api(`/webhooks/deliveries/${segment(id)}/redeliver`, { method: 'POST' });

/**
 * `GET /search?q=`: release groups on MusicBrainz, flagged in library, queued, wishlisted or rejected.
 * @param {string} q
 * @param {AbortSignal} signal
 * @returns {Promise<SearchResults>}
 */
export const searchReleaseGroups = (q, signal) => api(`/search?q=${segment(q)}`, { signal });

/**
 * `POST /queue` with a MusicBrainz release group id alone: the server fills in the rest.
 * @param {string} mbid
 * @returns {Promise<QueueAddResult>}
 */
export const proposeByMbid = (mbid) => api('/queue', { method: 'POST', body: { mbid } });

/**
 * `POST /queue` by someone who may request but not decide: a request, approved at once when the household's
 * auto-approve and quota allow it, else waiting for an admin. `note` is for the admin.
 * @param {string} mbid
 * @param {string} note
 * @returns {Promise<QueueAddResult>}
 */
export const requestByMbid = (mbid, note) => api('/queue', { method: 'POST', body: note ? { mbid, note } : { mbid } });

/**
 * `GET /requests` with a query string from `query()` (`user`, `status`, paging): a requester's own, or everyone's.
 * @param {string} search
 * @param {AbortSignal} signal
 * @returns {Promise<RequestPage>}
 */
export const getRequests = (search, signal) => api(`/requests${search}`, { signal });

/**
 * `POST /requests/:id/cancel`: only while it is requested or approved (then 409).
 * @param {string} id
 * @returns {Promise<RequestCancelled>}
 */
export const cancelRequest = (id) => api(`/requests/${segment(id)}/cancel`, { method: 'POST' });

/**
 * `GET /users`: the accounts and profiles of the household.
 * @param {AbortSignal} signal
 * @returns {Promise<UserList>}
 */
export const getUsers = (signal) => api('/users', { signal });

/**
 * `POST /users`: a local account (with a password) or a profile for a proxy user.
 * @param {UserCreate} user
 * @returns {Promise<User>}
 */
export const createUser = (user) => api('/users', { method: 'POST', body: user });

/**
 * `PATCH /users/:name`: the members given change, `null` clears an override.
 * @param {string} name
 * @param {UserChange} change
 * @returns {Promise<User>}
 */
export const changeUser = (name, change) => api(`/users/${segment(name)}`, { method: 'PATCH', body: change });

/**
 * `DELETE /users/:name` (its stored API keys go too).
 * @param {string} name
 * @returns {Promise<undefined>}
 */
export const deleteUser = (name) => api(`/users/${segment(name)}`, { method: 'DELETE' });

/**
 * `GET /api-keys`: every key, from config and stored, without secrets.
 * @param {AbortSignal} signal
 * @returns {Promise<ApiKeyList>}
 */
export const getApiKeys = (signal) => api('/api-keys', { signal });

/**
 * `POST /api-keys`: the answer holds the secret, which is never shown again.
 * @param {ApiKeyCreate} key
 * @returns {Promise<ApiKeyCreated>}
 */
export const createApiKey = (key) => api('/api-keys', { method: 'POST', body: key });

/**
 * `DELETE /api-keys/:id` (a key from config.yaml answers 409).
 * @param {string} id
 * @returns {Promise<undefined>}
 */
export const deleteApiKey = (id) => api(`/api-keys/${segment(id)}`, { method: 'DELETE' });

/**
 * `POST /wishlist` with a MusicBrainz release group id alone: wanted at once, without a decision in the queue.
 * @param {string} mbid
 * @returns {Promise<WishlistItem>}
 */
export const wishByMbid = (mbid) => api('/wishlist', { method: 'POST', body: { mbid } });

/**
 * `GET /sources`: the configured discovery sources and their runs.
 * @param {AbortSignal} signal
 * @returns {Promise<SourceList>}
 */
export const getSources = (signal) => api('/sources', { signal });

/**
 * `POST /sources/:name/run`: starts a run now.
 * @param {string} name
 * @returns {Promise<SourceRunStarted>}
 */
export const runSource = (name) => api(`/sources/${segment(name)}/run`, { method: 'POST' });

/**
 * `GET /previews` with a query string from `query()` (`mbid`, or `artist` and `album`).
 * @param {string} search
 * @param {AbortSignal} signal
 * @returns {Promise<Previews>}
 */
export const getPreviews = (search, signal) => api(`/previews${search}`, { signal });

/**
 * `GET /release-groups/:mbid`: facts, tracks and research links of an album.
 * @param {string} mbid
 * @param {AbortSignal} signal
 * @returns {Promise<ReleaseGroupDetail>}
 */
export const getReleaseGroup = (mbid, signal) => api(`/release-groups/${segment(mbid)}`, { signal });
