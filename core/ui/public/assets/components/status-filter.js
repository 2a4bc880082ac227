import { html } from '../html.js';

/** A row of buttons choosing one status (or all); the chosen one is `aria-pressed`. */
export function StatusFilter({ statuses, value, onChange, label }) {
  return html`<div class="segmented" role="group" aria-label=${label}>
    ${[['', 'All'], ...statuses.map((s) => [s, s])].map(([s, text]) => html`<button key=${s || 'all'} type="button"
      class="btn btn-small" aria-pressed=${value === s ? 'true' : 'false'} onClick=${() => onChange(s)}>${text}</button>`)}
  </div>`;
}
