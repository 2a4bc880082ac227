// The number of requests waiting for an admin, beside the Requests tab: the household's "someone asked for something".
import { html } from '../html.js';
import { getStats } from '../endpoints.js';
import { useDebounced, useInterval, useResource } from '../hooks.js';
import { useLiveEvents } from '../live.js';
import { formatCount } from '../format.js';

// Live events bring most changes at once; the interval catches a stream that was down for a while.
const POLL_MS = 60_000;

export function RequestsCount() {
  const stats = useResource(getStats, 'requests-count');
  useLiveEvents(['queue_added', 'queue_approved', 'queue_rejected'], useDebounced(stats.reload, 500));
  useInterval(stats.reload, POLL_MS, true);
  // Without an answer (a failed call) no number is shown: the pages themselves say what failed.
  const pending = stats.data ? stats.data.queue.requests_pending : 0;
  if (!pending) return null;
  // A sighted user sees the bare number; a screen reader reads it with the tab's name ("Requests, 2 pending").
  const count = formatCount(pending);
  return html`<span class="nav-count" data-testid="requests-pending" aria-hidden="true">${count}</span><span class="visually-hidden">, ${count} pending</span>`;
}
