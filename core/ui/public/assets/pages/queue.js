// The pending queue: cover cards or a table, server-side search, filters, sort and paging (so 5,000 items cost
// the same as 50), decisions per item and for a selection, keyboard shortcuts, and live refresh when items are
// added or decided elsewhere.
import { Component } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { html } from '../html.js';
import { ApiError, query } from '../api.js';
import { decideQueueItem, decideQueueItems, getPendingQueue } from '../endpoints.js';
import { setParams } from '../router.js';
import { useDebounced, useResource } from '../hooks.js';
import { useLiveEvents } from '../live.js';
import { formatAgo, formatCount, formatTime, releaseName } from '../format.js';
import { ErrorNotice, errorText, toast } from '../components/notice.js';
import { Pager } from '../components/pager.js';
import { SearchBox } from '../components/search-box.js';
import { CoverArt } from '../components/cover-art.js';
import { CrateGrid } from '../components/crate-grid.js';
import { KnownBadges } from '../components/album-card.js';
import { PAGE_SIZES, QueueFilters } from './queue-filters.js';
import { QueueLayoutToggle, queueLayoutOf } from './queue-layout-choice.js';
import { QueueShortcuts, useQueueKeys } from './queue-keys.js';
import { DecidedQueue, restoreItems } from './queue-decided.js';
import { AddButton } from '../components/add-dialog.js';
import { AlbumPanel } from '../components/album-panel.js';
import { EmptyQueue } from '../components/empty-queue.js';
import { nextTrack, playAlbum, PlayButton } from '../components/preview-player.js';

/** @typedef {import('../../../api-types.js').QueueItem} QueueItem */
/** @typedef {import('../endpoints.js').Decision} Decision */

/**
 * The pending queue's search, sort and paging, as the URL holds them.
 * @typedef {object} QueueView
 * @property {string} q
 * @property {string} source
 * @property {string} sort
 * @property {'asc' | 'desc'} order
 * @property {boolean} hide_owned
 * @property {number} limit
 * @property {number} offset
 */

/** What a row or a card may do (see album-card.js). @typedef {import('../components/album-card.js').CardActions} RowActions */

/** @type {Record<Decision, string>} */
const VERB = { approve: 'Approved', reject: 'Rejected' };
/** @type {[status: QueueItem['status'], label: string][]} */
const VIEWS = [['pending', 'Pending'], ['rejected', 'Rejected'], ['approved', 'Approved']];

/**
 * @param {URLSearchParams} params
 * @returns {QueueView}
 */
function readParams(params) {
  const limit = PAGE_SIZES.includes(Number(params.get('limit'))) ? Number(params.get('limit')) : 50;
  return {
    q: params.get('q') || '',
    source: params.get('source') || '',
    sort: params.get('sort') || 'added_at',
    order: params.get('order') === 'asc' ? 'asc' : 'desc',
    hide_owned: params.get('hide_owned') === 'true',
    limit,
    offset: Math.max(0, Math.floor(Number(params.get('offset')) / limit) * limit || 0),
  };
}

/** @param {import('../app.js').PageProps} props */
export function QueuePage({ session, params }) {
  const status = VIEWS.find(([s]) => s === params.get('status'))?.[0] ?? 'pending';
  if (status === 'pending') return html`<${PendingQueue} session=${session} params=${params} />`;
  return html`<section aria-labelledby="queue-title" class="queue">
    <div class="page-head"><h1 id="queue-title">Queue</h1></div>
    <${QueueViews} status=${status} />
    <${DecidedQueue} status=${status} session=${session} view=${readParams(params)} />
  </section>`;
}

/** Pending, rejected or approved items: the decided ones come from the server's history. */
/** @param {{ status: QueueItem['status'] }} props */
function QueueViews({ status }) {
  return html`<div class="segmented queue-views" role="group" aria-label="Queue items">
    ${VIEWS.map(([s, label]) => html`<button key=${s} type="button" class="btn btn-small" aria-pressed=${status === s ? 'true' : 'false'}
      onClick=${() => setParams({ status: s === 'pending' ? undefined : s, offset: undefined, q: undefined, source: undefined, hide_owned: undefined })}>${label}</button>`)}
  </div>`;
}

