// One pending album as a record-shop card: cover, names, year and type, "% match", why it is proposed, what
// the person has already (in library, wanted, rejected before), and the same select / approve / reject
// controls as a row of the list view.
import { Component } from 'preact';
import { html } from '../html.js';
import { releaseName } from '../format.js';
import { CoverArt } from './cover-art.js';
import { matchLabel, ReasonChips } from './reason-chips.js';

/** @typedef {import('../../../api-types.js').QueueItem} QueueItem */
/** @typedef {import('../endpoints.js').Decision} Decision */

/**
 * What a card (or a row) may do; one object for every card, whose functions are replaced on each render.
 * `open` and `renderExtra` are the hooks for an album's detail panel and a preview player: a click on the cover
 * or the title calls `open`; `renderExtra` fills a slot on the cover (e.g. a play button).
 * @typedef {object} CardActions
 * @property {(index: number) => void} activate
 * @property {(id: string) => void} toggle
 * @property {(item: QueueItem, decision: Decision) => void} decide
 * @property {((item: QueueItem) => void) | undefined} [open]
 * @property {((item: QueueItem) => import('preact').ComponentChildren) | undefined} [renderExtra]
 */

/**
 * @typedef {object} AlbumCardProps
 * @property {QueueItem} item
 * @property {number} index
 * @property {boolean} active
 * @property {boolean} selected
 * @property {boolean} canDecide
 * @property {boolean} busy
 * @property {CardActions} actions
 */

/**
 * What the person has already: shown on a card and in a row of the list view.
 * @param {{ item: QueueItem }} props
 */
export function KnownBadges({ item }) {
  const badges = [
    item.in_library ? html`<li key="lib" class="badge badge-ok">In library</li>` : null,
    item.wishlisted ? html`<li key="wish" class="badge badge-info">Already wanted</li>` : null,
    item.rejected_before ? html`<li key="rej" class="badge badge-bad">Rejected before</li>` : null,
  ].filter(Boolean);
  return badges.length > 0 ? html`<ul class="card-badges" aria-label="Already known">${badges}</ul>` : null;
}

/**
 * A card; skips re-rendering unless its own props changed (the page re-renders often while live).
 * @extends {Component<AlbumCardProps>}
 */
export class AlbumCard extends Component {
  /**
   * @override
   * @param {AlbumCardProps} next
   */
  shouldComponentUpdate(next) {
    const p = this.props;
    return next.item !== p.item || next.index !== p.index || next.active !== p.active || next.selected !== p.selected ||
      next.canDecide !== p.canDecide || next.busy !== p.busy;
  }

  /**
   * @override
   * @param {AlbumCardProps} props
   */
  render({ item, index, active, selected, canDecide, busy, actions }) {
    const name = releaseName(item);
    const match = matchLabel(item.score);
    const open = actions.open;
    const facts = [item.year, item.type === 'track' ? 'Track' : 'Album'].filter(Boolean).join(' · ');
    return html`<li class=${`album-card${active ? ' card-active' : ''}${selected ? ' card-selected' : ''}`} data-row-index=${index} data-id=${item.id}>
      <article tabindex="0" aria-label=${name} onFocus=${() => actions.activate(index)} onClick=${() => actions.activate(index)}>
        <div class="card-cover">
          ${open
            ? html`<button type="button" class="card-open" aria-label=${`Details of ${name}`} onClick=${() => open(item)}><${CoverArt} item=${item} /></button>`
            : html`<${CoverArt} item=${item} />`}
          ${match ? html`<span class="card-match" data-testid="match">${match}</span>` : null}
          ${actions.renderExtra ? html`<div class="card-extra">${actions.renderExtra(item)}</div>` : null}
          ${canDecide ? html`<label class="card-select"><input type="checkbox" aria-label=${`Select ${name}`} checked=${selected} onChange=${() => actions.toggle(item.id)} /></label>` : null}
        </div>
        <div class="card-body">
          <span class="card-artist" title=${item.artist}>${item.artist}</span>
          ${open
            ? html`<button type="button" class="card-title card-title-link" title=${item.album || item.title || ''} onClick=${() => open(item)}>${item.album || item.title || ''}</button>`
            : html`<span class="card-title" title=${item.album || item.title || ''}>${item.album || item.title || ''}</span>`}
          <span class="card-facts">${facts}</span>
          <${KnownBadges} item=${item} />
          <${ReasonChips} reasons=${item.reasons} source=${item.source} />
        </div>
        ${canDecide ? html`<div class="card-actions">
          <button type="button" class="btn btn-approve" aria-label=${`Approve ${name}`} disabled=${busy} onClick=${() => actions.decide(item, 'approve')}>Approve</button>
          <button type="button" class="btn btn-reject" aria-label=${`Reject ${name}`} disabled=${busy} onClick=${() => actions.decide(item, 'reject')}>Reject</button>
        </div>` : null}
      </article>
    </li>`;
  }
}
