// Cards or a table: the person's choice, remembered in this browser. `?view=` in the URL wins (a shared link,
// a test), and the toggle writes both.
import { html } from '../html.js';
import { setParams } from '../router.js';

/** @typedef {'grid' | 'list'} QueueLayout */

const STORAGE_KEY = 'crateflow.queue.layout';

/** @returns {QueueLayout | undefined} */
function remembered() {
  try {
    const value = localStorage.getItem(STORAGE_KEY);
    return value === 'list' || value === 'grid' ? value : undefined;
  } catch (err) {
    // Storage may be off (a privacy setting): the page then starts with cards every time, which is fine.
    console.warn('queue layout: localStorage is not readable', err);
    return undefined;
  }
}

/**
 * @param {URLSearchParams} params
 * @returns {QueueLayout}
 */
export function queueLayoutOf(params) {
  const asked = params.get('view');
  if (asked === 'list' || asked === 'grid') return asked;
  return remembered() ?? 'grid';
}

/** @param {QueueLayout} layout */
function choose(layout) {
  try {
    localStorage.setItem(STORAGE_KEY, layout);
  } catch (err) {
    console.warn('queue layout: localStorage is not writable; the choice lasts for this page only', err);
  }
  setParams({ view: layout });
}

/** @param {{ layout: QueueLayout }} props */
export function QueueLayoutToggle({ layout }) {
  return html`<div class="segmented layout-toggle" role="group" aria-label="Layout">
    <button type="button" class="btn btn-small" aria-pressed=${layout === 'grid' ? 'true' : 'false'} onClick=${() => choose('grid')}>Covers</button>
    <button type="button" class="btn btn-small" aria-pressed=${layout === 'list' ? 'true' : 'false'} onClick=${() => choose('list')}>List</button>
  </div>`;
}
