// The album panel: everything needed to decide on one album — cover, facts, why it is proposed (in full), its
// tracks from MusicBrainz, a preview, links to read more, and approve or reject.
import { html } from '../html.js';
import { getReleaseGroup } from '../endpoints.js';
import { useResource } from '../hooks.js';
import { ErrorNotice } from './notice.js';
import { CoverImage } from './cover-image.js';
import { useModal } from './modal.js';
import { PlayButton } from './preview-player.js';

/** @typedef {import('../../../api-types.js').QueueItem} QueueItem */
/** @typedef {import('../../../api-types.js').ReleaseGroupDetail} ReleaseGroupDetail */
/** @typedef {NonNullable<QueueItem['reasons']>[number]} Reason */
/** @typedef {NonNullable<Reason['refs']>[number]} ReasonRef */

/**
 * What the panel shows: a queue item, or a wishlist item (which has no reasons, cover or source).
 * @typedef {object} PanelAlbum
 * @property {string} artist
 * @property {string} [album]
 * @property {string} [title]
 * @property {string} [mbid]
 * @property {number} [year]
 * @property {string} [type]
 * @property {string} [cover_url]
 * @property {string} [source]
 * @property {QueueItem['reasons']} [reasons]
 */

/**
 * Decisions the panel offers (queue items only); each closes the panel.
 * @typedef {object} PanelDecisions
 * @property {() => void} approve
 * @property {() => void} reject
 */

/**
 * Where a reason's reference is described: MusicBrainz for artists, albums and recordings, ListenBrainz for users.
 * @param {ReasonRef} ref
 * @returns {string | null}
 */
export function refUrl(ref) {
  if (ref.type === 'user') return `https://listenbrainz.org/user/${encodeURIComponent(ref.name)}`;
  if (!ref.mbid) return null;
  return `https://musicbrainz.org/${ref.type}/${encodeURIComponent(ref.mbid)}`;
}

/**
 * Search pages for an album not (yet) matched on MusicBrainz; the server's links replace them once it is.
 * @param {PanelAlbum} album
 * @returns {ReleaseGroupDetail['links']}
 */
function searchLinks(album) {
  const work = album.album || album.title || '';
  const both = encodeURIComponent(`${album.artist} ${work}`.trim());
  const lastfmPart = (/** @type {string} */ s) => encodeURIComponent(s).replace(/%20/g, '+');
  return {
    musicbrainz: `https://musicbrainz.org/search?type=release_group&query=${both}`,
    listenbrainz: `https://listenbrainz.org/search/?search_type=artist&search_term=${encodeURIComponent(album.artist)}`,
    lastfm: `https://www.last.fm/music/${lastfmPart(album.artist)}${work ? `/${lastfmPart(work)}` : ''}`,
    bandcamp_search: `https://bandcamp.com/search?q=${both}`,
  };
}

/** @param {string | undefined} url */
function bigCover(url) {
  if (!url) return undefined;
  // Crateflow's own covers come in two sizes; any other URL is shown as it is.
  return url.startsWith('/api/v1/covers/') ? `${url.split('?')[0]}?size=500&missing=empty` : url;
}

/** @param {number | undefined} seconds */
const length = (seconds) => (seconds === undefined ? '' : `${Math.floor(seconds / 60)}:${String(Math.round(seconds % 60)).padStart(2, '0')}`);

/**
 * @param {{ album: PanelAlbum, onClose: () => void, decisions?: PanelDecisions, busy?: boolean }} props
 */
