// The album or track a request is for, as both request lists name it: artist, then title and year.
import { html } from '../html.js';

/** @typedef {import('../../../api-types.js').RequestItem} RequestItem */

/** @param {{ item: RequestItem }} props */
export function RequestRelease({ item }) {
  return html`<div class="request-what">
    <span class="release-artist">${item.artist}</span>
    <span class="release-work">${item.album || item.title || ''}${item.year ? html` <span class="muted">(${item.year})</span>` : null}</span>
  </div>`;
}
