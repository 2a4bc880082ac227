// Loading data for a page: the latest request wins, older ones are aborted, errors become messages.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { isAbort } from './api.js';

/**
 * What a page knows of one resource: the last good answer (kept while a new request runs, so paging shows no
 * blank flashes), the error of the last failed request, and whether a request is running.
 * @template T
 * @typedef {object} ResourceState
 * @property {T | undefined} data
 * @property {unknown} error
 * @property {boolean} loading
 */

/**
 * @template T
 * @typedef {ResourceState<T> & { reload: () => Promise<void> }} Resource
 */

/**
 * Runs `load(signal)` whenever `key` changes and on `reload()`. Keeps the last good data while a new request
 * runs (no blank flashes while paging), and exposes the error of the last failed one.
 * @template T
 * @param {(signal: AbortSignal) => Promise<T>} load
 * @param {string} key
 * @returns {Resource<T>}
 */
export function useResource(load, key) {
  /** @type {ResourceState<T>} */
  const initial = { data: undefined, error: undefined, loading: true };
  const [state, setState] = useState(initial);
  const loader = useRef(load);
  loader.current = load;
  const controller = useRef(/** @type {AbortController | null} */ (null));
  const reload = useCallback(() => {
    if (controller.current) controller.current.abort();
    const current = new AbortController();
    controller.current = current;
    setState((s) => ({ ...s, loading: true }));
    return loader
      .current(current.signal)
      .then((data) => {
        if (controller.current === current) setState({ data, error: undefined, loading: false });
      })
      .catch((error) => {
        if (isAbort(error) || controller.current !== current) return;
        setState((s) => ({ ...s, error, loading: false }));
      });
  }, []);
  useEffect(() => {
    reload();
  }, [key]);
  useEffect(() => () => controller.current && controller.current.abort(), []);
  return { ...state, reload };
}

/**
 * A function that runs `fn` at most once per `ms`, trailing (for bursts of live events).
 * @param {() => void} fn
 * @param {number} ms
 * @returns {() => void}
 */
export function useDebounced(fn, ms) {
  const latest = useRef(fn);
  latest.current = fn;
  const timer = useRef(0);
  useEffect(() => () => clearTimeout(timer.current), []);
  return useCallback(() => {
    clearTimeout(timer.current);
    timer.current = window.setTimeout(() => latest.current(), ms);
  }, [ms]);
}

/**
 * Calls `fn` every `ms` while `active` and the tab is visible.
 * @param {() => void} fn
 * @param {number} ms
 * @param {boolean} active
 */
export function useInterval(fn, ms, active) {
  const latest = useRef(fn);
  latest.current = fn;
  useEffect(() => {
    if (!active) return undefined;
    const id = setInterval(() => {
      if (document.visibilityState === 'visible') latest.current();
    }, ms);
    return () => clearInterval(id);
  }, [ms, active]);
}
