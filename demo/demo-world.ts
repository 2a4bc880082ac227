import { startFakeCoverArtArchive } from '../test/fakes/fake-cover-art-archive.js';
import { startFakeDeezer } from '../test/fakes/fake-deezer.js';
import { startFakeListenBrainz } from '../test/fakes/fake-listenbrainz.js';
import { startFakeMusicBrainz } from '../test/fakes/fake-musicbrainz.js';
import { startFakeSlskd, type FakeSlskdPeer } from '../test/fakes/fake-slskd.js';
import { listenBrainzUsers } from '../test/fakes/listenbrainz-users.js';
import { generateMusicBrainzCatalogue, type MbReleaseGroup, type MusicBrainzCatalogue } from '../test/fakes/musicbrainz-catalogue.js';

/** The ListenBrainz account of the demo: the fake's user with recommendations and top artists. */
export const DEMO_LISTENBRAINZ_USER = 'rob';
export const DEMO_SLSKD_API_KEY = 'demo-slskd-api-key-0000';

/** Where each fake listens, for the config and for `npm run fakes` to print. */
export interface DemoWorldUrls {
  musicbrainz: string;
  coverArtArchive: string;
  listenbrainz: string;
  listenbrainzLabs: string;
  deezer: string;
  deezerCdn: string;
  slskd: string;
}

export interface DemoWorld {
  readonly urls: DemoWorldUrls;
  readonly catalogue: MusicBrainzCatalogue;
  close(): Promise<void>;
}

/**
 * The services Crateflow talks to, as the project's own test fakes on loopback, over one invented catalogue: a
 * person can try discovery, covers, previews, approvals and downloads with no account anywhere and nothing sent off
 * this machine. The fakes keep their quirks (rate limits, slskd's races, expiring preview links) as in the tests,
 * so the demo also shows how Crateflow copes with them.
 */
export async function startDemoWorld(options: { downloadsDir: string }): Promise<DemoWorld> {
  const catalogue = generateMusicBrainzCatalogue({ artists: 8, releaseGroupsPerArtist: 16, prolificReleaseGroups: 24 });
  const started: { close(): Promise<void> }[] = [];
  try {
    // musicbrainz.org allows one request a second; the demo's MusicBrainz allows 20 so a first run takes seconds, and
    // the config paces Crateflow under it (the 503 past the limit stays on, as on the real one).
    const musicbrainz = await startFakeMusicBrainz({ catalogue, rateLimit: { perSecond: 20, burst: 5 } });
    started.push(musicbrainz);
    const coverArt = await startFakeCoverArtArchive({ catalogue });
    started.push(coverArt);
    const listenbrainz = await startFakeListenBrainz({ catalogue, users: listenBrainzUsers(catalogue) });
    started.push(listenbrainz);
    const deezer = await startFakeDeezer({ catalogue });
    started.push(deezer);
    const slskd = await startFakeSlskd({ downloadsDir: options.downloadsDir, apiKey: DEMO_SLSKD_API_KEY, peers: peersSharing(catalogue) });
    started.push(slskd);
    return {
      catalogue,
      urls: {
        musicbrainz: musicbrainz.url,
        coverArtArchive: coverArt.url,
        listenbrainz: listenbrainz.url,
        listenbrainzLabs: listenbrainz.labsUrl,
        deezer: deezer.url,
        deezerCdn: deezer.cdnUrl,
        slskd: slskd.url,
      },
      close: () => closeAll(started),
    };
  } catch (err: unknown) {
    await closeAll(started);
    throw err;
  }
}

async function closeAll(servers: readonly { close(): Promise<void> }[]): Promise<void> {
  await Promise.all(servers.map((server) => server.close()));
}

/**
 * One Soulseek peer per studio album of the catalogue, sharing it as a FLAC folder the way people do
 * (`@@share\Music\Artist\Album (Year)\01 - Title.flac`), so every album the demo proposes can be downloaded.
 */
function peersSharing(catalogue: MusicBrainzCatalogue): FakeSlskdPeer[] {
  return catalogue.releaseGroups
    .filter((group) => group.primaryType === 'Album' && group.secondaryTypes.length === 0)
    .map((group, index) => ({
      username: `demo-peer-${index + 1}`,
      hasFreeUploadSlot: true,
      uploadSpeed: 2_000_000,
      files: tracksOf(catalogue, group).map((title, track) => ({
        filename: `@@share${index}\\Music\\${creditOf(group)}\\${group.title}${yearOf(group)}\\${String(track + 1).padStart(2, '0')} - ${safeFileName(title)}.flac`,
        // Small files: a demo fills no disk. Real sizes would be ~30 MB a track.
        size: 64 * 1024,
        bitDepth: 16,
        sampleRate: 44_100,
        length: 180,
      })),
    }));
}

function tracksOf(catalogue: MusicBrainzCatalogue, group: MbReleaseGroup): string[] {
  const releases = new Set(group.releases.map((release) => release.id));
  const titles = catalogue.recordings.filter((recording) => recording.releaseIds.some((id) => releases.has(id))).map((recording) => recording.title);
  return titles.length > 0 ? titles : [group.title];
}

function creditOf(group: MbReleaseGroup): string {
  return safeFileName(group.credit.map((credit) => credit.name + credit.joinphrase).join(''));
}

function yearOf(group: MbReleaseGroup): string {
  const year = group.firstReleaseDate.slice(0, 4);
  return year ? ` (${year})` : '';
}

/** Soulseek paths are Windows-like: no separators or reserved characters inside a name. */
function safeFileName(name: string): string {
  return name.replace(/[\\/:*?"<>|]/g, '_');
}
