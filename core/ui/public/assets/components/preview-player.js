// Listening before deciding: one player for the whole app. Its <audio> element lives in the layout, which stays
// mounted while pages change, so a preview keeps playing across page turns and route changes. Pages start it
// with playAlbum() (a row's play button, the `p` key) and read its state with usePreview().
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from '../html.js';
import { ApiError, isAbort, query } from '../api.js';
import { getPreviews } from '../endpoints.js';
import { errorText } from './notice.js';

/** @typedef {import('../../../api-types.js').PreviewTrack} PreviewTrack */

/**
 * The album a preview is asked for: a queue or wishlist item, or a search result.
 * @typedef {object} PreviewAlbum
 * @property {string} artist
 * @property {string} [album]
 * @property {string} [title]
 * @property {string} [mbid]
 */

/**
 * @typedef {'idle' | 'loading' | 'playing' | 'paused' | 'none' | 'unavailable' | 'error'} PreviewStatus
 */

/**
 * @typedef {object} PreviewState
 * @property {string | null} key which album is loaded (see albumKey)
 * @property {string} name "Artist — Album", for labels
 * @property {PreviewTrack[]} tracks
 * @property {number} index the track playing or paused
 * @property {PreviewStatus} status
 * @property {string} message why nothing plays (no preview, provider unavailable, an error)
 * @property {number} time seconds into the track
 * @property {number} duration seconds, 0 until known
 */

/** @type {PreviewState} */
let state = { key: null, name: '', tracks: [], index: 0, status: 'idle', message: '', time: 0, duration: 0 };
/** @type {Set<(s: PreviewState) => void>} */
const listeners = new Set();
/** @type {HTMLAudioElement | null} */
let audio = null;
/** @type {AbortController | null} */
let loading = null;

/** @param {Partial<PreviewState>} change */
function update(change) {
  state = { ...state, ...change };
  for (const listener of listeners) listener(state);
}

/**
 * One album, one key: the release group when known, else its names.
 * @param {PreviewAlbum} album
 */
export const albumKey = (album) => album.mbid || `${album.artist}\u0000${album.album || album.title || ''}`;

/**
 * Plays the album's previews, or pauses and resumes them when it is the one already loaded.
 * @param {PreviewAlbum} album
 * @param {string} name how the album reads in the player
 */
export async function playAlbum(album, name) {
  const key = albumKey(album);
  if (state.key === key && state.tracks.length > 0) return togglePlay();
  if (state.key === key && state.status === 'loading') return undefined;
  if (loading) loading.abort();
  const controller = new AbortController();
  loading = controller;
  if (audio) audio.pause();
  update({ key, name, tracks: [], index: 0, status: 'loading', message: '', time: 0, duration: 0 });
  try {
    const search = album.mbid ? query({ mbid: album.mbid }) : query({ artist: album.artist, album: album.album || album.title });
    const { tracks } = await getPreviews(search, controller.signal);
    if (loading !== controller) return undefined;
    loading = null;
    if (tracks.length === 0) return update({ status: 'none', message: `No preview found for ${name}` });
    update({ tracks });
    return startTrack(0);
  } catch (err) {
    if (isAbort(err) || loading !== controller) return undefined;
    loading = null;
    if (err instanceof ApiError && err.status === 404) return update({ status: 'none', message: `No preview found for ${name}` });
    if (err instanceof ApiError && err.status === 503) {
      return update({ status: 'unavailable', message: `Previews are unavailable right now: ${errorText(err)}` });
    }
    return update({ status: 'error', message: errorText(err) });
  }
}

/** Pauses or resumes the loaded track; does nothing when no album is loaded. */
export function togglePlay() {
  if (!audio || state.tracks.length === 0) return undefined;
  if (audio.paused) return resume();
  audio.pause();
  return undefined;
}

/** The next track of the album, from the first after the last. */
export function nextTrack() {
  if (state.tracks.length === 0) return undefined;
  return startTrack((state.index + 1) % state.tracks.length);
}

/** Stops and forgets the album (the player's close button). */
export function stopPreview() {
  if (loading) loading.abort();
  loading = null;
  if (audio) {
    audio.pause();
    audio.removeAttribute('src');
    audio.load();
  }
  update({ key: null, name: '', tracks: [], index: 0, status: 'idle', message: '', time: 0, duration: 0 });
}

/** @param {number} index */
function startTrack(index) {
  const track = state.tracks[index];
  if (!audio || !track) return undefined;
  update({ index, status: 'loading', time: 0, duration: track.duration_s ?? 0, message: '' });
  audio.src = track.preview_url;
  return resume();
}

async function resume() {
  if (!audio) return;
  try {
    await audio.play();
  } catch (err) {
    // A newer src or pause() interrupts a pending play(): not an error the person needs to read.
    if (err instanceof DOMException && err.name === 'AbortError') return;
    update({ status: 'error', message: `The preview cannot play: ${errorText(err)}` });
  }
}

/** The player's state, re-rendering the caller on every change. */
export function usePreview() {
  const [current, setCurrent] = useState(state);
  useEffect(() => {
    listeners.add(setCurrent);
    setCurrent(state);
    return () => {
      listeners.delete(setCurrent);
    };
  }, []);
  return current;
}

