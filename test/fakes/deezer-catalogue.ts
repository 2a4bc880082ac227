import type { MusicBrainzCatalogue } from './musicbrainz-catalogue.js';

/** Deezer's view of the generated catalogue: numeric ids, `record_type`, track lists (shared/reference/deezer-api.md). */
export interface DeezerArtist {
  readonly id: number;
  readonly name: string;
}

export interface DeezerTrack {
  readonly id: number;
  readonly title: string;
  /** Seconds. */
  readonly duration: number;
  /** Whether a preview is licensed; when not, `preview` is `""` (§6). */
  readonly previewable: boolean;
  /** `title_version` is missing from some track objects entirely (§4); undefined here means "leave the key out". */
  readonly titleVersion: string | undefined;
  /** `disk_number`: 1 unless the album has several discs. */
  readonly disk: number;
  /** `track_position`: the place on its disc, starting at 1 again on every disc. */
  readonly position: number;
}

export interface DeezerAlbum {
  readonly id: number;
  readonly title: string;
  readonly recordType: 'album' | 'ep' | 'single' | 'compile';
  /** The one artist Deezer files the album under: the lead of a collaboration. */
  readonly artist: DeezerArtist;
  /** Every credited artist (role Main), the lead first: only `/album/{id}` lists them. */
  readonly contributors: readonly DeezerArtist[];
  /** `explicit_lyrics`: the explicit and the clean edition of one record are two albums of the same title. */
  readonly explicit: boolean;
  readonly releaseDate: string;
  readonly md5Image: string;
  /** Ranking weight: compilations and live editions outrank the original (§3.1). */
  readonly popularity: number;
  readonly tracks: readonly DeezerTrack[];
}

/**
 * One Deezer album per MusicBrainz release group with a primary type, as the real Deezer shows it, plus the
 * albums that make a search harder (all kept after the per-group albums, so their order stays):
 * - a collaboration is filed under its lead artist only; the others appear in the album's `contributors`, which
 *   only `/album/{id}` carries (browniebroke/deezer-python #420: "an album has a single artist", the rest are
 *   in `contributors`; zaosoula/deezer-public-api #47: search results have no `contributors`;
 *   murdos/musicbrainz-userscripts #1095, #569: Deezer albums of two artists credit only the primary);
 * - tracks carry `track_position`, which restarts on every disc, and `disk_number` (the album-track models of
 *   MiniMediaScanner read both from `/album/{id}/tracks`); one album (TWO_DISCS) has two discs of 9 and 8 tracks;
 * - editions are separate albums: one album (EDITIONS) also comes as a louder "(Deluxe Edition)" with bonus
 *   tracks and as a clean edition of the same title that ranks above the explicit one (V1ck3s/octo-fiesta #22:
 *   Deezer lists albums twice, clean and explicit; RemixDev/DRemixIssues #121: the clean one often ranks higher);
 * - titles carry labels: one album (REMASTERED) is only on Deezer as "… (Remastered)" (§3.1: remasters);
 * - a same-named album by another artist outranks the real one: a namesake of the lead artist (another Deezer
 *   artist id) has an album named like the first collaboration, and "Velvet Choir" one named like the two-disc album
 *   (§3.1: an advanced query still returns other artists; ranking is by popularity);
 * - a tribute album by another artist whose title names the first artist (§3.1). The first album has 30 tracks,
 *   past the 25 that `/album/{id}` embeds (§4).
 */
