// The pending queue as a crate of cover cards: a plain list the browser lays out in as many columns as fit
// (one or two on a phone), each card a list item.
import { html } from '../html.js';
import { AlbumCard } from './album-card.js';

/**
 * @typedef {object} CrateGridProps
 * @property {import('../../../api-types.js').QueueItem[]} items
 * @property {number} active
 * @property {Set<string>} selected
 * @property {boolean} canDecide
 * @property {boolean} busy
 * @property {boolean} loading
 * @property {import('./album-card.js').CardActions} actions one stable object, so a card re-renders only when its own item changes
 */

/** @param {CrateGridProps} props */
export function CrateGrid({ items, active, selected, canDecide, busy, loading, actions }) {
  return html`<ul class="crate-grid" aria-label="Pending albums" aria-busy=${loading ? 'true' : 'false'} data-testid="crate-grid">
    ${items.map((item, index) => html`<${AlbumCard} key=${item.id} item=${item} index=${index} active=${index === active}
      selected=${selected.has(item.id)} canDecide=${canDecide} busy=${busy} actions=${actions} />`)}
  </ul>`;
}
