import { Type } from 'typebox';
import { DomainEvent } from '@crateflow/sdk';
import { Job } from '../../jobs/job.schema.js';
import type { DownloadService } from '../../downloads/download-service.js';
import type { LibraryService } from '../../library/library-service.js';
import type { LoadedPlugins } from '../../plugins/plugin-host.js';
import type { QueueService } from '../../queue/queue-service.js';
import type { CoreStore } from '../../storage/core-store.js';
import type { WishlistService } from '../../wishlist/wishlist-service.js';
import { route, type RouteSpec } from '../route.js';

const RECENT_EVENTS = 20;
// The dashboard waits for this at most; a backend that does not answer in time is shown as unhealthy.
const HEALTH_BUDGET_MS = 1500;

const count = (description: string) => Type.Integer({ minimum: 0, description });

const PluginHealth = Type.Object({
  name: Type.String(),
  kind: Type.String(),
  healthy: Type.Boolean(),
  last_ok_at: Type.Optional(Type.String()),
  last_error: Type.Optional(Type.String()),
  last_error_at: Type.Optional(Type.String()),
});

const Stats = Type.Object(
  {
    queue: Type.Object({ pending: count('pending candidates') }),
    wishlist: Type.Object({
      wanted: count('waiting for a download'),
      downloading: count('being downloaded'),
      downloaded: count('downloaded, not yet seen by a library sync'),
      failed: count('download failed'),
    }),
    downloads: Type.Object({
      queued: count('queued'),
      searching: count('searching'),
      downloading: count('downloading'),
      completed: count('completed'),
      failed: count('failed'),
    }),
    last_sync: Type.Union([Type.Null(), Job], { description: 'the latest library sync job, or null before the first' }),
    recent_events: Type.Array(DomainEvent, { description: `the last ${RECENT_EVENTS} events, newest first` }),
    plugins: Type.Array(PluginHealth),
  },
  { $id: 'Stats' },
);

export interface StatsDeps {
  queue: QueueService;
  wishlist: WishlistService;
  downloads: DownloadService;
  library: LibraryService;
  store: CoreStore;
  plugins: LoadedPlugins;
}

/** `GET /stats`: everything the dashboard shows, in one request. */
export function statsRoutes(deps: StatsDeps): RouteSpec[] {
  return [
    route({
      method: 'get', path: '/stats', tag: 'meta', access: 'viewer',
      summary: 'Counts for the dashboard: pending queue, wishlist and downloads by state, last library sync, recent events, plugin health',
      response: Stats,
      handle: async () => {
        const health = await deps.plugins.health(HEALTH_BUDGET_MS);
        return {
          queue: { pending: deps.queue.pendingCount() },
          wishlist: deps.wishlist.counts(),
          downloads: deps.downloads.counts(),
          last_sync: deps.library.lastSync() ?? null,
          recent_events: Object.values(deps.store.data.recent).slice(-RECENT_EVENTS).reverse(),
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
