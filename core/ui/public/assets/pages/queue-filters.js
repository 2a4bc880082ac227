// The pending queue's filters and order: source (the configured sources and those with pending items), "hide
// owned", sort and page size. All of them live in the URL and are applied by the server.
import { useEffect, useState } from 'preact/hooks';
import { html } from '../html.js';
import { api } from '../api.js';
import { setParams } from '../router.js';
import { sourceLabel } from '../components/reason-chips.js';

/** @type {[value: string, label: string][]} */
export const SORTS = [
  ['added_at:desc', 'Newest first'],
  ['added_at:asc', 'Oldest first'],
  ['score:desc', 'Best match'],
  ['score:asc', 'Weakest match'],
  ['artist:asc', 'Artist A–Z'],
  ['artist:desc', 'Artist Z–A'],
  ['year:desc', 'Year, newest'],
  ['year:asc', 'Year, oldest'],
];
export const PAGE_SIZES = [25, 50, 100, 200];

/**
 * @typedef {object} SourceOption
 * @property {string} name
 * @property {number} pending
 */

/**
 * The sources a person may filter by: those with pending items (with their counts) and the configured ones,
 * which may have none waiting right now. Read once per visit of the page and again when `generation` changes.
 * @param {number} generation
 * @returns {SourceOption[]}
 */
function useSourceOptions(generation) {
  const [options, setOptions] = useState(/** @type {SourceOption[]} */ ([]));
  useEffect(() => {
    const controller = new AbortController();
    const signal = controller.signal;
    /** @type {Promise<import('../../../api-types.js').PendingSources>} */
    const withItems = api('/queue/sources', { signal });
    /** @type {Promise<import('../../../api-types.js').SourceList>} */
    const fromConfig = api('/sources', { signal });
    Promise.allSettled([withItems, fromConfig]).then(([queued, configured]) => {
      if (signal.aborted) return;
      /** @type {Map<string, number>} */
      const counts = new Map();
      // Either list may be missing (an older server, a failed request): the filter then offers what the other has.
      if (queued.status === 'fulfilled') for (const s of queued.value.sources) counts.set(s.name, s.pending);
      if (configured.status === 'fulfilled') for (const s of configured.value.items) if (!counts.has(s.name)) counts.set(s.name, 0);
      setOptions([...counts].map(([name, pending]) => ({ name, pending })));
    });
    return () => controller.abort();
  }, [generation]);
  return options;
}

/**
 * @typedef {object} QueueFiltersProps
 * @property {import('./queue.js').QueueView} view
 * @property {number} generation changes when the queue's totals change (the source counts follow)
 */

/** @param {QueueFiltersProps} props */
export function QueueFilters({ view, generation }) {
  const options = useSourceOptions(generation);
  const known = options.some((o) => o.name === view.source);
  return html`
    <label class="field"><span>Source</span>
      <select aria-label="Source" value=${view.source} onChange=${(/** @type {import('preact').TargetedEvent<HTMLSelectElement>} */ e) =>
        setQueueParams({ source: e.currentTarget.value })}>
        <option value="">All sources</option>
        ${options.map((o) => html`<option key=${o.name} value=${o.name}>${sourceLabel(o.name)} (${o.pending})</option>`)}
        ${view.source && !known ? html`<option value=${view.source}>${sourceLabel(view.source)}</option>` : null}
      </select>
    </label>
    <label class="field"><span>Sort</span>
      <select aria-label="Sort" value=${`${view.sort}:${view.order}`} onChange=${(/** @type {import('preact').TargetedEvent<HTMLSelectElement>} */ e) => {
        const [sort, order] = e.currentTarget.value.split(':');
        setQueueParams({ sort, order });
      }}>${SORTS.map(([value, label]) => html`<option key=${value} value=${value}>${label}</option>`)}</select>
    </label>
    <label class="field"><span>Per page</span>
      <select aria-label="Per page" value=${String(view.limit)} onChange=${(/** @type {import('preact').TargetedEvent<HTMLSelectElement>} */ e) => setQueueParams({ limit: e.currentTarget.value })}>
        ${PAGE_SIZES.map((n) => html`<option key=${n} value=${n}>${n}</option>`)}
      </select>
    </label>
    <button type="button" class="btn toolbar-toggle" aria-pressed=${view.hide_owned ? 'true' : 'false'}
      title="Leave out albums already in the library or on the wishlist"
      onClick=${() => setQueueParams({ hide_owned: view.hide_owned ? undefined : 'true' })}>Hide owned</button>`;
}

/**
 * A change of filter or order starts again at the first page.
 * @param {Record<string, string | undefined>} changes
 */
function setQueueParams(changes) {
  setParams({ ...changes, offset: undefined });
}
