import type { ReleaseGroup, SourceRun } from '@crateflow/sdk';

/**
 * The artist of a release group as printed: the credit MusicBrainz sends ("Boards of Canada & Autechre", each name
 * and its join phrase), else the credited artists joined, else the artist it was found under (a MusicBrainz client
 * that sends no credit).
 */
export function creditOf(group: Pick<ReleaseGroup, 'artistCredit' | 'artists'>, foundUnder: string): string {
  if (group.artistCredit) return group.artistCredit;
  const names = group.artists.map((artist) => artist.name).filter(Boolean);
  return names.length > 0 ? names.join(' & ') : foundUnder;
}

/**
 * Whether the server already knows the album: by MBID or under its whole credit, and also under the library
 * artist it was found under, since a library often files a collaboration under one of its artists only.
 */
export function isKnown(run: SourceRun, mbid: string, album: string, credit: string, foundUnder: string): boolean {
  if (run.known({ mbid, artist: credit, album })) return true;
  return credit !== foundUnder && run.known({ artist: foundUnder, album }) !== undefined;
}
