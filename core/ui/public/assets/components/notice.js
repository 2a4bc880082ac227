// Messages: inline errors for a failed load, and short-lived toasts for the outcome of an action.
import { useEffect, useState } from 'preact/hooks';
import { html } from '../html.js';

/** A page-level error with an optional retry; an API error is shown as text, never as a blank page. */
export function ErrorNotice({ error, onRetry }) {
  if (!error) return null;
  return html`<div class="notice notice-error" role="alert">
    <span>${error.message || String(error)}</span>
    ${onRetry ? html`<button type="button" class="btn btn-small" onClick=${onRetry}>Try again</button>` : null}
  </div>`;
}

const toastListeners = new Set();
let nextToastId = 1;

/** Shows a message for a few seconds in the toast area; `kind` is "ok" or "error". */
export function toast(text, kind = 'ok') {
  const item = { id: nextToastId++, text, kind };
  for (const listener of toastListeners) listener(item);
}

export function Toasts() {
  const [items, setItems] = useState([]);
  useEffect(() => {
    const add = (item) => {
      setItems((list) => [...list.slice(-3), item]);
      setTimeout(() => setItems((list) => list.filter((i) => i.id !== item.id)), item.kind === 'error' ? 8000 : 4000);
    };
    toastListeners.add(add);
    return () => toastListeners.delete(add);
  }, []);
  return html`<div class="toasts" role="status" aria-live="polite">
    ${items.map((i) => html`<div key=${i.id} class=${`toast toast-${i.kind}`}>${i.text}</div>`)}
  </div>`;
}
