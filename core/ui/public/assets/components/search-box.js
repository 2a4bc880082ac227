// A search field that reports after the user pauses typing (or presses Enter), not on every key.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from '../html.js';

const PAUSE_MS = 300;

/**
 * @typedef {object} SearchBoxProps
 * @property {string} value the search in effect (from the URL)
 * @property {(text: string) => void} onSearch called with the trimmed text once it differs from `value`
 * @property {string} label
 * @property {string} [placeholder]
 * @property {import('preact').Ref<HTMLInputElement>} [inputRef]
 * @property {boolean} [bare] the input alone, without the wrapper (inside a labelled field)
 */

/** @param {SearchBoxProps} props */
export function SearchBox({ value, onSearch, label, placeholder, inputRef, bare = false }) {
  const [text, setText] = useState(value);
  const timer = useRef(0);
  useEffect(() => setText(value), [value]);
  useEffect(() => () => clearTimeout(timer.current), []);
  /** @param {string} next */
  const report = (next) => {
    clearTimeout(timer.current);
    if (next.trim() !== value) onSearch(next.trim());
  };
  const input = html`<input type="search" ref=${inputRef} aria-label=${label} placeholder=${placeholder} value=${text}
    onInput=${(/** @type {import('preact').TargetedEvent<HTMLInputElement>} */ e) => {
      const next = e.currentTarget.value;
      setText(next);
      clearTimeout(timer.current);
      timer.current = window.setTimeout(() => report(next), PAUSE_MS);
    }}
    onKeyDown=${(/** @type {import('preact').TargetedKeyboardEvent<HTMLInputElement>} */ e) => e.key === 'Enter' && report(e.currentTarget.value)} />`;
  return bare ? input : html`<div class="search">${input}</div>`;
}