export function deezerAlbumsOf(catalogue: MusicBrainzCatalogue): DeezerAlbum[] {
  const artistIds = new Map(catalogue.artists.map((artist, index) => [artist.id, 27 + index]));
  const albums: DeezerAlbum[] = [];
  const extras: DeezerAlbum[] = [];
  catalogue.releaseGroups.forEach((group, index) => {
    const lead = group.credit[0]?.artist;
    if (!group.primaryType || !lead) return;
    const id = 302_127 + index;
    const compilation = group.secondaryTypes.includes('Compilation');
    const trackCount = index === 0 ? 30 : index === TWO_DISCS ? 17 : 4 + (index % 9);
    const contributors = group.credit.map((part) => ({ id: artistIds.get(part.artist.id) ?? 0, name: part.artist.name }));
    const album: DeezerAlbum = {
      id, title: index === REMASTERED ? `${group.title} (Remastered)` : group.title, artist: contributors[0] ?? { id: 0, name: lead.name }, contributors,
      recordType: compilation ? 'compile' : group.primaryType === 'EP' ? 'ep' : group.primaryType === 'Single' ? 'single' : 'album',
      explicit: index === EDITIONS, releaseDate: group.firstReleaseDate.length === 10 ? group.firstReleaseDate : '2001-03-07',
      md5Image: id.toString(16).padStart(32, '0'), popularity: compilation || group.secondaryTypes.includes('Live') ? 900 : 500 - (index % 50),
      tracks: Array.from({ length: trackCount }, (_, n) => {
        const disk = index === TWO_DISCS && n >= 9 ? 2 : 1;
        return {
          id: id * 100 + n + 1, title: `${group.title} (track ${n + 1})`, duration: 180 + n * 7,
          previewable: (index + n) % 7 !== 6, titleVersion: n % 5 === 4 ? undefined : '', disk, position: disk === 2 ? n - 8 : n + 1,
        };
      }),
    };
    albums.push(album);
    if (index === EDITIONS) extras.push(...editionsOf(album));
    if (index === TWO_DISCS) extras.push(sameNamed(album, { id: 5_000_002, name: 'Velvet Choir' }, 9_000_004));
    if (group.credit.length > 1 && !extras.some((extra) => extra.id === 9_000_005)) {
      const namesake = catalogue.artists.find((artist) => artist.id !== lead.id && artist.name === lead.name);
      if (namesake) extras.push(sameNamed(album, { id: artistIds.get(namesake.id) ?? 5_000_003, name: namesake.name }, 9_000_005));
    }
  });
  const first = albums[0];
  if (first) {
    albums.push({ ...first, id: 9_000_001, title: `${first.artist.name} Epilogue`, recordType: 'album', artist: { id: 5_000_000, name: 'Tribute Ensemble' },
      contributors: [{ id: 5_000_000, name: 'Tribute Ensemble' }], popularity: 950, tracks: first.tracks.slice(0, 3).map((track) => ({ ...track, id: track.id + 900_000_000 })) });
  }
  return [...albums, ...extras];
}

// Release-group indexes (groups without a primary type have no album, so album indexes differ).
const TWO_DISCS = 7;
const EDITIONS = 8;
const REMASTERED = 15;

/** A deluxe edition with four bonus tracks, and a clean edition; both rank above the original. */
function editionsOf(album: DeezerAlbum): DeezerAlbum[] {
  const copyTracks = (offset: number, count: number) => Array.from({ length: count }, (_, n) => {
    const source = album.tracks[n % album.tracks.length];
    return { ...(source ?? { duration: 200, previewable: true, titleVersion: '' }), id: (album.id + offset) * 100 + n + 1, title: source && n < album.tracks.length ? source.title : `${album.title} (bonus ${n + 1})`, disk: 1, position: n + 1 };
  });
  return [
    { ...album, id: 9_000_002, title: `${album.title} (Deluxe Edition)`, popularity: 960, tracks: copyTracks(8_000_000, album.tracks.length + 4) },
    { ...album, id: 9_000_003, explicit: false, popularity: 955, tracks: copyTracks(9_000_000, album.tracks.length) },
  ];
}

/** An album by another artist with the same title, more popular than the original. */
function sameNamed(album: DeezerAlbum, artist: DeezerArtist, id: number): DeezerAlbum {
  return { ...album, id, artist, contributors: [artist], popularity: 970, tracks: album.tracks.slice(0, 2).map((track) => ({ ...track, id: id * 100 + track.position })) };
}
