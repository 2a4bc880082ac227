// An album cover from Crateflow's cover store, sized for the screen's density, with a neutral placeholder
// when there is none (a 404, a failed load): never the browser's broken-image icon.
import { useState } from 'preact/hooks';
import { html } from '../html.js';

const COVERS = '/api/v1/covers/';

/**
 * Where an item's cover is: its own `cover_url`, else the cover store's address for its MusicBrainz id.
 * @param {{ cover_url?: string, mbid?: string }} item
 * @returns {string | undefined}
 */
export function coverUrlOf(item) {
  if (item.cover_url) return item.cover_url;
  return item.mbid ? `${COVERS}${encodeURIComponent(item.mbid)}` : undefined;
}

/**
 * The 250 and 500 px renditions of a cover-store address (the browser picks one by devicePixelRatio); other
 * addresses have one size only.
 * @param {string} url
 * @returns {{ src: string, srcset?: string }}
 */
export function coverSources(url) {
  if (!url.startsWith(COVERS) || url.includes('?')) return { src: url };
  // missing=empty: an album without a cover loads a transparent pixel instead of failing with a 404, which the
  // browser would log as an error for every such card; isEmptyCover() then shows the placeholder.
  return { src: `${url}?size=250&missing=empty`, srcset: `${url}?size=250&missing=empty 1x, ${url}?size=500&missing=empty 2x` };
}

/**
 * Whether a loaded image is the cover store's stand-in for "no cover" (a 1×1 pixel).
 * @param {HTMLImageElement} image
 * @returns {boolean}
 */
export function isEmptyCover(image) {
  return image.naturalWidth === 1 && image.naturalHeight === 1;
}

/**
 * @typedef {object} CoverArtProps
 * @property {{ cover_url?: string, mbid?: string, artist: string }} item
 * @property {string} [className]
 */

/** @param {CoverArtProps} props */
export function CoverArt({ item, className = 'cover-art' }) {
  const url = coverUrlOf(item);
  const [failed, setFailed] = useState(/** @type {string | undefined} */ (undefined));
  if (!url || failed === url) {
    return html`<span class=${`${className} cover-placeholder`} aria-hidden="true" data-testid="cover-placeholder">${(item.artist || '?').slice(0, 1).toUpperCase()}</span>`;
  }
  const { src, srcset } = coverSources(url);
  return html`<img class=${className} src=${src} srcset=${srcset} alt="" width="250" height="250" loading="lazy" decoding="async"
    onLoad=${(/** @type {Event} */ e) => e.currentTarget instanceof HTMLImageElement && isEmptyCover(e.currentTarget) && setFailed(url)}
    onError=${() => setFailed(url)} />`;
}
