import { html } from '../html.js';
import { formatCount } from '../format.js';

/**
 * "1–50 of 5,000" with first/previous/next/last; `onPage(offset)` moves.
 * @param {{ total: number, limit: number, offset: number, onPage: (offset: number) => void, label?: string }} props
 */
export function Pager({ total, limit, offset, onPage, label = 'Pages' }) {
  if (!total) return null; // nothing to page through; the page says why it is empty
  const last = Math.max(0, Math.floor((total - 1) / limit) * limit);
  const from = total === 0 ? 0 : offset + 1;
  const to = Math.min(total, offset + limit);
  const page = Math.floor(offset / limit) + 1;
  const pages = Math.max(1, Math.ceil(total / limit));
  return html`<nav class="pager" aria-label=${label}>
    <span class="pager-range">${formatCount(from)}–${formatCount(to)} of ${formatCount(total)}</span>
    <span class="pager-buttons">
      <button type="button" class="btn btn-small" aria-label="First page" disabled=${offset <= 0} onClick=${() => onPage(0)}>«</button>
      <button type="button" class="btn btn-small" aria-label="Previous page" disabled=${offset <= 0} onClick=${() => onPage(Math.max(0, offset - limit))}>‹ Prev</button>
      <span class="pager-page">Page ${formatCount(page)} of ${formatCount(pages)}</span>
      <button type="button" class="btn btn-small" aria-label="Next page" disabled=${offset >= last} onClick=${() => onPage(offset + limit)}>Next ›</button>
      <button type="button" class="btn btn-small" aria-label="Last page" disabled=${offset >= last} onClick=${() => onPage(last)}>»</button>
    </span>
  </nav>`;
}
