import { createHash } from 'node:crypto';

/**
 * A deterministic MusicBrainz catalogue for the MusicBrainz, Cover Art Archive and ListenBrainz fakes. The same
 * options always give the same names and MBIDs, so a test computes what the fakes "contain" instead of storing
 * fixtures. The shapes it exercises on purpose come from shared/reference/musicbrainz-api.md §5 and §7.
 */
export interface MbArtist {
  readonly id: string;
  readonly name: string;
  readonly sortName: string;
  readonly disambiguation: string;
  readonly type: 'Group' | 'Person';
  /** Absent when unknown; search hits then omit it (§6.5). */
  readonly country?: string;
}

export interface MbCredit {
  readonly name: string;
  readonly joinphrase: string;
  readonly artist: MbArtist;
}

export interface MbRelease {
  readonly id: string;
  readonly title: string;
  readonly status: 'Official' | 'Promotion' | null;
  /** Absent for a release without events. */
  readonly date?: string;
  readonly country?: string;
  readonly releaseGroupId: string;
}

export interface MbReleaseGroup {
  readonly id: string;
  readonly title: string;
  readonly primaryType: 'Album' | 'EP' | 'Single' | null;
  readonly secondaryTypes: readonly string[];
  /** `"1997"`, `"1997-06"`, `"1997-06-16"` or `""` (§5). */
  readonly firstReleaseDate: string;
  readonly disambiguation: string;
  readonly credit: readonly MbCredit[];
  readonly releases: readonly MbRelease[];
}

export interface MbRecording {
  readonly id: string;
  readonly title: string;
  readonly length: number | null;
  /** Omitted when unknown, unlike on release groups (§7). */
  readonly firstReleaseDate?: string;
  readonly credit: readonly MbCredit[];
  /** Releases the recording appears on, possibly across several release groups (album and compilation). */
  readonly releaseIds: readonly string[];
}

export interface MusicBrainzCatalogue {
  readonly artists: readonly MbArtist[];
  readonly releaseGroups: readonly MbReleaseGroup[];
  readonly recordings: readonly MbRecording[];
  /** Merged MBIDs: old id → the id of the entity that absorbed it (§3: the target is answered). */
  readonly redirects: ReadonlyMap<string, string>;
  artist(id: string): MbArtist | undefined;
  releaseGroup(id: string): MbReleaseGroup | undefined;
  release(id: string): MbRelease | undefined;
  recording(id: string): MbRecording | undefined;
  /** Release groups whose credit names the artist anywhere (collaborations included, §6.2). */
  releaseGroupsOf(artistId: string): MbReleaseGroup[];
}

export interface MusicBrainzCatalogueOptions {
  /** Changes every generated value while staying deterministic (default 1). */
  readonly seed?: number;
  /** Artists besides the namesake (default 4). */
  readonly artists?: number;
  /** Release groups per artist (default 12). */
  readonly releaseGroupsPerArtist?: number;
  /** Release groups of the first artist, more than one browse page of 100 (default 130). */
  readonly prolificReleaseGroups?: number;
}

/**
 * Names as MusicBrainz writes them, where a library's tags usually have ' and -: the apostrophe ’ (U+2019) is the
 * one MusicBrainz's style guide prefers (musicbrainz.org/doc/Style/Miscellaneous, cited by Lidarr/Lidarr #586;
 * "Guns N’ Roses" in rembo10/headphones #2215) and names and titles carry the hyphen ‐ (U+2010): "EL‐P"
 * (rembo10/headphones #3005), "Semi‐Charmed Life" (beetbox/beets #2839), "Anne‐Marie" (kellnerd/harmony #191).
 * Accents and letters such as Ø stay as released. The first four artists of the default catalogue carry all three.
 */
const NAMES = ['Amber Foxes', 'Velvet Harbors', 'Ørsted’s Pilots', 'Hi‐Fi Señores', 'Quiet Engines', 'Paper Saints',
  'Tidal Mirrors', 'Golden Kites', 'Café Wolves', 'Lunar Needles'];
const WORDS = ['Endless', 'Broken', 'Bright', 'Cold', 'Half‐Lit', 'Gentle', 'Don’t', 'Lost', 'Modern', 'Secret',
  'Summer', 'Light', 'Signals', 'Gardens', 'Letters', 'Machines', 'Nights', 'Rooms', 'Streets', 'Waves'];
/** Primary type and secondary types in turn: plain albums, an EP, a single, and the shapes clients trip on. */
const SHAPES: { primary: MbReleaseGroup['primaryType']; secondary: string[] }[] = [
  { primary: 'Album', secondary: [] },
  { primary: 'Album', secondary: [] },
  { primary: 'EP', secondary: [] },
  { primary: 'Single', secondary: [] },
  { primary: 'Album', secondary: ['Compilation'] },
  { primary: 'Album', secondary: ['Live'] },
  { primary: null, secondary: [] },
  { primary: 'Album', secondary: ['Soundtrack', 'Remix'] },
];

