// Live updates: one EventSource on /api/v1/events/stream, shared by every page that listens.
import { useEffect, useRef, useState } from 'preact/hooks';
import { API } from './api.js';

/** @typedef {import('../../api-types.js').DomainEvent} DomainEvent */
/** @typedef {import('../../api-types.js').EventType} EventType */
/**
 * Whether live updates arrive: `connecting` also while EventSource reconnects after a dropped connection.
 * @typedef {'off' | 'connecting' | 'live'} LiveStatus
 */

/** @type {EventType[]} */
const EVENT_TYPES = ['queue_added', 'queue_approved', 'queue_rejected', 'download_completed', 'wishlist_removed'];
/** @type {Set<(event: DomainEvent) => void>} */
const listeners = new Set();
/** @type {Set<(status: LiveStatus) => void>} */
const statusListeners = new Set();
/** @type {EventSource | null} */
let source = null;
/** @type {LiveStatus} */
let status = 'off';

/** @param {LiveStatus} next */
function setStatus(next) {
  status = next;
  for (const listener of statusListeners) listener(next);
}

/** Opens the stream (once signed in). EventSource reconnects by itself after a dropped connection. */
export function startLive() {
  if (source) return;
  source = new EventSource(`${API}/events/stream`);
  setStatus('connecting');
  source.onopen = () => setStatus('live');
  source.onerror = () => setStatus(source && source.readyState === EventSource.CLOSED ? 'off' : 'connecting');
  for (const type of EVENT_TYPES) {
    source.addEventListener(type, (message) => {
      /** @type {DomainEvent} the event as the server's event stream serialises it */
      let event;
      try {
        event = JSON.parse(message.data);
      } catch {
        return; // not ours (a proxy's keep-alive); nothing to show
      }
      for (const listener of listeners) listener(event);
    });
  }
}

export function stopLive() {
  if (source) source.close();
  source = null;
  setStatus('off');
}

/**
 * Calls `onEvent(event)` for each live event whose type is in `types` (all when null).
 * @param {EventType[] | null} types
 * @param {(event: DomainEvent) => void} onEvent
 */
export function useLiveEvents(types, onEvent) {
  const handler = useRef(onEvent);
  handler.current = onEvent;
  const key = types ? types.join(',') : '';
  useEffect(() => {
    const wanted = key ? new Set(key.split(',')) : null;
    /** @param {DomainEvent} event */
    const listener = (event) => {
      if (!wanted || wanted.has(event.type)) handler.current(event);
    };
    listeners.add(listener);
    return () => listeners.delete(listener);
  }, [key]);
}

/** @returns {LiveStatus} */
export function useLiveStatus() {
  const [value, setValue] = useState(status);
  useEffect(() => {
    statusListeners.add(setValue);
    return () => statusListeners.delete(setValue);
  }, []);
  return value;
}
