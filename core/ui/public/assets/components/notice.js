// Messages: inline errors for a failed load, and short-lived toasts for the outcome of an action.
import { useEffect, useState } from 'preact/hooks';
import { html } from '../html.js';

/**
 * What a person reads for a failed call: the error's message (an ApiError's says what the server refused).
 * @param {unknown} error
 * @returns {string}
 */
export function errorText(error) {
  return (error instanceof Error && error.message) || String(error);
}

/**
 * A page-level error with an optional retry; an API error is shown as text, never as a blank page.
 * @param {{ error: unknown, onRetry?: () => void }} props
 */
export function ErrorNotice({ error, onRetry }) {
  if (!error) return null;
  return html`<div class="notice notice-error" role="alert">
    <span>${errorText(error)}</span>
    ${onRetry ? html`<button type="button" class="btn btn-small" onClick=${onRetry}>Try again</button>` : null}
  </div>`;
}

/**
 * A button on a toast, e.g. Undo.
 * @typedef {object} ToastAction
 * @property {string} label
 * @property {() => void} run
 */

/**
 * @typedef {object} Toast
 * @property {number} id
 * @property {string} text
 * @property {'ok' | 'error'} kind
 * @property {ToastAction | undefined} action
 */

/** @type {Set<(toast: Toast) => void>} */
const toastListeners = new Set();
let nextToastId = 1;

/**
 * Shows a message for a few seconds in the toast area; `kind` is "ok" or "error". `action` ({label, run}) adds a
 * button, e.g. Undo; the toast then stays longer, and goes once the button is used.
 * @param {string} text
 * @param {'ok' | 'error'} [kind]
 * @param {ToastAction} [action]
 */
export function toast(text, kind = 'ok', action = undefined) {
  const item = { id: nextToastId++, text, kind, action };
  for (const listener of toastListeners) listener(item);
}

export function Toasts() {
  const [items, setItems] = useState(/** @type {Toast[]} */ ([]));
  useEffect(() => {
    /** @param {Toast} item */
    const add = (item) => {
      setItems((list) => [...list.slice(-3), item]);
      setTimeout(() => setItems((list) => list.filter((i) => i.id !== item.id)), item.kind === 'error' || item.action ? 8000 : 4000);
    };
    toastListeners.add(add);
    return () => toastListeners.delete(add);
  }, []);
  return html`<div class="toasts" role="status" aria-live="polite">
    ${items.map((i) => html`<div key=${i.id} class=${`toast toast-${i.kind}`}>
      <span>${i.text}</span>
      ${i.action ? html`<button type="button" class="btn btn-small toast-action" onClick=${() => {
        setItems((list) => list.filter((other) => other.id !== i.id));
        i.action?.run();
      }}>${i.action.label}</button>` : null}
    </div>`)}
  </div>`;
}
