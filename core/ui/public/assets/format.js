// How values read on screen: counts with separators, times relative and absolute, labels for states.

const number = new Intl.NumberFormat();
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export const formatCount = (n) => number.format(n);

export function formatTime(iso) {
  if (!iso) return '';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateTime.format(date);
}

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

export function formatDuration(ms) {
  if (ms === undefined || ms === null) return '';
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** "Artist — Album" (or the track title), for labels and messages. */
export function releaseName(item) {
  const work = item.album || item.title;
  return work ? `${item.artist} — ${work}` : item.artist;
}

export const EVENT_LABELS = {
  queue_added: 'Added to queue',
  queue_approved: 'Approved',
  queue_rejected: 'Rejected',
  download_completed: 'Downloaded',
  wishlist_removed: 'Removed from wishlist',
};
