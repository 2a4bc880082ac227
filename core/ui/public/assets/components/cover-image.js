// An album cover, or the artist's initial where there is none.
import { useEffect, useState } from 'preact/hooks';
import { html } from '../html.js';
import { isEmptyCover } from './cover-art.js';

/**
 * A cover loaded lazily, with the artist's initial in its place when there is none (404) or no URL.
 * @param {{ url: string | undefined, name: string, size: 64 | 500 }} props
 */
export function CoverImage({ url, name, size }) {
  const [failed, setFailed] = useState(false);
  useEffect(() => setFailed(false), [url]);
  // A class per size, not a style attribute: the CSP allows no inline styles.
  const cls = `cover cover-${size}`;
  if (!url || failed) {
    return html`<span class=${`${cls} cover-empty`} aria-hidden="true" data-testid="cover-placeholder">${(name || '?').slice(0, 1).toUpperCase()}</span>`;
  }
  return html`<img class=${cls} src=${url} alt="" width=${size} height=${size} loading="lazy" decoding="async"
    onLoad=${(/** @type {Event} */ e) => e.currentTarget instanceof HTMLImageElement && isEmptyCover(e.currentTarget) && setFailed(true)}
    onError=${() => setFailed(true)} />`;
}
