// Downloads: state, progress of active ones (refreshed while any is active), errors with retry, paths.
import { html } from '../html.js';
import { query } from '../api.js';
import { getDownloads, retryDownload } from '../endpoints.js';
import { setParams } from '../router.js';
import { useDebounced, useInterval, useResource } from '../hooks.js';
import { useLiveEvents } from '../live.js';
import { formatAgo, formatCount, formatTime, releaseName } from '../format.js';
import { Badge } from '../components/badge.js';
import { ErrorNotice, errorText, toast } from '../components/notice.js';
import { Pager } from '../components/pager.js';
import { StatusFilter } from '../components/status-filter.js';

/** @typedef {import('../../../api-types.js').Download} Download */

/** @type {Download['state'][]} */
const STATES = ['queued', 'searching', 'downloading', 'completed', 'failed'];
/** @type {ReadonlySet<Download['state']>} */
const ACTIVE = new Set(['queued', 'searching', 'downloading']);
const LIMIT = 50;
// Progress is not an event: while something is active the page asks again at this pace.
const ACTIVE_POLL_MS = 2000;

/** @param {import('../app.js').PageProps} props */
export function DownloadsPage({ session, params }) {
  const status = STATES.find((s) => s === params.get('status')) ?? '';
  const offset = Math.max(0, Number(params.get('offset')) || 0);
  const key = query({ status, limit: LIMIT, offset });
  const list = useResource((signal) => getDownloads(key, signal), key);
  useLiveEvents(['queue_approved', 'download_completed', 'wishlist_removed'], useDebounced(list.reload, 400));
  const data = list.data;
  const anyActive = Boolean(data && data.items.some((d) => ACTIVE.has(d.state)));
  useInterval(list.reload, ACTIVE_POLL_MS, anyActive);
  const canRetry = session.may('decide');

  /** @param {Download} download */
  async function retry(download) {
    try {
      await retryDownload(download.id);
      toast(`Retrying ${releaseName(download)}`);
    } catch (err) {
      toast(errorText(err), 'error');
    }
    list.reload();
  }

  return html`<section aria-labelledby="downloads-title">
    <div class="page-head">
      <h1 id="downloads-title">Downloads ${data ? html`<span class="muted count-inline">${formatCount(data.total)}</span>` : null}</h1>
      <${StatusFilter} label="Show state" statuses=${STATES} value=${status} onChange=${(/** @type {string} */ s) => setParams({ status: s, offset: undefined })} />
    </div>
    <${ErrorNotice} error=${list.error} onRetry=${list.reload} />
    <ul class="download-list" aria-busy=${list.loading ? 'true' : 'false'}>
      ${data && data.items.map((d) => html`<li key=${d.id} class="card download">
        <div class="download-head">
          <span><span class="release-artist">${d.artist}</span> <span class="release-work">${d.album || ''}</span></span>
          <${Badge} state=${d.state} />
        </div>
        ${ACTIVE.has(d.state) || d.state === 'completed' ? html`<div class="progress-row">
          <progress max="1" value=${d.progress} aria-label=${`Progress of ${releaseName(d)}`}>${Math.round(d.progress * 100)}%</progress>
          <span class="muted">${Math.round(d.progress * 100)}%</span></div>` : null}
        ${d.error ? html`<p class="error-text">${d.error}</p>` : null}
        <div class="download-foot">
          <span class="muted">${d.client} · updated <time datetime=${d.updated_at} title=${formatTime(d.updated_at)}>${formatAgo(d.updated_at)}</time>${d.attempts > 1 ? ` · ${d.attempts} attempts` : ''}</span>
          ${d.download_path ? html`<code class="path">${d.download_path}</code>` : null}
          ${d.state === 'failed' && canRetry ? html`<button type="button" class="btn btn-small" aria-label=${`Retry ${releaseName(d)}`} onClick=${() => retry(d)}>Retry</button>` : null}
        </div>
      </li>`)}
    </ul>
    ${data && data.items.length === 0 ? html`<p class="empty">${status ? `No ${status} downloads.` : 'No downloads yet. Approved items start downloading within a poll interval.'}</p>` : null}
    ${data ? html`<${Pager} total=${data.total} limit=${data.limit} offset=${data.offset} onPage=${(/** @type {number} */ o) => setParams({ offset: o || undefined }, { replace: false })} label="Download pages" />` : null}
  </section>`;
}
