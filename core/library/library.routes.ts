import { Type } from 'typebox';
import { route, type RouteSpec } from '../http/route.js';
import { Job, JobStatus } from '../jobs/job.schema.js';
import type { JobLog } from '../jobs/job-log.js';
import { LibraryPage, SyncStarted } from './library-api.schema.js';
import type { LibraryService } from './library-service.js';
import { PageLimit, PageOffset } from '../http/page-query.schema.js';

const JobId = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' });

/** Library sync, the album catalogue, and the job log (CONTRACT §2). */
export function libraryRoutes(library: LibraryService, jobs: JobLog): RouteSpec[] {
  return [
    route({
      method: 'post', path: '/library/sync', tag: 'library', access: 'decide', status: 202,
      summary: 'Start a library sync (or get the one already running)',
      response: SyncStarted,
      handle: async () => ({ job: (await library.startSync('manual')).job }),
    }),
    route({
      method: 'get', path: '/library', tag: 'library', access: 'read',
      summary: 'Albums known from the last sync',
      query: Type.Object(
        { q: Type.Optional(Type.String({ maxLength: 200 })), limit: PageLimit, offset: PageOffset },
        { additionalProperties: false },
      ),
      response: LibraryPage,
      handle: ({ query }) => library.list(query),
    }),
    route({
      method: 'get', path: '/jobs', tag: 'jobs', access: 'read',
      summary: 'Background jobs, newest first (library syncs, source runs, failed download polls); past the newest 100 of a kind, from the archive',
      query: Type.Object(
        {
          kind: Type.Optional(Type.String({ maxLength: 64 })), status: Type.Optional(JobStatus),
          limit: PageLimit, offset: PageOffset,
        },
        { additionalProperties: false },
      ),
      response: Type.Object({ items: Type.Array(Job), total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() }),
      handle: ({ query }) => jobs.list(query),
    }),
    route({
      method: 'get', path: '/jobs/:id', tag: 'jobs', access: 'read', errors: [404],
      summary: 'One job with its status and summary',
      params: Type.Object({ id: JobId }),
      response: Job,
      handle: ({ params }) => jobs.find(params.id),
    }),
  ];
}