/** @param {import('../app.js').PageProps} props */
function PendingQueue({ session, params }) {
  const view = readParams(params);
  const layout = queueLayoutOf(params);
  const key = query({ ...view, hide_owned: view.hide_owned || undefined });
  const pending = useResource((signal) => getPendingQueue(key, signal), key);
  const refresh = useDebounced(pending.reload, 400);
  useLiveEvents(['queue_added', 'queue_approved', 'queue_rejected'], refresh);

  const [selected, setSelected] = useState(/** @returns {Set<string>} */ () => new Set());
  const [hidden, setHidden] = useState(/** @returns {Set<string>} */ () => new Set());
  const [active, setActive] = useState(0);
  const [busy, setBusy] = useState(false);
  const [panel, setPanel] = useState(/** @type {QueueItem | null} */ (null));
  const searchRef = useRef(/** @type {HTMLInputElement | null} */ (null));
  const canDecide = session.may('decide');

  const data = pending.data;
  const items = useMemo(() => (data ? data.items.filter((i) => !hidden.has(i.id)) : []), [data, hidden]);

  // A fresh page from the server: forget rows hidden optimistically and selections that are gone.
  useEffect(() => {
    if (!data) return;
    setHidden(new Set());
    setSelected((old) => new Set(data.items.filter((i) => old.has(i.id)).map((i) => i.id)));
    setActive((a) => Math.min(a, Math.max(0, data.items.length - 1)));
  }, [data]);

  // A new page of results starts at its first row.
  useEffect(() => setActive(0), [key]);

  /**
   * @param {QueueItem[]} targets
   * @param {Decision} decision
   */
  async function decide(targets, decision) {
    const [first] = targets;
    if (!canDecide || !first || busy) return;
    setBusy(true);
    try {
      // A rejection can be taken back at once: Undo restores what was just rejected.
      const undo = decision === 'reject' ? { label: 'Undo', run: () => restoreItems(targets).finally(pending.reload) } : undefined;
      if (targets.length === 1) {
        const { item } = await decideQueueItem(first.id, decision);
        const owned = item && item.in_library ? ': already in your library, not downloaded again' : '';
        toast(`${VERB[decision]} ${releaseName(first)}${owned}`, 'ok', undo);
      } else {
        const result = await decideQueueItems(decision, { ids: targets.map((t) => t.id) });
        toast(result.message, 'ok', undo);
      }
      setHidden((old) => new Set([...old, ...targets.map((t) => t.id)]));
      setSelected((old) => new Set([...old].filter((id) => !targets.some((t) => t.id === id))));
    } catch (err) {
      toast(err instanceof ApiError && err.status === 409 ? `${releaseName(first)} was already decided elsewhere` : errorText(err), 'error');
    } finally {
      setBusy(false);
      pending.reload();
    }
  }

  const selection = items.filter((i) => selected.has(i.id));
  const targetsForKeys = () => (selection.length > 0 ? selection : items[active] ? [items[active]] : []);
  /** @param {number} offset */
  const move = (offset) => setParams({ offset: offset || undefined });
  /** @param {string} id */
  const toggle = (id) =>
    setSelected((old) => {
      const next = new Set(old);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  const help = useQueueKeys({
    move: (/** @type {number} */ delta) => setActive((a) => Math.max(0, Math.min(items.length - 1, a + delta))),
    toggle: () => items[active] && toggle(items[active].id),
    approve: () => decide(targetsForKeys(), 'approve'),
    reject: () => decide(targetsForKeys(), 'reject'),
    nextPage: () => data && view.offset + view.limit < data.total && move(view.offset + view.limit),
    previousPage: () => view.offset > 0 && move(Math.max(0, view.offset - view.limit)),
    focusSearch: () => searchRef.current && searchRef.current.focus(),
    clear: () => setSelected(new Set()),
    togglePreview: () => items[active] && playAlbum(items[active], releaseName(items[active])),
    nextTrack,
  });

  useEffect(() => {
    const row = document.querySelector(`[data-row-index="${active}"]`);
    if (row) row.scrollIntoView({ block: 'nearest' });
  }, [active]);

  // Rows get one stable object of callbacks, so a row re-renders only when its own item or flags change.
  // `open` (an album's details) and `renderExtra` (e.g. a play button on the cover) are hooks the cards offer.
  /** @type {RowActions} */
  const latestActions = {
    activate: setActive, toggle, decide: (item, d) => decide([item], d), open: setPanel,
    renderExtra: (item) => html`<${PlayButton} album=${item} name=${releaseName(item)} />`,
  };
  const rowActions = useRef(latestActions);
  Object.assign(rowActions.current, latestActions);

  const allOnPage = items.length > 0 && items.every((i) => selected.has(i.id));
  return html`<section aria-labelledby="queue-title" class="queue">
    <div class="page-head">
      <h1 id="queue-title">Queue ${data ? html`<span class="muted count-inline" data-testid="queue-total">${formatCount(data.total)} pending</span>` : null}</h1>
      <div class="button-row">
        <${QueueLayoutToggle} layout=${layout} />
        <button type="button" class="btn btn-small btn-ghost" onClick=${help.toggle} aria-expanded=${help.open} aria-controls="queue-keys">Keyboard shortcuts</button>
        ${canDecide ? html`<${AddButton} onAdded=${refresh} />` : null}
      </div>
    </div>
    <${QueueViews} status="pending" />
    ${help.open ? html`<${QueueShortcuts} id="queue-keys" />` : null}
    <div class="toolbar" role="search">
      <${SearchBox} inputRef=${searchRef} label="Search queue" placeholder="Search artist, album, source…  ( / )" value=${view.q}
        onSearch=${(/** @type {string} */ q) => setParams({ q, offset: undefined })} />
      <${QueueFilters} view=${view} generation=${data ? data.total : -1} />
    </div>
    ${canDecide && selection.length > 0 ? html`<div class="selection-bar" role="region" aria-label="Selection">
      <span data-testid="selection-count">${selection.length} selected</span>
      <button type="button" class="btn btn-approve" disabled=${busy} onClick=${() => decide(selection, 'approve')}>Approve selected</button>
      <button type="button" class="btn btn-reject" disabled=${busy} onClick=${() => decide(selection, 'reject')}>Reject selected</button>
      <button type="button" class="btn btn-ghost" onClick=${() => setSelected(new Set())}>Clear</button>
    </div>` : null}
    <${ErrorNotice} error=${pending.error} onRetry=${pending.reload} />
    ${layout === 'grid' ? html`
    ${canDecide && items.length > 0 ? html`<label class="check-field select-page"><input type="checkbox" aria-label="Select all on this page" checked=${allOnPage}
      onChange=${(/** @type {import('preact').TargetedEvent<HTMLInputElement>} */ e) => setSelected(e.currentTarget.checked ? new Set(items.map((i) => i.id)) : new Set())} /><span>Select page</span></label>` : null}
    <${CrateGrid} items=${items} active=${active} selected=${selected} canDecide=${canDecide} busy=${busy} loading=${pending.loading} actions=${rowActions.current} />`
    : html`<table class="table queue-table" aria-busy=${pending.loading ? 'true' : 'false'} aria-describedby="queue-title">
      <thead><tr>
        ${canDecide ? html`<th class="col-select"><input type="checkbox" aria-label="Select all on this page" checked=${allOnPage}
          onChange=${(/** @type {import('preact').TargetedEvent<HTMLInputElement>} */ e) => setSelected(e.currentTarget.checked ? new Set(items.map((i) => i.id)) : new Set())} /></th>` : null}
        <th class="col-cover"><span class="visually-hidden">Cover</span></th>
        <th>Release</th><th class="col-source">Source</th><th class="col-num">Score</th><th class="col-num">Year</th><th class="col-added">Added</th>
        ${canDecide ? html`<th class="col-actions"><span class="visually-hidden">Actions</span></th>` : null}
      </tr></thead>
      <tbody>
        ${items.map((item, index) => html`<${QueueRow} key=${item.id} item=${item} index=${index} active=${index === active}
          selected=${selected.has(item.id)} canDecide=${canDecide} busy=${busy} actions=${rowActions.current} />`)}
      </tbody>
    </table>`}
    ${data && items.length === 0 && !pending.loading
      ? view.q || view.source || view.hide_owned || data.total > 0
        ? html`<p class="empty">${view.q || view.source || view.hide_owned ? 'No pending items match this search.' : 'The queue is empty: nothing is waiting for a decision.'}</p>`
        : html`<${EmptyQueue} canAdd=${canDecide} canRun=${session.may('decide')} onAdded=${refresh} />`
      : null}
    ${panel ? html`<${AlbumPanel} album=${panel} busy=${busy} onClose=${() => setPanel(null)}
      decisions=${canDecide ? {
        approve: () => decide([panel], 'approve').then(() => setPanel(null)),
        reject: () => decide([panel], 'reject').then(() => setPanel(null)),
      } : undefined} />` : null}
    ${data ? html`<${Pager} total=${data.total} limit=${data.limit} offset=${data.offset} onPage=${move} label="Queue pages" />` : null}
  </section>`;
}

/**
 * @typedef {object} QueueRowProps
 * @property {QueueItem} item
 * @property {number} index
 * @property {boolean} active
 * @property {boolean} selected
 * @property {boolean} canDecide
 * @property {boolean} busy
 * @property {RowActions} actions
 */

/**
 * One queue row; skips re-rendering unless its own props changed (a page re-renders often while live).
 * @extends {Component<QueueRowProps>}
 */
class QueueRow extends Component {
  /**
   * @override
   * @param {QueueRowProps} next
   */
  shouldComponentUpdate(next) {
    const p = this.props;
    return next.item !== p.item || next.index !== p.index || next.active !== p.active || next.selected !== p.selected ||
      next.canDecide !== p.canDecide || next.busy !== p.busy;
  }

  /**
   * @override
   * @param {QueueRowProps} props
   */
  render({ item, index, active, selected, canDecide, busy, actions }) {
    const name = releaseName(item);
    return html`<tr data-row-index=${index} data-id=${item.id} class=${`${active ? 'row-active' : ''} ${selected ? 'row-selected' : ''}`} onClick=${() => actions.activate(index)}>
      ${canDecide ? html`<td class="col-select"><input type="checkbox" aria-label=${`Select ${name}`} checked=${selected} onChange=${() => actions.toggle(item.id)} /></td>` : null}
      <td class="col-cover"><div class="cover-slot">
        <span class="cover-open" onClick=${() => actions.open?.(item)}><${CoverArt} item=${item} className="cover" /></span>
        <${PlayButton} album=${item} name=${name} />
      </div></td>
      <td class="col-release">
        <button type="button" class="album-open" aria-haspopup="dialog" title="Show details" onClick=${() => actions.open?.(item)}>
        <span class="release-artist">${item.artist}</span>
        <span class="release-work">${item.album || item.title || ''}${item.type === 'track' ? html` <span class="muted">(track)</span>` : null}</span>
        </button>
        <${KnownBadges} item=${item} />
        <span class="release-meta">${[item.source, item.score !== undefined ? `score ${item.score}` : '', item.year].filter(Boolean).join(' · ')}</span>
      </td>
      <td class="col-source">${item.source}</td>
      <td class="col-num">${item.score ?? ''}</td>
      <td class="col-num">${item.year ?? ''}</td>
      <td class="col-added"><time datetime=${item.added_at} title=${formatTime(item.added_at)}>${formatAgo(item.added_at)}</time></td>
      ${canDecide ? html`<td class="col-actions">
        <button type="button" class="btn btn-small btn-approve" aria-label=${`Approve ${name}`} disabled=${busy} onClick=${() => actions.decide(item, 'approve')}>Approve</button>
        <button type="button" class="btn btn-small btn-reject" aria-label=${`Reject ${name}`} disabled=${busy} onClick=${() => actions.decide(item, 'reject')}>Reject</button>
      </td>` : null}
    </tr>`;
  }
}
