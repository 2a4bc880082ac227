import { Type } from 'typebox';
import { DomainEvent } from '@crateflow/sdk';
import { Job } from '../jobs/job.schema.js';

/** How many of the latest events the dashboard lists. */
export const RECENT_EVENTS = 20;

const count = (description: string) => Type.Integer({ minimum: 0, description });

const PluginHealth = Type.Object({
  name: Type.String(),
  kind: Type.String(),
  healthy: Type.Boolean(),
  last_ok_at: Type.Optional(Type.String()),
  last_error: Type.Optional(Type.String()),
  last_error_at: Type.Optional(Type.String()),
});

/** `GET /stats`: everything the dashboard shows, in one answer. */
export const Stats = Type.Object(
  {
    queue: Type.Object({ pending: count('pending candidates'), requests_pending: count('of those, requests waiting for an admin (the nav\'s Requests count)') }),
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
