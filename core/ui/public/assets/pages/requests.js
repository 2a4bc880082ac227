// Requests: what the household asked for. Those waiting for a decision come first, each with who asked and their
// note, Approve and Decline (a decline carries a reason the requester reads); below, the history of the others.
// Filtered by user through the URL (`?user=`), like every page's state.
import { useEffect, useState } from 'preact/hooks';
import { html } from '../html.js';
import { RequestRelease } from '../components/request-release.js';
import { ApiError, query } from '../api.js';
import { declineQueueItem, decideQueueItem, getRequests, getUsers } from '../endpoints.js';
import { setParams } from '../router.js';
import { useDebounced, useResource } from '../hooks.js';
import { useLiveEvents } from '../live.js';
import { formatAgo, formatCount, formatTime, releaseName } from '../format.js';
import { Badge } from '../components/badge.js';
import { ErrorNotice, errorText, toast } from '../components/notice.js';
import { Pager } from '../components/pager.js';
import { CoverArt } from '../components/cover-art.js';
import { REQUEST_STATUS_LABELS } from '../components/request-path.js';
import { DeclineForm } from './requests-decline.js';

/** @typedef {import('../../../api-types.js').RequestItem} RequestItem */
/** @typedef {RequestItem['status']} RequestStatus */

const LIMIT = 25;
/** @type {RequestStatus[]} */
const HISTORY_STATUSES = ['approved', 'searching', 'downloading', 'downloaded', 'in_library', 'declined', 'failed', 'cancelled', 'removed'];

/** @param {import('../app.js').PageProps} props */
export function RequestsPage({ session, params }) {
  const user = params.get('user') || '';
  const offset = Math.max(0, Number(params.get('offset')) || 0);
  const key = query({ status: 'requested', user, limit: LIMIT, offset });
  const pending = useResource((signal) => getRequests(key, signal), key);
  const [seen, setSeen] = useState(/** @type {ReadonlySet<string>} */ (new Set()));
  const names = useResource((signal) => (session.may('admin') ? getUsers(signal).then((list) => list.items.map((u) => u.name)) : Promise.resolve([])), 'user-names');
  useLiveEvents(null, useDebounced(pending.reload, 400));

  const data = pending.data;
  // The filter offers every user known here: the household's accounts for an admin, and whoever asked for something.
  useEffect(() => {
    if (data) setSeen((old) => new Set([...old, ...data.items.map((i) => i.requested_by)]));
  }, [data]);
  const users = [...new Set([...(names.data ?? []), ...seen, ...(user ? [user] : [])])].sort((a, b) => a.localeCompare(b));

  return html`<section aria-labelledby="requests-title">
    <div class="page-head">
      <h1 id="requests-title">Requests ${data ? html`<span class="muted count-inline" data-testid="requests-waiting">${formatCount(data.total)} waiting</span>` : null}</h1>
      <label class="field">User
        <select value=${user} onChange=${(/** @type {import('preact').TargetedEvent<HTMLSelectElement>} */ e) => setParams({ user: e.currentTarget.value, offset: undefined, h_offset: undefined })}>
          <option value="">Everyone</option>
          ${users.map((name) => html`<option key=${name} value=${name}>${name}</option>`)}
        </select>
      </label>
    </div>
    ${!session.may('decide') ? html`<p class="notice notice-info">Approving and declining need the approver or admin role; you are signed in as ${session.role}.</p>` : null}
    <h2 id="waiting-title">Waiting for a decision</h2>
    <${ErrorNotice} error=${pending.error} onRetry=${pending.reload} />
    <ul class="request-list" aria-labelledby="waiting-title" aria-busy=${pending.loading ? 'true' : 'false'}>
      ${data && data.items.map((item) => html`<${PendingRequest} key=${item.id} item=${item} canDecide=${session.may('decide')} onDecided=${pending.reload} />`)}
    </ul>
    ${data && data.items.length === 0 && !pending.loading ? html`<p class="empty">${user ? `Nothing from ${user} is waiting.` : 'No request is waiting for a decision.'}</p>` : null}
    ${data ? html`<${Pager} total=${data.total} limit=${data.limit} offset=${data.offset} onPage=${(/** @type {number} */ o) => setParams({ offset: o || undefined })} label="Waiting request pages" />` : null}
    <${RequestHistory} params=${params} user=${user} />
  </section>`;
}

