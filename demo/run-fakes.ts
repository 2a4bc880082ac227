import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_LISTENBRAINZ_USER, DEMO_SLSKD_API_KEY, startDemoWorld } from './demo-world.js';

/**
 * `npm run fakes`: the demo's fakes alone, on loopback, until Ctrl+C: point a Crateflow of your own (or a plugin
 * under development) at them. slskd's finished downloads go to a temp folder, removed at exit.
 */
export async function runFakes(argv: readonly string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write('Usage: npm run fakes\n\nStarts the fake MusicBrainz, Cover Art Archive, ListenBrainz, Deezer and slskd of the demo on 127.0.0.1 and prints their addresses.\n');
    return 0;
  }
  const unknown = argv.find((arg) => arg !== '--help' && arg !== '-h');
  if (unknown !== undefined) {
    process.stderr.write(`unknown option ${unknown}\n`);
    return 2;
  }
  const downloadsDir = await mkdtemp(join(tmpdir(), 'crateflow-fakes-'));
  const world = await startDemoWorld({ downloadsDir });
  const { urls } = world;
  process.stdout.write(`Fakes on loopback (Ctrl+C stops them):
  MusicBrainz        ${urls.musicbrainz}          metadata.musicbrainz.url
  Cover Art Archive  ${urls.coverArtArchive}          metadata.coverartarchive.url
  ListenBrainz       ${urls.listenbrainz}          listenbrainz_url (user "${DEMO_LISTENBRAINZ_USER}")
  ListenBrainz Labs  ${urls.listenbrainzLabs}          listenbrainz_labs_url
  Deezer             ${urls.deezer}          previews.url (preview_origins: [${urls.deezerCdn}])
  slskd              ${urls.slskd}          download_client.url (api_key: ${DEMO_SLSKD_API_KEY}, downloads_dir: ${downloadsDir})
`);
  await new Promise<void>((stop) => {
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await world.close();
  await rm(downloadsDir, { recursive: true, force: true });
  return 0;
}
