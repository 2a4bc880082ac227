import { DEMO_LISTENBRAINZ_USER, DEMO_SLSKD_API_KEY, type DemoWorldUrls } from './demo-world.js';

/** What the demo's config points at, besides the fakes: folders inside the demo dir, and the port. */
export interface DemoPlaces {
  port: number;
  dataDir: string;
  musicDir: string;
  downloadsDir: string;
}

export const DEMO_NOTICE =
  'Demo: MusicBrainz, the Cover Art Archive, ListenBrainz, Deezer and Soulseek (slskd) here are local fakes on 127.0.0.1 ' +
  'with invented artists and albums. Nothing leaves this machine. Stop it with Ctrl+C; npm run demo -- --fresh starts over.';

/**
 * The config of a demo instance: every service at its fake, the three built-in sources (run by hand, so a person
 * sees each one work), slskd downloads into the demo dir, and a notice on every page saying what is fake.
 */
export function demoConfig(urls: DemoWorldUrls, places: DemoPlaces): Record<string, unknown> {
  return {
    server: { host: '127.0.0.1', port: places.port },
    storage: { dir: places.dataDir },
    // The demo prints where to go; warnings and errors still show.
    log: { level: 'warn' },
    ui: { notice: DEMO_NOTICE },
    download_client: {
      type: 'slskd',
      url: urls.slskd,
      api_key: DEMO_SLSKD_API_KEY,
      downloads_dir: places.downloadsDir,
      poll_interval: '2s',
      // The fake network answers at once; Soulseek itself needs the defaults (10 s between searches).
      search: { search_timeout_ms: 1000, min_interval_ms: 1000 },
    },
    library: { type: 'filesystem', path: places.musicDir },
    previews: { type: 'deezer', url: urls.deezer, preview_origins: [urls.deezerCdn] },
    metadata: {
      musicbrainz: { url: urls.musicbrainz, request_interval_ms: 60 },
      coverartarchive: { url: urls.coverArtArchive },
    },
    sources: [
      { name: 'listening', type: 'listenbrainz-recommendations', user: DEMO_LISTENBRAINZ_USER, listenbrainz_url: urls.listenbrainz, schedule: 'manual' },
      {
        name: 'similar', type: 'similar-artists', listenbrainz_url: urls.listenbrainz, listenbrainz_labs_url: urls.listenbrainzLabs, schedule: 'manual',
      },
      // The invented catalogue's newest albums are a few years old: "new" reaches back ten years here.
      { name: 'new-releases', type: 'new-releases', first_run_days: 3650, schedule: 'manual' },
    ],
  };
}
