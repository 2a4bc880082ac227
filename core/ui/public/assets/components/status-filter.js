import { html } from '../html.js';

/**
 * A row of buttons choosing one status (or all, the empty string); the chosen one is `aria-pressed`.
 * @param {{ statuses: readonly string[], value: string, onChange: (status: string) => void, label: string }} props
 */
export function StatusFilter({ statuses, value, onChange, label }) {
  /** @type {[status: string, text: string][]} */
  const choices = [['', 'All'], ...statuses.map(/** @returns {[string, string]} */ (s) => [s, s])];
  return html`<div class="segmented" role="group" aria-label=${label}>
    ${choices.map(([s, text]) => html`<button key=${s || 'all'} type="button"
      class="btn btn-small" aria-pressed=${value === s ? 'true' : 'false'} onClick=${() => onChange(s)}>${text}</button>`)}
  </div>`;
}
