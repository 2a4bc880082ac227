// Where a request is on its way to the library: the steps passed, the current one, the ones ahead; or, for a request
// that left the path (declined, failed, cancelled, removed), the word for what happened.
import { html } from '../html.js';
import { Badge } from './badge.js';

/** @typedef {import('../../../api-types.js').RequestItem} RequestItem */
/** @typedef {RequestItem['status']} RequestStatus */

/** @type {Record<RequestStatus, string>} */
export const REQUEST_STATUS_LABELS = {
  requested: 'Requested',
  approved: 'Approved',
  searching: 'Searching',
  downloading: 'Downloading',
  downloaded: 'Downloaded',
  in_library: 'In library',
  declined: 'Declined',
  failed: 'Failed',
  cancelled: 'Cancelled',
  removed: 'Removed',
};

/** @type {readonly RequestStatus[]} */
const PATH = ['requested', 'approved', 'searching', 'downloading', 'downloaded', 'in_library'];

/**
 * Whether the requester may still take a request back: only while it waits for an admin (the server answers 409
 * once it is approved or declined).
 * @param {RequestItem} item
 */
export const isCancellable = (item) => item.status === 'requested';

/**
 * The steps of a request, the current one marked (`aria-current="step"`), with its status in words beside.
 * @param {{ item: RequestItem }} props
 */
export function RequestPath({ item }) {
  const at = PATH.indexOf(item.status);
  if (at < 0) return html`<p class="request-off-path"><${Badge} state=${item.status} label=${REQUEST_STATUS_LABELS[item.status]} /></p>`;
  return html`<ol class="request-path" aria-label="Progress">
    ${PATH.map((step, index) => html`<li key=${step} class=${`step ${index < at ? 'step-done' : index === at ? 'step-current' : 'step-ahead'}`}
      aria-current=${index === at ? 'step' : undefined}><span class="step-label">${REQUEST_STATUS_LABELS[step]}</span>${
        index < at ? html`<span class="visually-hidden"> (done)</span>` : null}</li>`)}
  </ol>`;
}
