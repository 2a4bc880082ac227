// My requests: the albums a household member asked for, each on its way from "requested" to "in library" (or what
// stopped it, with the admin's reason for a decline), their note, and Cancel while it waits for an admin.
// Requesters have no event stream, so the page asks again every few seconds while it is visible.
import { useState } from 'preact/hooks';
import { html } from '../html.js';
import { RequestRelease } from '../components/request-release.js';
import { ApiError, query } from '../api.js';
import { cancelRequest, getRequests } from '../endpoints.js';
import { setParams } from '../router.js';
import { useInterval, useResource } from '../hooks.js';
import { formatAgo, formatCount, formatTime, releaseName } from '../format.js';
import { ErrorNotice, errorText, toast } from '../components/notice.js';
import { Pager } from '../components/pager.js';
import { CoverArt } from '../components/cover-art.js';
import { AddButton } from '../components/add-dialog.js';
import { isCancellable, RequestPath } from '../components/request-path.js';

/** @typedef {import('../../../api-types.js').RequestItem} RequestItem */

const LIMIT = 50;
const POLL_MS = 10_000;

/** @param {import('../app.js').PageProps} props */
export function MyRequestsPage({ session, params }) {
  const offset = Math.max(0, Number(params.get('offset')) || 0);
  // Someone who may read sees everyone's requests on this route; this page is about their own.
  const user = session.may('read') ? session.info.user?.name : undefined;
  const key = query({ user, limit: LIMIT, offset });
  const list = useResource((signal) => getRequests(key, signal), key);
  useInterval(list.reload, POLL_MS, true);
  const [busy, setBusy] = useState('');

  /** @param {RequestItem} item */
  async function cancel(item) {
    setBusy(item.id);
    try {
      await cancelRequest(item.id);
      toast(`Cancelled your request for ${releaseName(item)}`);
    } catch (err) {
      toast(err instanceof ApiError && err.status === 409 ? `${releaseName(item)} can no longer be cancelled: an admin has decided it` : errorText(err), 'error');
    } finally {
      setBusy('');
      list.reload();
    }
  }

  const data = list.data;
  return html`<section aria-labelledby="my-requests-title">
    <div class="page-head">
      <h1 id="my-requests-title">My requests ${data ? html`<span class="muted count-inline" data-testid="my-requests-total">${formatCount(data.total)}</span>` : null}</h1>
      <${AddButton} label="Request an album" requesting=${!session.may('decide')} onAdded=${list.reload} />
    </div>
    <${ErrorNotice} error=${list.error} onRetry=${list.reload} />
    <ul class="request-list" aria-busy=${list.loading ? 'true' : 'false'} aria-labelledby="my-requests-title">
      ${data && data.items.map((item) => html`<${MyRequest} key=${item.id} item=${item} busy=${busy === item.id} onCancel=${cancel} />`)}
    </ul>
    ${data && data.items.length === 0 && !list.loading
      ? html`<p class="empty">You have not asked for an album yet. Use "Request an album" to search MusicBrainz; an admin decides, and you can follow it here.</p>`
      : null}
    ${data ? html`<${Pager} total=${data.total} limit=${data.limit} offset=${data.offset} onPage=${(/** @type {number} */ o) => setParams({ offset: o || undefined }, { replace: false })} label="Request pages" />` : null}
  </section>`;
}

/** @param {{ item: RequestItem, busy: boolean, onCancel: (item: RequestItem) => void }} props */
function MyRequest({ item, busy, onCancel }) {
  const name = releaseName(item);
  // The sentence often names the reason already ("Declined by alice: …"); then it is not repeated.
  const reason = item.decline_reason && !item.status_text.includes(item.decline_reason) ? item.decline_reason : '';
  return html`<li class="card request" data-id=${item.id} data-status=${item.status}>
    <${CoverArt} item=${item} className="cover request-cover" />
    <div class="request-body">
      <${RequestRelease} item=${item} />
      <${RequestPath} item=${item} />
      <p class="request-status" data-testid="request-status">${item.status_text}</p>
      ${item.status === 'downloading' && item.progress !== undefined ? html`<div class="progress-row">
        <progress max="1" value=${item.progress} aria-label=${`Progress of ${name}`}>${Math.round(item.progress * 100)}%</progress>
        <span class="muted">${Math.round(item.progress * 100)}%</span></div>` : null}
      ${reason ? html`<p class="request-reason"><span class="muted">Reason:</span> ${reason}</p>` : null}
      ${item.error && item.status === 'failed' ? html`<p class="error-text">${item.error}</p>` : null}
      ${item.note ? html`<p class="request-note"><span class="muted">Your note:</span> ${item.note}</p>` : null}
      <div class="request-foot">
        <span class="muted">Requested <time datetime=${item.requested_at} title=${formatTime(item.requested_at)}>${formatAgo(item.requested_at)}</time></span>
        ${isCancellable(item) ? html`<button type="button" class="btn btn-small btn-reject" disabled=${busy}
          aria-label=${`Cancel the request for ${name}`} onClick=${() => onCancel(item)}>${busy ? 'Cancelling…' : 'Cancel request'}</button>` : null}
      </div>
    </div>
  </li>`;
}
