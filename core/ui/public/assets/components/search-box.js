// A search field that reports after the user pauses typing (or presses Enter), not on every key.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from '../html.js';

const PAUSE_MS = 300;

export function SearchBox({ value, onSearch, label, placeholder, inputRef, bare = false }) {
  const [text, setText] = useState(value);
  const timer = useRef(0);
  useEffect(() => setText(value), [value]);
  useEffect(() => () => clearTimeout(timer.current), []);
  const report = (next) => {
    clearTimeout(timer.current);
    if (next.trim() !== value) onSearch(next.trim());
  };
  const input = html`<input type="search" ref=${inputRef} aria-label=${label} placeholder=${placeholder} value=${text}
    onInput=${(e) => {
      const next = e.currentTarget.value;
      setText(next);
      clearTimeout(timer.current);
      timer.current = setTimeout(() => report(next), PAUSE_MS);
    }}
    onKeyDown=${(e) => e.key === 'Enter' && report(e.currentTarget.value)} />`;
  return bare ? input : html`<div class="search">${input}</div>`;
}
