import { Type, type Static } from '@crateflow/sdk';

export const DeezerConfig = Type.Object(
  {
    url: Type.String({ default: 'https://api.deezer.com', pattern: '^https?://[^/?#]+/?$', description: 'the Deezer API origin (a test fake in tests)' }),
    preview_origins: Type.Array(Type.String({ pattern: '^https?://(\\*\\.)?[^/*?#]+$', maxLength: 200 }), {
      default: ['https://*.dzcdn.net'],
      minItems: 1,
      maxItems: 20,
      // Deezer serves previews from cdnt-preview.dzcdn.net (signed) and cdns-preview-<x>.dzcdn.net (older, unsigned);
      // `*.dzcdn.net` covers both without guessing every <x> (shared/reference/deezer-api.md §6).
      description: 'where preview MP3s come from; the UI may play media from exactly these origins (`https://*.host` for its subdomains)',
    }),
    timeout_ms: Type.Integer({ minimum: 1000, maximum: 60_000, default: 10_000, description: 'deadline of each request to Deezer' }),
  },
  { additionalProperties: false },
);
export type DeezerConfig = Static<typeof DeezerConfig>;
