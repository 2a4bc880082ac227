import type { RecordingReleaseGroups, ReleaseGroup } from '@crateflow/sdk';

/** The album a recommended recording stands for, kept in the cursor (plain JSON). */
export interface RecordingAlbum {
  readonly mbid: string;
  readonly title: string;
  readonly artist: string;
  readonly artists: { mbid: string; name: string }[];
  readonly year: number | null;
  readonly recording: string;
  /**
   * The recording's MBID as MusicBrainz answered it: for a merged recording, the one that absorbed it, so the old and
   * the new MBID in one list count as one track. Absent in runs stored before it was kept.
   */
  readonly recordingMbid?: string;
}

/**
 * The release group to propose for a recording: an album (primary type Album), by default without secondary types
 * (a track that also sits on a compilation or a live album stands for its studio album, also when secondary
 * types are included), the earliest released first (shared/reference/musicbrainz-api.md §6.1). Undefined when the recording is only on singles, EPs or, with
 * secondary types excluded, only on compilations.
 */
export function albumOfRecording(recording: RecordingReleaseGroups, includeSecondaryTypes: boolean): RecordingAlbum | undefined {
  const albums = recording.releaseGroups
    .filter((group) => group.primaryType === 'Album' && (includeSecondaryTypes || group.secondaryTypes.length === 0))
    // A studio album before a compilation or live album holding the same track, then the earliest.
    .sort((a, b) => Number(a.secondaryTypes.length > 0) - Number(b.secondaryTypes.length > 0) || byFirstRelease(a, b));
  const album = albums[0];
  if (!album) return undefined;
  return {
    mbid: album.mbid.toLowerCase(),
    title: album.title,
    artist: album.artistCredit || recording.artistCredit,
    artists: album.artists.map((artist) => ({ mbid: artist.mbid, name: artist.name })),
    year: yearOf(album.firstReleaseDate),
    recording: recording.title,
    recordingMbid: recording.mbid.toLowerCase(),
  };
}

/** Earliest first; an unknown date last (`~` sorts after every digit). */
function byFirstRelease(a: ReleaseGroup, b: ReleaseGroup): number {
  const left = a.firstReleaseDate ?? '~';
  const right = b.firstReleaseDate ?? '~';
  return left < right ? -1 : left > right ? 1 : 0;
}

function yearOf(date: string | undefined): number | null {
  const year = Number(date?.slice(0, 4));
  return date && Number.isInteger(year) ? year : null;
}
