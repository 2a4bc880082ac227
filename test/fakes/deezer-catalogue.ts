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
}

export interface DeezerAlbum {
  readonly id: number;
  readonly title: string;
  readonly recordType: 'album' | 'ep' | 'single' | 'compile';
  readonly artist: DeezerArtist;
  readonly releaseDate: string;
  readonly md5Image: string;
  /** Ranking weight: compilations and live editions outrank the original (§3.1). */
  readonly popularity: number;
  readonly tracks: readonly DeezerTrack[];
}

/**
 * One Deezer album per MusicBrainz release group with a primary type, plus a tribute album by another artist whose
 * title names the first artist, so an artist search also finds someone else (§3.1). The first album has 30 tracks,
 * past the 25 that `/album/{id}` embeds (§4).
 */
export function deezerAlbumsOf(catalogue: MusicBrainzCatalogue): DeezerAlbum[] {
  const artistIds = new Map(catalogue.artists.map((artist, index) => [artist.id, 27 + index]));
  const albums: DeezerAlbum[] = [];
  catalogue.releaseGroups.forEach((group, index) => {
    const lead = group.credit[0]?.artist;
    if (!group.primaryType || !lead) return;
    const id = 302_127 + index;
    const compilation = group.secondaryTypes.includes('Compilation');
    const trackCount = index === 0 ? 30 : 4 + (index % 9);
    albums.push({
      id, title: group.title, artist: { id: artistIds.get(lead.id) ?? 0, name: group.credit.map((part) => part.name + part.joinphrase).join('') },
      recordType: compilation ? 'compile' : group.primaryType === 'EP' ? 'ep' : group.primaryType === 'Single' ? 'single' : 'album',
      releaseDate: group.firstReleaseDate.length === 10 ? group.firstReleaseDate : '2001-03-07',
      md5Image: id.toString(16).padStart(32, '0'), popularity: compilation || group.secondaryTypes.includes('Live') ? 900 : 500 - (index % 50),
      tracks: Array.from({ length: trackCount }, (_, n) => ({
        id: id * 100 + n + 1, title: `${group.title} (track ${n + 1})`, duration: 180 + n * 7,
        previewable: (index + n) % 7 !== 6, titleVersion: n % 5 === 4 ? undefined : '',
      })),
    });
  });
  const first = albums[0];
  if (first) {
    albums.push({ ...first, id: 9_000_001, title: `${first.artist.name} Epilogue`, recordType: 'album', artist: { id: 5_000_000, name: 'Tribute Ensemble' },
      popularity: 950, tracks: first.tracks.slice(0, 3).map((track) => ({ ...track, id: track.id + 900_000_000 })) });
  }
  return albums;
}
