// The library: the albums known from the last sync, searched and paged on the server, with a button to sync again.
import { html } from '../html.js';
import { query } from '../api.js';
import { getLibrary } from '../endpoints.js';
import { setParams } from '../router.js';
import { useDebounced, useResource } from '../hooks.js';
import { useLiveEvents } from '../live.js';
import { formatAgo, formatCount, formatTime } from '../format.js';
import { ErrorNotice } from '../components/notice.js';
import { Pager } from '../components/pager.js';
import { SearchBox } from '../components/search-box.js';
import { SyncButton } from '../components/sync-button.js';

const LIMIT = 50;
// A plain link: the CSP governs what the page loads, not where links lead. Referrer-Policy: same-origin already keeps
// our URLs from MusicBrainz, and rel=noopener keeps the new tab from reaching back into this window.
const MUSICBRAINZ_RELEASE = 'https://musicbrainz.org/release/';

/** @param {import('../app.js').PageProps} props */
export function LibraryPage({ session, params }) {
  const q = params.get('q') || '';
  const offset = Math.max(0, Math.floor(Number(params.get('offset')) / LIMIT) * LIMIT || 0);
  const key = query({ q, limit: LIMIT, offset });
  const list = useResource((signal) => getLibrary(key, signal), key);
  // No event marks the end of a sync, but a sync that finds wished-for albums removes them from the wishlist,
  // and that one is live: it arrives after the new catalogue is saved. Syncs started here reload on their own.
  useLiveEvents(['wishlist_removed'], useDebounced(list.reload, 400));
  const data = list.data;

  return html`<section aria-labelledby="library-title">
    <div class="page-head">
      <h1 id="library-title">Library ${data ? html`<span class="muted count-inline" data-testid="library-total">${formatCount(data.total)} ${data.total === 1 ? 'album' : 'albums'}</span>` : null}</h1>
      <div class="button-row">
        ${data ? html`<span class="muted" data-testid="library-synced">${data.synced_at
          ? html`Last synced <time datetime=${data.synced_at} title=${formatTime(data.synced_at)}>${formatAgo(data.synced_at)}</time>`
          : 'No library sync has run yet.'}</span>` : null}
        ${session.may('decide') ? html`<${SyncButton} onDone=${list.reload} />` : null}
      </div>
    </div>
    <div class="toolbar" role="search">
      <${SearchBox} label="Search library" placeholder="Search artist or album…" value=${q} onSearch=${(/** @type {string} */ next) => setParams({ q: next, offset: undefined })} />
    </div>
    <${ErrorNotice} error=${list.error} onRetry=${list.reload} />
    <table class="table stack-table" aria-busy=${list.loading ? 'true' : 'false'} aria-describedby="library-title">
      <thead><tr><th>Artist</th><th>Album</th><th class="col-num">Year</th><th>MusicBrainz release</th></tr></thead>
      <tbody>
        ${data && data.items.map((album, index) => html`<tr key=${`${offset + index}:${album.artist}:${album.album}`}>
          <td data-label="Artist"><span class="release-artist">${album.artist}</span></td>
          <td data-label="Album">${album.album}</td>
          <td data-label="Year" class="col-num">${album.year ?? null}</td>
          <td data-label="MusicBrainz">${album.mbid
            ? html`<a href=${MUSICBRAINZ_RELEASE + encodeURIComponent(album.mbid)} target="_blank" rel="noopener noreferrer"><code>${album.mbid}</code></a>`
            : null}</td>
        </tr>`)}
      </tbody>
    </table>
    ${data && data.items.length === 0 && !list.loading ? html`<p class="empty">${emptyText(q, data)}</p>` : null}
    ${data ? html`<${Pager} total=${data.total} limit=${data.limit} offset=${data.offset} onPage=${(/** @type {number} */ o) => setParams({ offset: o || undefined }, { replace: false })} label="Library pages" />` : null}
  </section>`;
}

/**
 * @param {string} q
 * @param {import('../../../api-types.js').LibraryPage} data
 */
function emptyText(q, data) {
  if (q) return 'No albums match this search.';
  if (!data.synced_at) return 'Albums appear here after the first library sync.';
  if (data.total === 0) return 'The last sync found no albums in the library.';
  return 'This page is past the last album.';
}
