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

/**
 * Shows a message for a few seconds in the toast area; `kind` is "ok" or "error". `action` ({label, run}) adds a
 * button, e.g. Undo; the toast then stays longer, and goes once the button is used.
 */
export function toast(text, kind = 'ok', action = undefined) {
  const item = { id: nextToastId++, text, kind, action };
  for (const listener of toastListeners) listener(item);
}

export function Toasts() {
  const [items, setItems] = useState([]);
  useEffect(() => {
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
        i.action.run();
      }}>${i.action.label}</button>` : null}
    </div>`)}
  </div>`;
}
