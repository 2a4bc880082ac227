// Dashboard: counts, the last library sync (and a button to run one), plugin health and recent activity.
import { html } from '../html.js';
import { getStats } from '../endpoints.js';
import { useDebounced, useInterval, useResource } from '../hooks.js';
import { useLiveEvents } from '../live.js';
import { EVENT_LABELS, formatAgo, formatCount, formatTime } from '../format.js';
import { Badge } from '../components/badge.js';
import { ErrorNotice } from '../components/notice.js';
import { SyncButton } from '../components/sync-button.js';

/** @typedef {import('../../../api-types.js').Stats} Stats */
/** @typedef {import('../../../api-types.js').Job} Job */
/** @typedef {import('../../../api-types.js').DomainEvent} DomainEvent */

/** @param {import('../app.js').PageProps} props */
export function DashboardPage({ session }) {
  const stats = useResource(getStats, 'stats');
  const refresh = useDebounced(stats.reload, 500);
  useLiveEvents(null, refresh);
  useInterval(stats.reload, 30_000, true);
  const data = stats.data;

  return html`<section aria-labelledby="dash-title" aria-busy=${stats.loading ? 'true' : 'false'}>
    <h1 id="dash-title">Dashboard</h1>
    <${ErrorNotice} error=${stats.error} onRetry=${stats.reload} />
    ${data ? html`
      <div class="cards">
        <${Count} label="Pending" value=${data.queue.pending} href="/queue" />
        <${Count} label="Wishlist" value=${data.wishlist.wanted} href="/wishlist?status=wanted" hint="wanted" />
        <${Count} label="Queued" value=${data.downloads.queued} href="/downloads?status=queued" hint="no files yet" />
        <${Count} label="Downloading" value=${data.downloads.downloading + data.downloads.searching} href="/downloads" />
        <${Count} label="Completed" value=${data.downloads.completed} href="/downloads?status=completed" />
        <${Count} label="Failed" value=${data.downloads.failed} href="/downloads?status=failed" tone=${data.downloads.failed > 0 ? 'bad' : ''} />
      </div>
      <div class="panels">
        <${SyncPanel} job=${data.last_sync} canSync=${session.may('decide')} onDone=${stats.reload} />
        <${PluginsPanel} plugins=${data.plugins} />
        <${ActivityPanel} events=${data.recent_events} />
      </div>` : stats.loading ? html`<p class="muted">Loading…</p>` : null}
  </section>`;
}

/** @param {{ label: string, value: number, href: string, hint?: string, tone?: string }} props */
function Count({ label, value, href, hint, tone }) {
  return html`<a class=${`card count ${tone ? `count-${tone}` : ''}`} href=${href}>
    <span class="count-value" data-testid=${`count-${label.toLowerCase()}`}>${formatCount(value)}</span>
    <span class="count-label">${label}${hint ? html` <span class="muted">(${hint})</span>` : null}</span>
  </a>`;
}

/** @param {{ job: Job | null, canSync: boolean, onDone: () => void }} props */
function SyncPanel({ job, canSync, onDone }) {
  const summary = job ? Object.entries(job.summary || {}) : [];
  return html`<section class="panel" aria-labelledby="sync-title">
    <h2 id="sync-title">Library sync</h2>
    ${job ? html`<p><${Badge} state=${job.status} /> ${job.trigger === 'manual' ? 'Started by hand' : 'Scheduled'}, <time datetime=${job.started_at} title=${formatTime(job.started_at)}>${formatAgo(job.started_at)}</time></p>
      ${summary.length ? html`<dl class="summary">${summary.map(([k, v]) => html`<div key=${k}><dt>${k.replace(/_/g, ' ')}</dt><dd>${formatCount(v)}</dd></div>`)}</dl>` : null}
      ${job.error ? html`<p class="error-text">${job.error}</p>` : null}`
    : html`<p class="muted">No library sync has run yet.</p>`}
    ${canSync ? html`<${SyncButton} onDone=${onDone} />` : null}
  </section>`;
}

/** @param {{ plugins: Stats['plugins'] }} props */
function PluginsPanel({ plugins }) {
  return html`<section class="panel" aria-labelledby="plugins-title">
    <h2 id="plugins-title">Plugins</h2>
    <ul class="plain-list">
      ${plugins.map((p) => html`<li key=${p.name} class="plugin">
        <span><strong>${p.name}</strong> <span class="muted">${p.kind}</span></span>
        <${Badge} state=${p.healthy ? 'healthy' : 'unhealthy'} />
        ${!p.healthy && p.last_error ? html`<span class="error-text plugin-error">${p.last_error}</span>` : null}
      </li>`)}
    </ul>
  </section>`;
}

/** @param {{ events: DomainEvent[] }} props */
function ActivityPanel({ events }) {
  return html`<section class="panel panel-wide" aria-labelledby="activity-title">
    <h2 id="activity-title">Recent activity</h2>
    ${events.length === 0 ? html`<p class="muted">Nothing has happened yet.</p>` : html`<ul class="plain-list activity">
      ${events.map((e) => html`<li key=${e.id}>
        <span class=${`event-type event-${e.type}`}>${EVENT_LABELS[e.type] || e.type}</span>
        <span class="activity-what">${describeSubject(e.data)}</span>
        <time class="muted" datetime=${e.timestamp} title=${formatTime(e.timestamp)}>${formatAgo(e.timestamp)}</time>
      </li>`)}
    </ul>`}
  </section>`;
}

/**
 * "Artist — Album", or for a track "Artist — Title" (and its album when known): the feed names what happened to.
 * @param {DomainEvent['data']} data
 */
function describeSubject(data) {
  if (data.type === 'track' && data.title) return `${data.artist} — ${data.title}${data.album ? ` (${data.album})` : ''}`;
  return `${data.artist}${data.album ? ` — ${data.album}` : ''}`;
}
