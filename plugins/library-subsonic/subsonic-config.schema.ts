import { Type, type Static } from '@crateflow/sdk';

export const SubsonicConfig = Type.Object(
  {
    url: Type.String({ format: 'uri', pattern: '^https?://', description: 'server base URL (the part before /rest), e.g. http://navidrome:4533' }),
    username: Type.String({ minLength: 1, description: 'Subsonic user; an admin if start_scan_after_download is on' }),
    password: Type.String({ minLength: 1, description: 'its password; only a salted MD5 token of it is ever sent' }),
    client_name: Type.String({
      minLength: 3,
      default: 'crateflow',
      // Navidrome treats a client as legacy (no musicBrainzId) when `c` is a substring of Subsonic.LegacyClients.
      description: 'the c= client name; keep it distinctive, as Navidrome hides OpenSubsonic fields from "legacy" names such as "DSub"',
    }),
    page_size: Type.Integer({ minimum: 1, maximum: 500, default: 500, description: 'albums per getAlbumList2 request (servers cap it at 500)' }),
    start_scan_after_download: Type.Boolean({
      default: true,
      description: 'when library.refresh_after_download asks for a rescan, call startScan (needs an admin user; turn off otherwise)',
    }),
    timeout_ms: Type.Integer({ minimum: 1000, maximum: 120_000, default: 30_000, description: 'deadline of each request to the server' }),
  },
  { additionalProperties: false },
);
export type SubsonicConfig = Static<typeof SubsonicConfig>;
