// The wishlist: what is wanted, being downloaded, downloaded (with its path) or failed; items can be removed.
import { useState } from 'preact/hooks';
import { html } from '../html.js';
import { query } from '../api.js';
import { getWishlist, removeWishlistItem } from '../endpoints.js';
import { setParams } from '../router.js';
import { useDebounced, useResource } from '../hooks.js';
import { useLiveEvents } from '../live.js';
import { formatAgo, formatCount, formatTime, releaseName } from '../format.js';
import { Badge } from '../components/badge.js';
import { ErrorNotice, errorText, toast } from '../components/notice.js';
import { Pager } from '../components/pager.js';
import { StatusFilter } from '../components/status-filter.js';
import { AddButton } from '../components/add-dialog.js';
import { AlbumPanel } from '../components/album-panel.js';

/** @typedef {import('../../../api-types.js').WishlistItem} WishlistItem */

/** @type {WishlistItem['status'][]} */
const STATUSES = ['wanted', 'downloading', 'downloaded', 'failed'];
const LIMIT = 50;

/** @param {import('../app.js').PageProps} props */
export function WishlistPage({ session, params }) {
  const status = STATUSES.find((s) => s === params.get('status')) ?? '';
  const offset = Math.max(0, Number(params.get('offset')) || 0);
  const key = query({ status, limit: LIMIT, offset });
  const list = useResource((signal) => getWishlist(key, signal), key);
  useLiveEvents(['queue_approved', 'download_completed', 'wishlist_removed'], useDebounced(list.reload, 400));
  const [confirming, setConfirming] = useState(/** @type {string | null} */ (null));
  const [panel, setPanel] = useState(/** @type {WishlistItem | null} */ (null));
  const canEdit = session.may('decide');

  /** @param {WishlistItem} item */
  async function remove(item) {
    setConfirming(null);
    try {
      await removeWishlistItem(item.id);
      toast(`Removed ${releaseName(item)} from the wishlist`);
    } catch (err) {
      toast(errorText(err), 'error');
    }
    list.reload();
  }

  const data = list.data;
  return html`<section aria-labelledby="wishlist-title">
    <div class="page-head">
      <h1 id="wishlist-title">Wishlist ${data ? html`<span class="muted count-inline">${formatCount(data.total)}</span>` : null}</h1>
      <span class="button-row">
        <${StatusFilter} label="Show status" statuses=${STATUSES} value=${status} onChange=${(/** @type {string} */ s) => setParams({ status: s, offset: undefined })} />
        ${canEdit ? html`<${AddButton} onAdded=${list.reload} />` : null}
      </span>
    </div>
    <${ErrorNotice} error=${list.error} onRetry=${list.reload} />
    <table class="table stack-table" aria-busy=${list.loading ? 'true' : 'false'}>
      <thead><tr><th>Release</th><th>Status</th><th>Added</th><th>Download path</th>${canEdit ? html`<th><span class="visually-hidden">Actions</span></th>` : null}</tr></thead>
      <tbody>
        ${data && data.items.map((item) => html`<tr key=${item.id}>
          <td data-label="Release"><button type="button" class="album-open" aria-haspopup="dialog" title="Show details" onClick=${() => setPanel(item)}>
            <span class="release-artist">${item.artist}</span> <span class="release-work">${item.album || item.title || ''}</span></button></td>
          <td data-label="Status"><${Badge} state=${item.download_state || item.status} />${item.not_before ? html` <span class="muted">next try ${formatTime(item.not_before)}</span>` : null}</td>
          <td data-label="Added"><time datetime=${item.added_at} title=${formatTime(item.added_at)}>${formatAgo(item.added_at)}</time></td>
          <td data-label="Download path" class="path">${item.download_path ? html`<code>${item.download_path}</code>` : html`<span class="muted">—</span>`}</td>
          ${canEdit ? html`<td class="actions">${confirming === item.id
            ? html`<button type="button" class="btn btn-small btn-reject" aria-label=${`Confirm removing ${releaseName(item)}`} onClick=${() => remove(item)}>Confirm remove</button>
                   <button type="button" class="btn btn-small btn-ghost" onClick=${() => setConfirming(null)}>Cancel</button>`
            : html`<button type="button" class="btn btn-small" aria-label=${`Remove ${releaseName(item)}`} onClick=${() => setConfirming(item.id)}>Remove</button>`}</td>` : null}
        </tr>`)}
      </tbody>
    </table>
    ${data && data.items.length === 0 ? html`<p class="empty">${status ? `Nothing is ${status}.` : 'The wishlist is empty. Approve items in the queue to add them.'}</p>` : null}
    ${data ? html`<${Pager} total=${data.total} limit=${data.limit} offset=${data.offset} onPage=${(/** @type {number} */ o) => setParams({ offset: o || undefined }, { replace: false })} label="Wishlist pages" />` : null}
    ${panel ? html`<${AlbumPanel} album=${panel} onClose=${() => setPanel(null)} />` : null}
  </section>`;
}
