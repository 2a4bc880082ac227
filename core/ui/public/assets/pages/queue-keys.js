// Keyboard shortcuts of the queue page. Keys act only when no text field has the focus.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from '../html.js';

/** @type {[key: string, what: string][]} */
export const QUEUE_KEYS = [
  ['j / k', 'next / previous item'],
  ['x', 'select or unselect the item'],
  ['a', 'approve the selection, or the item'],
  ['r', 'reject the selection, or the item'],
  ['n / b', 'next / previous page'],
  ['p', 'play or pause the preview of the item'],
  ['t', 'next track of the preview'],
  ['/', 'search'],
  ['Esc', 'clear the selection'],
  ['?', 'show or hide this list'],
];

const NOT_TEXT = new Set(['checkbox', 'radio', 'button', 'submit', 'reset']);

/**
 * @param {EventTarget | null} target
 * @returns {target is HTMLElement}
 */
function typingIn(target) {
  if (!(target instanceof HTMLElement)) return false;
  if (target instanceof HTMLInputElement) return !NOT_TEXT.has(target.type);
  return target.isContentEditable || target.tagName === 'TEXTAREA' || target.tagName === 'SELECT';
}

/**
 * What the keys do on the queue page.
 * @typedef {object} QueueKeyActions
 * @property {(delta: number) => void} move
 * @property {() => void} toggle
 * @property {() => void} approve
 * @property {() => void} reject
 * @property {() => void} nextPage
 * @property {() => void} previousPage
 * @property {() => void} focusSearch
 * @property {() => void} clear
 * @property {() => void} togglePreview
 * @property {() => void} nextTrack
 */

/**
 * Listens for the shortcut keys while the page is shown; returns whether the list of shortcuts is open.
 * @param {QueueKeyActions} actions
 * @returns {{ open: boolean, toggle: () => void }}
 */
export function useQueueKeys(actions) {
  const [open, setOpen] = useState(false);
  const latest = useRef(actions);
  latest.current = actions;
  useEffect(() => {
    /** @param {KeyboardEvent} event */
    const onKey = (event) => {
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      // An open dialog (Add, the album panel) has its own keys: nothing is decided behind it.
      if (event.target instanceof Element && event.target.closest('dialog')) return;
      if (typingIn(event.target)) {
        if (event.key === 'Escape') event.target.blur();
        return;
      }
      const a = latest.current;
      /** @type {Record<string, (() => void) | undefined>} */
      const map = {
        j: () => a.move(1), k: () => a.move(-1), x: a.toggle, a: a.approve, r: a.reject,
        n: a.nextPage, b: a.previousPage, p: a.togglePreview, t: a.nextTrack,
        '/': a.focusSearch, Escape: a.clear, '?': () => setOpen((o) => !o),
      };
      const run = map[event.key];
      if (!run) return;
      event.preventDefault();
      run();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
  return { open, toggle: () => setOpen((o) => !o) };
}

/** @param {{ id: string }} props */
export function QueueShortcuts({ id }) {
  return html`<dl id=${id} class="shortcuts" aria-label="Keyboard shortcuts">
    ${QUEUE_KEYS.map(([key, what]) => html`<div key=${key}><dt><kbd>${key}</kbd></dt><dd>${what}</dd></div>`)}
  </dl>`;
}