/** A stable lower-case UUID from a label, so ids never change between runs. */
export function fakeMbid(seed: number, label: string): string {
  const hex = createHash('sha1').update(`${seed}:${label}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export function generateMusicBrainzCatalogue(options: MusicBrainzCatalogueOptions = {}): MusicBrainzCatalogue {
  const seed = options.seed ?? 1;
  const perArtist = options.releaseGroupsPerArtist ?? 12;
  const artists: MbArtist[] = [];
  for (let a = 0; a < (options.artists ?? 4); a++) {
    // Past the ten names, a numeral keeps names unique (a large library has no accidental namesakes).
    const base = NAMES[(a + seed) % NAMES.length] ?? 'Nobody';
    const name = a < NAMES.length ? base : `${base} ${Math.floor(a / NAMES.length) + 1}`;
    artists.push({ id: fakeMbid(seed, `artist ${a}`), name, sortName: name, disambiguation: '', type: a % 2 ? 'Person' : 'Group', ...(a % 3 ? { country: 'GB' } : {}) });
  }
  const first = artists[0];
  if (!first) throw new Error('a catalogue needs at least one artist');
  // A namesake of the first artist: a bare name search ranks it level with the real one (§6.5, headphones #833).
  artists.push({ id: fakeMbid(seed, 'namesake'), name: first.name, sortName: first.sortName, disambiguation: 'namesake', type: 'Person' });

  const releaseGroups: MbReleaseGroup[] = [];
  const recordings: MbRecording[] = [];
  const creditOf = (artist: MbArtist, joinphrase = ''): MbCredit => ({ name: artist.name, joinphrase, artist });
  artists.slice(0, -1).forEach((artist, a) => {
    const count = a === 0 ? (options.prolificReleaseGroups ?? 130) : perArtist;
    const guest = artists[(a + 1) % (artists.length - 1)];
    for (let i = 0; i < count; i++) {
      const shape = SHAPES[i % SHAPES.length] ?? { primary: 'Album', secondary: [] };
      const year = 1990 + ((i * 7 + a) % 35);
      const dates = [`${year}-0${1 + (i % 9)}-1${i % 10}`, `${year}-1${i % 3}`, `${year}`, ''];
      const id = fakeMbid(seed, `rg ${a} ${i}`);
      const title = i === 1 ? `Songs: "${WORDS[(a + i) % WORDS.length]}"` : `${WORDS[(a * 3 + i) % WORDS.length]} ${WORDS[(i * 7 + a + 10) % WORDS.length]}${i >= WORDS.length ? ` ${i}` : ''}`;
      // Every tenth group is a collaboration, so it shows up in the guest's browse too.
      const credit = i % 10 === 9 && guest ? [creditOf(artist, ' & '), creditOf(guest)] : [creditOf(artist)];
      // One group has 27 releases, past the 25 an `inc=releases` lists (§4).
      const releaseCount = a === 1 && i === 0 ? 27 : 1 + (i % 3);
      const releases: MbRelease[] = [];
      for (let r = 0; r < releaseCount; r++) {
        const date = dates[i % dates.length] ?? '';
        releases.push({
          id: fakeMbid(seed, `release ${a} ${i} ${r}`), title, status: r === 2 ? 'Promotion' : i % 11 === 5 ? null : 'Official',
          releaseGroupId: id, ...(date ? { date, country: r % 2 ? 'US' : 'GB' } : {}),
        });
      }
      releaseGroups.push({
        id, title, primaryType: shape.primary, secondaryTypes: shape.secondary, firstReleaseDate: dates[i % dates.length] ?? '',
        disambiguation: i === 3 ? 'radio edit' : '', credit, releases,
      });
    }
  });
  // Two recordings per group; the first album's tracks also appear on the artist's compilation (§6.1).
  for (const group of releaseGroups) {
    for (let t = 0; t < 2; t++) {
      const compilation = t === 0 && group.primaryType === 'Album' && group.secondaryTypes.length === 0
        ? releaseGroups.find((other) => other.credit[0]?.artist.id === group.credit[0]?.artist.id && other.secondaryTypes.includes('Compilation'))
        : undefined;
      recordings.push({
        id: fakeMbid(seed, `recording ${group.id} ${t}`), title: `${group.title} (track ${t + 1})`, length: t === 1 ? null : 180_000 + t * 1000,
        ...(group.firstReleaseDate ? { firstReleaseDate: group.firstReleaseDate } : {}), credit: group.credit,
        releaseIds: [...group.releases, ...(compilation?.releases.slice(0, 1) ?? [])].map((release) => release.id),
      });
    }
  }
  const firstGroup = releaseGroups[0];
  const redirects = new Map<string, string>([[fakeMbid(seed, 'merged artist'), first.id]]);
  if (firstGroup) redirects.set(fakeMbid(seed, 'merged rg'), firstGroup.id);
  // A merged recording, the first track of the last studio album: ListenBrainz still recommends it by its old MBID
  // (listenbrainz-users.ts says why).
  const lastStudioAlbum = [...releaseGroups].reverse().find((group) => group.primaryType === 'Album' && group.secondaryTypes.length === 0);
  if (lastStudioAlbum) redirects.set(fakeMbid(seed, 'merged recording'), fakeMbid(seed, `recording ${lastStudioAlbum.id} 0`));
  return indexCatalogue(artists, releaseGroups, recordings, redirects);
}

function indexCatalogue(artists: MbArtist[], releaseGroups: MbReleaseGroup[], recordings: MbRecording[], redirects: Map<string, string>): MusicBrainzCatalogue {
  const byId = <T extends { id: string }>(items: readonly T[]) => new Map(items.map((item) => [item.id, item]));
  const artistIndex = byId(artists);
  const groupIndex = byId(releaseGroups);
  const releaseIndex = byId(releaseGroups.flatMap((group) => group.releases));
  const recordingIndex = byId(recordings);
  const resolve = (id: string) => redirects.get(id) ?? id;
  return {
    artists, releaseGroups, recordings, redirects,
    artist: (id) => artistIndex.get(resolve(id)),
    releaseGroup: (id) => groupIndex.get(resolve(id)),
    release: (id) => releaseIndex.get(id),
    recording: (id) => recordingIndex.get(resolve(id)),
    releaseGroupsOf: (artistId) => releaseGroups.filter((group) => group.credit.some((credit) => credit.artist.id === artistId)),
  };
}
