const DAY = 24 * 60 * 60 * 1000;

/**
 * How long each kind of MusicBrainz answer is kept on disk. The aim is that a discovery run repeated daily costs
 * almost no requests at 1 request/s, while what users notice changing stays fresh enough:
 * - `artistReleaseGroups` 7 days: a new release appears in the browse when it is entered; a weekly look at each
 *   followed artist is as often as new-release discovery needs.
 * - `releaseGroup`, `recording`, `artist` 30 days: titles, credits, dates and types of existing entities rarely
 *   change once entered, and a merged MBID still answers with its target.
 * - `groupReleases` 7 days: the releases of a group (to choose its track list) grow when an edition is entered.
 * - `release` 30 days: a release's track list is settled once entered.
 * - `search` 1 day: rankings shift as entities are added, and searches come from people looking now.
 * - `notFound` 1 day: an MBID unknown today may be created or merged into tomorrow.
 */
export const MusicBrainzCacheTtls = {
  artistReleaseGroups: 7 * DAY,
  releaseGroup: 30 * DAY,
  recording: 30 * DAY,
  artist: 30 * DAY,
  groupReleases: 7 * DAY,
  release: 30 * DAY,
  search: 1 * DAY,
  notFound: 1 * DAY,
} as const;

export type MusicBrainzCacheKind = Exclude<keyof typeof MusicBrainzCacheTtls, 'notFound'>;