/**
 * One value derived from the player's state; the caller re-renders only when that value changes (not on every
 * `timeupdate`, which would re-render every row's play button several times a second).
 * @template T
 * @param {(s: PreviewState) => T} select
 * @returns {T}
 */
function usePreviewValue(select) {
  const [value, setValue] = useState(() => select(state));
  const latest = useRef(select);
  latest.current = select;
  useEffect(() => {
    /** @param {PreviewState} s */
    const listener = (s) => setValue(latest.current(s));
    listeners.add(listener);
    listener(state);
    return () => {
      listeners.delete(listener);
    };
  }, []);
  return value;
}

/** @param {number} seconds */
const clock = (seconds) => `${Math.floor(seconds / 60)}:${String(Math.floor(seconds % 60)).padStart(2, '0')}`;

/**
 * A play/pause button for one album, on a queue row or card, in a panel or a search result.
 * @param {{ album: PreviewAlbum, name: string }} props
 */
export function PlayButton({ album, name }) {
  const key = albumKey(album);
  // '' (not this album), 'current' (loaded, paused or silent) or 'playing'
  const mode = usePreviewValue((s) => (s.key !== key ? '' : s.status === 'playing' || s.status === 'loading' ? 'playing' : 'current'));
  const mine = mode !== '';
  const playing = mode === 'playing';
  return html`<button type="button" class=${`btn btn-small btn-play${mine ? ' btn-play-current' : ''}`}
    aria-label=${`${playing ? 'Pause' : 'Play'} preview of ${name}`} aria-pressed=${playing ? 'true' : 'false'}
    onClick=${(/** @type {Event} */ e) => {
      e.stopPropagation();
      playAlbum(album, name);
    }}><span aria-hidden="true">${playing ? '❚❚' : '▶'}</span></button>`;
}

/** The bar at the bottom of every page, and the one <audio> element. Hidden until an album is asked for. */
export function PreviewPlayer() {
  const preview = usePreview();
  const element = useRef(/** @type {HTMLAudioElement | null} */ (null));

  useEffect(() => {
    const el = element.current;
    if (!el) return undefined;
    audio = el;
    const onPlaying = () => update({ status: 'playing' });
    const onPause = () => state.tracks.length > 0 && state.status !== 'loading' && update({ status: 'paused' });
    const onTime = () => update({ time: el.currentTime, duration: Number.isFinite(el.duration) ? el.duration : state.duration });
    const onEnded = () => (state.index + 1 < state.tracks.length ? startTrack(state.index + 1) : update({ status: 'paused', time: 0 }));
    const onError = () => el.getAttribute('src') && update({ status: 'error', message: 'The preview could not be loaded from its provider.' });
    el.addEventListener('playing', onPlaying);
    el.addEventListener('pause', onPause);
    el.addEventListener('timeupdate', onTime);
    el.addEventListener('ended', onEnded);
    el.addEventListener('error', onError);
    return () => {
      el.removeEventListener('playing', onPlaying);
      el.removeEventListener('pause', onPause);
      el.removeEventListener('timeupdate', onTime);
      el.removeEventListener('ended', onEnded);
      el.removeEventListener('error', onError);
      el.pause();
      if (audio === el) audio = null;
    };
  }, []);

  const track = preview.tracks[preview.index];
  const playing = preview.status === 'playing';
  const shown = preview.status !== 'idle';
  return html`<div class="preview-player" role="region" aria-label="Preview player" hidden=${!shown}>
    <audio ref=${element} preload="none" data-testid="preview-audio"></audio>
    ${shown ? html`<div class="preview-body">
      <button type="button" class="btn btn-play-main" disabled=${preview.tracks.length === 0}
        aria-label=${playing ? 'Pause preview' : 'Play preview'} onClick=${togglePlay}><span aria-hidden="true">${playing ? '❚❚' : '▶'}</span></button>
      <div class="preview-what">
        <span class="preview-album">${preview.name}</span>
        ${track
          ? html`<span class="preview-track" data-testid="preview-track">${track.position ?? preview.index + 1}. ${track.title}
              <span class="muted"> · ${preview.index + 1}/${preview.tracks.length}</span></span>`
          : null}
        ${preview.status === 'loading' && !track ? html`<span class="preview-state" role="status">Looking for previews…</span>` : null}
        ${preview.message ? html`<span class=${`preview-state preview-${preview.status}`} role="status">${preview.message}</span>` : null}
      </div>
      ${track ? html`<div class="preview-progress">
        <progress max=${preview.duration || 30} value=${preview.time} aria-label="Preview progress"></progress>
        <span class="preview-time muted">${clock(preview.time)} / ${clock(preview.duration || 30)}</span>
      </div>` : null}
      <button type="button" class="btn btn-small" disabled=${preview.tracks.length < 2} onClick=${nextTrack} aria-label="Next track">Next ›</button>
      <button type="button" class="btn btn-small btn-ghost" onClick=${stopPreview} aria-label="Close the preview player">✕</button>
    </div>` : null}
  </div>`;
}