export function AlbumPanel({ album, onClose, decisions, busy = false }) {
  const dialog = useModal(onClose);
  const mbid = album.mbid || '';
  const detail = useResource((signal) => (mbid ? getReleaseGroup(mbid, signal) : Promise.resolve(undefined)), mbid);
  const info = detail.data;
  const work = album.album || album.title || info?.title || '';
  const name = `${album.artist} — ${work}`;
  const types = info ? [info.primary_type, ...info.secondary_types].filter(Boolean).join(' + ') : album.type || '';
  const links = info ? info.links : searchLinks(album);
  const reasons = album.reasons ?? [];

  return html`<dialog ref=${dialog} class="modal album-panel" aria-labelledby="album-panel-title">
    <div class="modal-head">
      <h2 id="album-panel-title"><span class="release-artist">${album.artist}</span> <span class="release-work">${work}</span></h2>
      <button type="button" class="btn btn-small btn-ghost" aria-label="Close" onClick=${onClose}>✕</button>
    </div>
    <div class="album-panel-body">
      <div class="album-panel-side">
        <${CoverImage} url=${bigCover(album.cover_url)} name=${album.artist} size=${500} />
        <dl class="facts album-facts">
          ${album.year ?? info?.year ? html`<div><dt>Year</dt><dd>${album.year ?? info?.year}</dd></div>` : null}
          ${types ? html`<div><dt>Type</dt><dd>${types}</dd></div>` : null}
          ${album.source ? html`<div><dt>Source</dt><dd>${album.source}</dd></div>` : null}
        </dl>
        <div class="button-row">
          <${PlayButton} album=${album} name=${name} />
          ${decisions ? html`
            <button type="button" class="btn btn-approve" disabled=${busy} onClick=${decisions.approve}>Approve</button>
            <button type="button" class="btn btn-reject" disabled=${busy} onClick=${decisions.reject}>Reject</button>` : null}
        </div>
      </div>
      <div class="album-panel-main">
        ${reasons.length > 0 ? html`<section aria-labelledby="album-reasons">
          <h3 id="album-reasons">Why it is proposed</h3>
          <ul class="plain-list album-reasons">
            ${reasons.map((reason, i) => html`<li key=${i}><span class="chip">${reason.kind}</span> ${reason.text}
              ${reason.refs && reason.refs.length > 0 ? html`<span class="album-refs">${reason.refs.map((ref, j) => {
                const url = refUrl(ref);
                return html`${j > 0 ? ', ' : ' — '}${url
                  ? html`<a key=${j} href=${url} target="_blank" rel="noopener noreferrer">${ref.name}</a>`
                  : html`<span key=${j}>${ref.name}</span>`}`;
              })}</span>` : null}</li>`)}
          </ul>
        </section>` : null}
        <section aria-labelledby="album-tracks" aria-busy=${detail.loading && mbid ? 'true' : 'false'}>
          <h3 id="album-tracks">Tracks</h3>
          ${!mbid ? html`<p class="muted">The tracks are shown once the album is matched on MusicBrainz.</p>`
            : detail.error ? html`<${ErrorNotice} error=${detail.error} onRetry=${detail.reload} />`
            : !info ? html`<p class="muted" role="status">Loading tracks…</p>`
            : info.tracks.length === 0 ? html`<p class="muted">MusicBrainz lists no tracks for this album.</p>`
            : html`<ol class="album-tracks" aria-label="Tracks">${info.tracks.map((t) => html`<li key=${t.position} value=${t.position}>
                <span>${t.title}</span><span class="muted">${length(t.length_s)}</span></li>`)}</ol>`}
        </section>
        <section aria-labelledby="album-links">
          <h3 id="album-links">Read more</h3>
          <ul class="plain-list album-links">
            <li><a href=${links.musicbrainz} target="_blank" rel="noopener noreferrer">MusicBrainz</a></li>
            <li><a href=${links.listenbrainz} target="_blank" rel="noopener noreferrer">ListenBrainz</a></li>
            <li><a href=${links.lastfm} target="_blank" rel="noopener noreferrer">Last.fm</a></li>
            <li><a href=${links.bandcamp_search} target="_blank" rel="noopener noreferrer">Bandcamp search</a></li>
          </ul>
        </section>
      </div>
    </div>
  </dialog>`;
}
