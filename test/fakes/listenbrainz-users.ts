import type { MusicBrainzCatalogue } from './musicbrainz-catalogue.js';

/** One ListenBrainz account in the fake, with what the server has computed for it. */
export interface FakeListenBrainzUser {
  readonly name: string;
  readonly token: string;
  /** Collaborative-filtering recordings, best first; undefined when none were computed (the API answers 204). */
  readonly recommendations?: readonly { recording_mbid: string; score: number; latest_listened_at: string | null }[];
  /** A stored recommendations row whose `raw` list is null, which the model allows and the view fails on (500). */
  readonly unreadableRecommendations?: boolean;
  /** All-time top artists; undefined when stats are not computed (204). */
  readonly topArtists?: readonly { artist_mbid: string | null; artist_name: string; listen_count: number }[];
  /** Epoch seconds. */
  readonly lastUpdated: number;
}

/** A recording MBID MusicBrainz answers 404 for: the recording was deleted after ListenBrainz's model run. */
export const DELETED_RECORDING = '0d5e1e7e-5c3b-4c1e-9d3e-6a0f4c2b7d19';
/** Positions in `rob`'s list that carry a merged and a deleted recording MBID. */
const MERGED_AT = 2;
const DELETED_AT = 6;

/**
 * Default accounts over a generated catalogue: `rob` has everything, with the shapes of
 * shared/reference/listenbrainz-api.md §3.1–3.2 (raw ALS scores above 1 and below 0, some recordings already
 * listened to, a top artist without an MBID); `newbie` has an account and nothing computed yet; `broken`'s stored
 * recommendations cannot be read (a 500).
 *
 * `rob`'s list also names a merged recording (its old MBID, which MusicBrainz answers with a 301 to the recording that
 * absorbed it) and a deleted one (404). ListenBrainz takes the recording MBIDs of its model from the listens of the
 * training window as they were mapped then, and never checks them against MusicBrainz again
 * (listenbrainz-server `listenbrainz_spark/recommendations/recording/create_dataframes.py`: `recording_mbid` straight
 * from the listens dump); the stored list is served until the next model run (listenbrainz-api.md §3.1). A recording
 * merged or deleted in MusicBrainz since is still recommended under its old MBID.
 */
export function listenBrainzUsers(catalogue: MusicBrainzCatalogue): FakeListenBrainzUser[] {
  const merged = [...catalogue.redirects.entries()].find(([, to]) => catalogue.recordings.some((recording) => recording.id === to))?.[0];
  const stale = (id: string, index: number) => (index === MERGED_AT && merged ? merged : index === DELETED_AT ? DELETED_RECORDING : id);
  const recommendations = catalogue.recordings.slice(0, 60).map((recording, index) => ({
    recording_mbid: stale(recording.id, index),
    // §3.1: the raw ALS prediction, sorted descending; the last few are negative.
    score: Math.round((9.5 - index * 0.17) * 1000) / 1000,
    latest_listened_at: index % 4 === 1 ? new Date(Date.UTC(2026, 0, 1 + index, 5, 32, 11)).toISOString() : null,
  }));
  const topArtists = [
    ...catalogue.artists.slice(0, -1).map((artist, index) => ({ artist_mbid: artist.id, artist_name: artist.name, listen_count: 400 - index * 37 })),
    { artist_mbid: null, artist_name: 'Some Unmatched Band', listen_count: 12 },
  ];
  return [
    { name: 'rob', token: 'rob-token-0000', recommendations, topArtists, lastUpdated: 1_788_494_361 },
    { name: 'newbie', token: 'newbie-token-0000', lastUpdated: 1_788_494_361 },
    { name: 'broken', token: 'broken-token-0000', unreadableRecommendations: true, lastUpdated: 1_788_494_361 },
  ];
}
