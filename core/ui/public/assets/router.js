// A tiny history router: the path picks the page, the query string holds the page's state (filters, paging),
// so a reload, a shared link or a return from the login form lands on the same view.
import { useEffect, useState } from 'preact/hooks';

/** @type {Set<() => void>} */
const listeners = new Set();

export function currentUrl() {
  return location.pathname + location.search;
}

/**
 * @param {string} url a same-origin path with its query string
 * @param {{ replace?: boolean }} [options] replace the current history entry instead of adding one
 */
export function navigate(url, { replace = false } = {}) {
  if (url === currentUrl()) return;
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  for (const listener of listeners) listener();
}

/**
 * The current location, as the pages read it.
 * @typedef {object} Location
 * @property {string} path
 * @property {URLSearchParams} params
 */

/**
 * Re-renders the caller whenever the URL changes; returns `{ path, params }`.
 * @returns {Location}
 */
export function useLocation() {
  const [, setTick] = useState(0);
  useEffect(() => {
    const update = () => setTick((n) => n + 1);
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return { path: location.pathname, params: new URLSearchParams(location.search) };
}

/**
 * Replaces some query parameters of the current page (empty values are dropped).
 * @param {Record<string, string | number | null | undefined>} changes
 * @param {{ replace?: boolean }} [options] add a history entry instead of replacing the current one with `replace: false`
 */
export function setParams(changes, { replace = true } = {}) {
  const params = new URLSearchParams(location.search);
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined || value === null || value === '') params.delete(key);
    else params.set(key, String(value));
  }
  const search = params.toString();
  navigate(location.pathname + (search ? `?${search}` : ''), { replace });
}

/**
 * Client-side navigation for plain left clicks on same-origin links; everything else stays a normal link.
 * @param {HTMLElement} root
 */
export function interceptLinks(root) {
  root.addEventListener('click', (event) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const link = event.target instanceof Element ? event.target.closest('a[href]') : null;
    // An SVG <a> has no string href; like any link not handled here, it stays a normal link.
    if (!(link instanceof HTMLAnchorElement) || link.target || link.hasAttribute('download')) return;
    const url = new URL(link.href);
    if (url.origin !== location.origin || url.pathname.startsWith('/api/')) return;
    event.preventDefault();
    navigate(url.pathname + url.search);
  });
}

/**
 * Only same-origin paths are followed after login, never `//host` or `https://…` (no open redirect).
 * @param {string | null} value
 */
export function safeNext(value) {
  return typeof value === 'string' && value.startsWith('/') && !value.startsWith('//') && !value.startsWith('/\\') && !value.startsWith('/login')
    ? value
    : '/';
}
