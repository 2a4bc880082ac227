import type { DownloadService } from '../downloads/download-service.js';
import type { LibraryService } from '../library/library-service.js';
import type { LoadedPlugins } from '../plugins/plugin-host.js';
import type { QueueService } from '../queue/queue-service.js';
import type { EventLogTable } from '../events/event-log-table.js';
import type { WishlistService } from '../wishlist/wishlist-service.js';
import { route, type RouteSpec } from '../http/route.js';
import { RECENT_EVENTS, Stats } from './stats.schema.js';

// The dashboard waits for this at most; a backend that does not answer in time is shown as unhealthy.
const HEALTH_BUDGET_MS = 1500;

export interface StatsDeps {
  queue: QueueService;
  wishlist: WishlistService;
  downloads: DownloadService;
  library: LibraryService;
  events: Pick<EventLogTable, 'recent'>;
  plugins: LoadedPlugins;
}

/** `GET /stats`: everything the dashboard shows, in one request. */
export function statsRoutes(deps: StatsDeps): RouteSpec[] {
  return [
    route({
      method: 'get', path: '/stats', tag: 'meta', access: 'read',
      summary: 'Counts for the dashboard: pending queue, wishlist and downloads by state, last library sync, recent events, plugin health',
      response: Stats,
      handle: async () => {
        const health = await deps.plugins.health(HEALTH_BUDGET_MS);
        return {
          queue: { pending: deps.queue.pendingCount(), requests_pending: deps.queue.pendingCount('request') },
          wishlist: deps.wishlist.counts(),
          downloads: deps.downloads.counts(),
          last_sync: deps.library.lastSync() ?? null,
          recent_events: deps.events.recent(RECENT_EVENTS),
          plugins: deps.plugins.all.map((p) => {
            const probed = health.get(p.name);
            const failedLast = Boolean(p.status.last_error_at && (!p.status.last_ok_at || p.status.last_error_at > p.status.last_ok_at));
            return {
              name: p.name,
              kind: p.kind,
              healthy: probed ? probed.ok : !failedLast,
              ...p.status,
              ...(probed && !probed.ok && probed.message ? { last_error: probed.message } : {}),
            };
          }),
        };
      },
    }),
  ];
}
