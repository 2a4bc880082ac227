import type { MusicBrainzCacheKind } from './musicbrainz-cache-ttls.js';

const MIB = 1024 * 1024;

/**
 * The largest body each kind of `/ws/2` answer may have; a longer one is cut off and the request fails (503 to a
 * person waiting for it). MusicBrainz pages hold at most 100 entities (shared/reference/musicbrainz-api.md §4), so a
 * search, browse or lookup page is tens to a few hundred kB; a release with its recordings is the one that grows
 * with the album (a box set of a few thousand tracks is a few MB). Past these, an answer is not one MusicBrainz
 * sends, and reading it only costs memory and time (issue #27).
 */
export const MusicBrainzResponseLimits: Readonly<Record<MusicBrainzCacheKind, number>> = {
  search: 2 * MIB,
  artistReleaseGroups: 2 * MIB,
  releaseGroup: 1 * MIB,
  recording: 2 * MIB,
  artist: 1 * MIB,
  groupReleases: 4 * MIB,
  release: 8 * MIB,
};
