import type { RecordingAlbum } from './album-of-recording.js';

/** One album and the recommended recordings that point at it. */
export interface AlbumTally {
  readonly album: RecordingAlbum;
  /** Sum of the recordings' rank weights; only its ratio to the run's best matters. */
  readonly weight: number;
  readonly recordings: string[];
}

/**
 * Groups recordings by album, best album first. Each recording weighs by its rank in the list, (N − rank) / N:
 * the raw ALS scores are on no fixed scale and may be negative (shared/reference/listenbrainz-api.md §3.1, §5), the
 * order is what they mean. So several recommended tracks on one album make it outrank an album with one. A recording
 * listed twice (under a merged MBID and the one that absorbed it) counts once, at its better rank.
 */
export function tallyAlbums(albums: readonly (RecordingAlbum | null)[]): AlbumTally[] {
  const tallies = new Map<string, { album: RecordingAlbum; weight: number; recordings: string[]; counted: Set<string> }>();
  const total = albums.length;
  albums.forEach((album, rank) => {
    if (!album) return;
    const tally = tallies.get(album.mbid) ?? { album, weight: 0, recordings: [], counted: new Set<string>() };
    if (album.recordingMbid !== undefined) {
      if (tally.counted.has(album.recordingMbid)) return;
      tally.counted.add(album.recordingMbid);
    }
    tally.weight += (total - rank) / total;
    tally.recordings.push(album.recording);
    tallies.set(album.mbid, tally);
  });
  return [...tallies.values()]
    .map(({ album, weight, recordings }) => ({ album, weight, recordings }))
    .sort((a, b) => b.weight - a.weight || a.album.mbid.localeCompare(b.album.mbid));
}
