import type { SourceRun } from './kinds/source.js';
import type { ReleaseGroup } from './musicbrainz.js';

/**
 * The artist of a release group as printed: the credit MusicBrainz sends ("Boards of Canada & Autechre", each name
 * and its join phrase), else the credited artists joined, else the artist it was found under (a MusicBrainz client
 * that sends no credit). A source that browses an artist's release groups proposes this, not the browsed artist.
 *
 * @example
 * const artist = releaseGroupCredit(group, seed.name); // 'Boards of Canada & Autechre', browsed under Boards of Canada
 */
export function releaseGroupCredit(group: Pick<ReleaseGroup, 'artistCredit' | 'artists'>, foundUnder: string): string {
  if (group.artistCredit) return group.artistCredit;
  const names = group.artists.map((artist) => artist.name).filter(Boolean);
  return names.length > 0 ? names.join(' & ') : foundUnder;
}

/**
 * Whether the server already knows an album: by MBID or under its whole credit, and also under the artist it was
 * found under, since a library often files a collaboration under one of its artists only.
 *
 * @example
 * if (isKnownUnderCredit(run, { mbid, album: group.title, credit, foundUnder: seed.name })) continue;
 */
export function isKnownUnderCredit(run: Pick<SourceRun, 'known'>, album: { mbid: string; album: string; credit: string; foundUnder: string }): boolean {
  if (run.known({ mbid: album.mbid, artist: album.credit, album: album.album })) return true;
  return album.credit !== album.foundUnder && run.known({ artist: album.foundUnder, album: album.album }) !== undefined;
}
