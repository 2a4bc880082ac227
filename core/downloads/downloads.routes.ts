import { Type } from 'typebox';
import { DownloadState } from '@crateflow/sdk';
import { route, type RouteSpec } from '../http/route.js';
import { Download, DownloadPage } from './download.schema.js';
import type { DownloadService } from './download-service.js';
import { PageLimit, PageOffset } from '../http/page-query.schema.js';

/** The downloads API (CONTRACT §2). */
export function downloadRoutes(downloads: DownloadService): RouteSpec[] {
  return [
    route({
      method: 'get', path: '/downloads', tag: 'downloads', access: 'read',
      summary: 'Downloads, newest first: those of wishlist items, then the finished ones of albums that left the wishlist (from the archive)',
      query: Type.Object(
        { status: Type.Optional(DownloadState), limit: PageLimit, offset: PageOffset },
        { additionalProperties: false },
      ),
      response: DownloadPage,
      handle: ({ query }) => downloads.list(query),
    }),
    route({
      method: 'post', path: '/downloads/:id/retry', tag: 'downloads', access: 'decide', errors: [404, 409],
      summary: 'Retry a failed download',
      params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }) }),
      response: Type.Object({ download: Download }),
      handle: async ({ params }) => ({ download: await downloads.retry(params.id) }),
    }),
  ];
}