/** @param {{ item: RequestItem, canDecide: boolean, onDecided: () => void }} props */
function PendingRequest({ item, canDecide, onDecided }) {
  const [busy, setBusy] = useState(false);
  const [declining, setDeclining] = useState(false);
  const name = releaseName(item);

  /** @param {string | null} reason null approves, a string (maybe empty) declines */
  async function decide(reason) {
    setBusy(true);
    try {
      if (reason === null) {
        const { item: decided } = await decideQueueItem(item.id, 'approve');
        toast(`Approved ${name}${decided && decided.in_library ? ': already in your library, not downloaded again' : ''}`);
      } else {
        await declineQueueItem(item.id, reason);
        toast(`Declined ${name}; ${item.requested_by} can read why`);
      }
      onDecided();
    } catch (err) {
      toast(err instanceof ApiError && err.status === 409 ? `${name} was already decided or cancelled` : errorText(err), 'error');
      setBusy(false);
      onDecided();
    }
  }

  return html`<li class="card request" data-id=${item.id} data-status=${item.status}>
    <${CoverArt} item=${item} className="cover request-cover" />
    <div class="request-body">
      <${RequestRelease} item=${item} />
      <p class="request-by">Requested by <strong data-testid="requested-by">${item.requested_by}</strong>
        <span class="muted"> · <time datetime=${item.requested_at} title=${formatTime(item.requested_at)}>${formatAgo(item.requested_at)}</time></span></p>
      ${item.note ? html`<p class="request-note"><span class="muted">Note:</span> ${item.note}</p>` : null}
      ${canDecide && !declining ? html`<div class="request-actions">
        <button type="button" class="btn btn-approve" disabled=${busy} aria-label=${`Approve ${name}`} onClick=${() => decide(null)}>Approve</button>
        <button type="button" class="btn btn-reject" disabled=${busy} aria-label=${`Decline ${name}`} aria-expanded="false" onClick=${() => setDeclining(true)}>Decline</button>
      </div>` : null}
      ${canDecide && declining ? html`<${DeclineForm} id=${item.id} name=${name} requester=${item.requested_by} busy=${busy}
        onDecline=${(/** @type {string} */ reason) => decide(reason)} onKeep=${() => setDeclining(false)} />` : null}
    </div>
  </li>`;
}

/** @param {{ params: URLSearchParams, user: string }} props */
function RequestHistory({ params, user }) {
  const status = HISTORY_STATUSES.find((s) => s === params.get('h_status')) ?? '';
  const offset = Math.max(0, Number(params.get('h_offset')) || 0);
  const key = query({ status, user, limit: LIMIT, offset });
  const history = useResource((signal) => getRequests(key, signal), key);
  useLiveEvents(null, useDebounced(history.reload, 400));
  const data = history.data;
  return html`<section class="request-history" aria-labelledby="history-title">
    <div class="page-head">
      <h2 id="history-title">History</h2>
      <label class="field">Status
        <select value=${status} onChange=${(/** @type {import('preact').TargetedEvent<HTMLSelectElement>} */ e) => setParams({ h_status: e.currentTarget.value, h_offset: undefined })}>
          <option value="">All</option>
          ${HISTORY_STATUSES.map((s) => html`<option key=${s} value=${s}>${REQUEST_STATUS_LABELS[s]}</option>`)}
        </select>
      </label>
    </div>
    <${ErrorNotice} error=${history.error} onRetry=${history.reload} />
    <table class="table stack-table" aria-labelledby="history-title" aria-busy=${history.loading ? 'true' : 'false'}>
      <thead><tr><th>Release</th><th>Requested by</th><th>Status</th><th>Note</th></tr></thead>
      <tbody>
        ${data && data.items.map((item) => html`<tr key=${item.id} data-id=${item.id} data-status=${item.status}>
          <td data-label="Release"><span class="release-artist">${item.artist}</span> <span class="release-work">${item.album || item.title || ''}</span></td>
          <td data-label="Requested by">${item.requested_by} <span class="muted">· <time datetime=${item.requested_at} title=${formatTime(item.requested_at)}>${formatAgo(item.requested_at)}</time></span></td>
          <td data-label="Status"><${Badge} state=${item.status} label=${REQUEST_STATUS_LABELS[item.status]} /> <span class="request-status-text">${item.status_text}</span></td>
          <td data-label="Note">${item.note || html`<span class="muted">—</span>`}</td>
        </tr>`)}
      </tbody>
    </table>
    ${data && data.items.length === 0 && !history.loading ? html`<p class="empty">${status ? `No ${REQUEST_STATUS_LABELS[status].toLowerCase()} requests.` : 'No requests yet.'}</p>` : null}
    ${data ? html`<${Pager} total=${data.total} limit=${data.limit} offset=${data.offset} onPage=${(/** @type {number} */ o) => setParams({ h_offset: o || undefined })} label="Request history pages" />` : null}
  </section>`;
}
