// Decided queue items (rejected or approved), newest decision first, read from the server's history; a rejected
// item can be restored to the pending queue.
import { useState } from 'preact/hooks';
import { html } from '../html.js';
import { query } from '../api.js';
import { getQueueByStatus, restoreQueueItem } from '../endpoints.js';
import { setParams } from '../router.js';
import { useDebounced, useResource } from '../hooks.js';
import { useLiveEvents } from '../live.js';
import { formatAgo, formatCount, formatTime, releaseName } from '../format.js';
import { Badge } from '../components/badge.js';
import { ErrorNotice, errorText, toast } from '../components/notice.js';
import { Pager } from '../components/pager.js';

/** @typedef {import('../../../api-types.js').QueueItem} QueueItem */

/**
 * Puts rejected items back into the pending queue; used by the Restore buttons and the Undo of a rejection.
 * @param {QueueItem[]} items
 */
export async function restoreItems(items) {
  const results = await Promise.allSettled(items.map((item) => restoreQueueItem(item.id)));
  const failure = results.find((r) => r.status === 'rejected');
  if (failure) toast(errorText(failure.reason), 'error');
  else toast(items.length === 1 && items[0] ? `Restored ${releaseName(items[0])} to the queue` : `Restored ${items.length} items to the queue`);
}

/**
 * @typedef {object} DecidedQueueProps
 * @property {Exclude<QueueItem['status'], 'pending'>} status
 * @property {import('../app.js').Session} session
 * @property {import('./queue.js').QueueView} view
 */

/** @param {DecidedQueueProps} props */
export function DecidedQueue({ status, session, view }) {
  const key = query({ status, limit: view.limit, offset: view.offset });
  const decided = useResource((signal) => getQueueByStatus(key, signal), key);
  const refresh = useDebounced(decided.reload, 400);
  useLiveEvents(['queue_added', 'queue_approved', 'queue_rejected'], refresh);
  const [busy, setBusy] = useState(false);
  const canRestore = status === 'rejected' && session.may('decide');
  const data = decided.data;

  /** @param {QueueItem} item */
  async function restore(item) {
    setBusy(true);
    try {
      await restoreItems([item]);
    } finally {
      setBusy(false);
      decided.reload();
    }
  }

  return html`<div>
    <p class="muted" data-testid="decided-total">${data ? `${formatCount(data.total)} ${status}, newest decision first` : ''}</p>
    <${ErrorNotice} error=${decided.error} onRetry=${decided.reload} />
    <table class="table" aria-busy=${decided.loading ? 'true' : 'false'} aria-label=${`${status} items`}>
      <thead><tr><th>Release</th><th class="col-source">Source</th><th>Decided</th>${canRestore ? html`<th><span class="visually-hidden">Actions</span></th>` : null}</tr></thead>
      <tbody>
        ${(data ? data.items : []).map((item) => html`<tr key=${item.id} data-id=${item.id}>
          <td class="col-release">
            <span class="release-artist">${item.artist}</span>
            <span class="release-work">${item.album || item.title || ''}${item.type === 'track' ? html` <span class="muted">(track)</span>` : null}</span>
            ${item.in_library ? html`<${Badge} state="downloaded" label="in library: not downloaded again" />` : null}
          </td>
          <td class="col-source">${item.source}</td>
          <td><time datetime=${item.decided_at} title=${formatTime(item.decided_at)}>${formatAgo(item.decided_at)}</time>${item.decided_by ? html` <span class="muted">by ${item.decided_by}</span>` : null}${item.decided_via ? html` <span class="muted">(${item.decided_via})</span>` : null}</td>
          ${canRestore ? html`<td class="col-actions"><button type="button" class="btn btn-small" disabled=${busy}
            aria-label=${`Restore ${releaseName(item)}`} onClick=${() => restore(item)}>Restore</button></td>` : null}
        </tr>`)}
      </tbody>
    </table>
    ${data && data.items.length === 0 && !decided.loading ? html`<p class="empty">Nothing ${status} yet.</p>` : null}
    ${data ? html`<${Pager} total=${data.total} limit=${data.limit} offset=${data.offset} onPage=${(/** @type {number} */ offset) => setParams({ offset: offset || undefined })} label=${`${status} pages`} />` : null}
  </div>`;
}
