import type { ReleaseGroup } from '@crateflow/sdk';

/** Where Crateflow serves a release group's front cover (GET /api/v1/covers/{mbid}): same origin, so the UI's CSP allows it. */
export function coverUrlOf(releaseGroupMbid: string): string {
  return `/api/v1/covers/${releaseGroupMbid.toLowerCase()}`;
}

/** The year of the first release, when MusicBrainz knows it. */
export function yearOf(group: Pick<ReleaseGroup, 'firstReleaseDate'>): number | undefined {
  const year = Number(group.firstReleaseDate?.slice(0, 4));
  return Number.isInteger(year) && year > 0 ? year : undefined;
}

/** The artist credit as printed ("A & B"), else the credited names joined. */
export function creditOf(group: Pick<ReleaseGroup, 'artistCredit' | 'artists'>): string {
  return group.artistCredit ?? group.artists.map((artist) => artist.name).join(' & ');
}
