import type { Clock } from '@crateflow/sdk';
import { startFakeCoverArtArchive, type FakeCoverArtArchive } from '../../fakes/fake-cover-art-archive.js';
import { startFakeMusicBrainz, type FakeMusicBrainz } from '../../fakes/fake-musicbrainz.js';
import { fakeMbid, generateMusicBrainzCatalogue, type MbReleaseGroup, type MusicBrainzCatalogue } from '../../fakes/musicbrainz-catalogue.js';
import { startApp, type StartedApp } from '../../helpers/start-app.js';

export interface MetadataSetup {
  readonly app: StartedApp;
  readonly musicbrainz: FakeMusicBrainz;
  readonly coverArt: FakeCoverArtArchive;
  readonly catalogue: MusicBrainzCatalogue;
  /** A plain album (one ASCII-named artist, a title no other group contains, a first release date): a confident match. */
  readonly album: MbReleaseGroup;
  /** An album MusicBrainz has twice under the same artist and title (a re-recorded self-titled album, say). */
  readonly twin: MbReleaseGroup;
}

export interface MetadataSetupOptions {
  /** Leave `metadata.contact` unset, as on a fresh install (the User-Agent then names only the project). */
  readonly withoutContact?: boolean;
  readonly clock?: Clock;
  /** More config (not `metadata`: see below). */
  readonly config?: Record<string, unknown>;
  /** Keys of `metadata.musicbrainz` and `metadata.coverartarchive` over the ones that point at the fakes. */
  readonly metadata?: { musicbrainz?: Record<string, unknown>; coverartarchive?: Record<string, unknown> };
  /** Data dir to reuse (a restart); default a new temp dir. */
  readonly dataDir?: string;
}

/**
 * A Crateflow wired to the MusicBrainz and Cover Art Archive fakes (real HTTP servers on loopback, the fake's rate
 * limit and load shedding off and Crateflow's pacing at 0 ms, which config allows for hosts other than musicbrainz.org).
 */
export async function startMetadataApp(owner: { after(fn: () => Promise<unknown>): void }, options: MetadataSetupOptions = {}): Promise<MetadataSetup> {
  const catalogue = catalogueWithTwin();
  // No load shedding: these apps often run on a manual clock that moves only when a test says, where a shed
  // request's backoff would never end; the client's retry of shed requests is tested in musicbrainz-client.test.ts.
  const musicbrainz = await startFakeMusicBrainz({ catalogue, rateLimit: false, loadShedding: false });
  const coverArt = await startFakeCoverArtArchive({ catalogue });
  owner.after(() => Promise.all([musicbrainz.close(), coverArt.close()]));
  const app = await startApp({
    ...(options.clock ? { clock: options.clock } : {}),
    config: {
      ...options.config,
      ...(options.dataDir ? { storage: { dir: options.dataDir } } : {}),
      metadata: {
        ...(options.withoutContact ? {} : { contact: 'crateflow-tests@example.org' }),
        musicbrainz: { url: musicbrainz.url, request_interval_ms: 0, ...options.metadata?.musicbrainz },
        coverartarchive: { url: coverArt.url, ...options.metadata?.coverartarchive },
      },
    },
  });
  owner.after(() => app.close());
  const album = confidentAlbum(catalogue);
  const twin = catalogue.releaseGroups.at(-1);
  if (!twin) throw new Error('the catalogue has no twin');
  return { app, musicbrainz, coverArt, catalogue, album, twin };
}

const isPlainAlbum = (group: MbReleaseGroup): boolean =>
  group.primaryType === 'Album' && group.secondaryTypes.length === 0 && group.credit.length === 1 &&
  /^[A-Za-z ]+$/.test(`${group.credit[0]?.artist.name ?? ''}${group.title}`) && /^\d{4}/.test(group.firstReleaseDate);

/** The generated catalogue plus a second group with the title and credit of one of the fourth artist's albums. */
function catalogueWithTwin(): MusicBrainzCatalogue {
  const base = generateMusicBrainzCatalogue();
  const artist = base.artists[3];
  const original = base.releaseGroups.find((group) => group.credit[0]?.artist.id === artist?.id && isPlainAlbum(group) && unique(base, group));
  if (!original) throw new Error('the generated catalogue has no album to twin');
  const id = fakeMbid(1, 'twin album');
  const twin: MbReleaseGroup = {
    ...original, id, firstReleaseDate: '2021',
    releases: original.releases.map((release, index) => ({ ...release, id: fakeMbid(1, `twin release ${index}`), releaseGroupId: id })),
  };
  const releases = new Map(twin.releases.map((release) => [release.id, release]));
  return {
    ...base,
    releaseGroups: [...base.releaseGroups, twin],
    releaseGroup: (groupId) => (groupId === id ? twin : base.releaseGroup(groupId)),
    release: (releaseId) => releases.get(releaseId) ?? base.release(releaseId),
    releaseGroupsOf: (artistId) => [...base.releaseGroupsOf(artistId), ...(twin.credit.some((credit) => credit.artist.id === artistId) ? [twin] : [])],
  };
}

/** No other group of the same artist has a title containing this one's, so the fake scores only this one 100 for it. */
function unique(catalogue: MusicBrainzCatalogue, group: MbReleaseGroup): boolean {
  const title = group.title.toLowerCase();
  const artist = group.credit[0]?.artist.id;
  return catalogue.releaseGroups.every((other) =>
    other.id === group.id || !other.credit.some((credit) => credit.artist.id === artist) || !other.title.toLowerCase().includes(title));
}

function confidentAlbum(catalogue: MusicBrainzCatalogue): MbReleaseGroup {
  const twinTitles = new Set(catalogue.releaseGroups.slice(-1).map((group) => group.title));
  const album = catalogue.releaseGroups.find((group) => isPlainAlbum(group) && unique(catalogue, group) && !twinTitles.has(group.title) && group.credit[0]?.artist.name !== catalogue.artists[0]?.name);
  if (!album) throw new Error('the generated catalogue has no plain album');
  return album;
}

/** The year a release group's first release date gives. */
export function yearOf(group: MbReleaseGroup): number {
  return Number(group.firstReleaseDate.slice(0, 4));
}

/** The printed artist credit of a group. */
export function creditOf(group: MbReleaseGroup): string {
  return group.credit.map((part) => part.name + part.joinphrase).join('');
}
