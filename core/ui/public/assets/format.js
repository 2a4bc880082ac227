// How values read on screen: counts with separators, times relative and absolute, labels for states.

/** @typedef {import('../../api-types.js').EventType} EventType */

const number = new Intl.NumberFormat();
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** @param {number} n */
export const formatCount = (n) => number.format(n);

/**
 * @param {string | null | undefined} iso
 * @returns {string}
 */
export function formatTime(iso) {
  if (!iso) return '';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateTime.format(date);
}

/**
 * @param {string | null | undefined} iso
 * @param {number} [now] milliseconds since the epoch
 * @returns {string}
 */
export function formatAgo(iso, now = Date.now()) {
  if (!iso) return '';
  const seconds = Math.round((now - new Date(iso).getTime()) / 1000);
  if (!Number.isFinite(seconds)) return iso;
  if (seconds < 45) return 'just now';
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 36) return `${hours} h ago`;
  return formatTime(iso);
}

/** @param {number | null | undefined} ms */
export function formatDuration(ms) {
  if (ms === undefined || ms === null) return '';
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/**
 * "Artist — Album" (or the track title), for labels and messages.
 * @param {{ artist: string, album?: string, title?: string }} item a queue or wishlist item, or a download
 */
export function releaseName(item) {
  const work = item.album || item.title;
  return work ? `${item.artist} — ${work}` : item.artist;
}

/**
 * A label for every event type the server sends (a new type fails the type check until it has one).
 * @type {Record<EventType, string>}
 */
export const EVENT_LABELS = {
  queue_added: 'Added to queue',
  queue_approved: 'Approved',
  queue_rejected: 'Rejected',
  download_completed: 'Downloaded',
  wishlist_removed: 'Removed from wishlist',
};
