import { Type, type Static } from 'typebox';
import { DownloadState } from '@crateflow/sdk';

export const Download = Type.Object(
  {
    id: Type.String(),
    wishlist_id: Type.String(),
    artist: Type.String(),
    album: Type.Optional(Type.String()),
    client: Type.String({ description: 'the download client plugin' }),
    client_ref: Type.Optional(Type.String({ description: "the client's own reference" })),
    state: DownloadState,
    progress: Type.Number({ minimum: 0, maximum: 1 }),
    download_path: Type.Optional(Type.String()),
    error: Type.Optional(Type.String()),
    attempts: Type.Integer({ minimum: 0 }),
    created_at: Type.String(),
    updated_at: Type.String(),
  },
  { additionalProperties: false, $id: 'Download' },
);
export type Download = Static<typeof Download>;

/** A page of downloads: `GET /downloads`. */
export const DownloadPage = Type.Object({ items: Type.Array(Download), total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() });
