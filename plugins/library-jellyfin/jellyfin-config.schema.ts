import { Type, type Static } from '@crateflow/sdk';

export const JellyfinConfig = Type.Object(
  {
    url: Type.String({ format: 'uri', pattern: '^https?://', description: 'Jellyfin base URL, e.g. http://jellyfin:8096' }),
    api_key: Type.String({ minLength: 1, description: 'an API key (Dashboard → API Keys); an admin key is needed for the library refresh' }),
    user_id: Type.Optional(Type.String({ pattern: '^[0-9a-fA-F-]{32,36}$', description: "list albums as this user sees them (default: every album the key can see)" })),
    page_size: Type.Integer({
      minimum: 1, maximum: 5000, default: 100,
      // Jellyfin 10.11 takes seconds per few hundred albums (jellyfin #15313); its release notes advise pages of 100.
      description: 'albums per /Items request (10.11 is slow with large pages; 100 is what its release notes advise)',
    }),
    page_attempts: Type.Integer({
      minimum: 1, maximum: 10, default: 3,
      description: 'tries per album page before the sync fails: a page that timed out or got a 5xx is read again after 2 s, then 4 s, …',
    }),
    timeout_ms: Type.Integer({ minimum: 1000, maximum: 120_000, default: 30_000, description: 'deadline of each request to Jellyfin' }),
  },
  { additionalProperties: false },
);
export type JellyfinConfig = Static<typeof JellyfinConfig>;
