import { Type } from 'typebox';
import { LibraryAlbum } from '@crateflow/sdk';
import { Job } from '../jobs/job.schema.js';

/** A page of the album catalogue: `GET /library`, with when the last sync saved it (null before the first). */
export const LibraryPage = Type.Object({
  items: Type.Array(LibraryAlbum), total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer(),
  synced_at: Type.Union([Type.String(), Type.Null()]),
});

/** The answer of `POST /library/sync`: the sync job just started, or the one already running. */
export const SyncStarted = Type.Object({ job: Job });
