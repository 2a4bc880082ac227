import { html } from '../html.js';

/** @type {Readonly<Record<string, string>>} */
const TONES = {
  pending: 'neutral', wanted: 'neutral', queued: 'neutral', searching: 'info', downloading: 'info', running: 'info',
  downloaded: 'ok', completed: 'ok', delivered: 'ok', approved: 'ok', healthy: 'ok', enabled: 'ok',
  failed: 'bad', rejected: 'bad', unhealthy: 'bad', disabled: 'muted',
  requested: 'neutral', in_library: 'ok', declined: 'bad', cancelled: 'muted', removed: 'muted',
};

/**
 * A state shown as a coloured word (the word itself carries the meaning, colour only helps).
 * @param {{ state: string, label?: string }} props
 */
export function Badge({ state, label }) {
  return html`<span class=${`badge badge-${TONES[state] || 'neutral'}`}>${label || state}</span>`;
}
