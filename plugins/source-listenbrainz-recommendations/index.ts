import { definePlugin, isNotFoundError, isRecord, ListenBrainzApi, PLUGIN_API_VERSION, type SourceCandidate, type SourceRun } from '@crateflow/sdk';
import { albumOfRecording } from './album-of-recording.js';
import { RecommendationsConfig } from './recommendations-config.schema.js';
import { RecommendationsCursor, type RecommendationsRun } from './recommendations-cursor.js';
import { readRecommendations } from './recommended-recording.js';
import { tallyAlbums, type AlbumTally } from './tally-albums.js';

/** Candidates handed to the server at a time: each batch is in the queue before the next is made. */
const BATCH = 10;
/** Artists and recordings named in a reason's refs at most (the reason allows 50 refs). */
const MAX_ARTIST_REFS = 20;
const MAX_RECORDING_REFS = 10;

/**
 * `listenbrainz-recommendations`: the user's collaborative-filtering recordings from ListenBrainz, each resolved to
 * its studio album through the shared MusicBrainz client, aggregated per album ("recommended from your listening:
 * 3 tracks"). One ListenBrainz request per run; one MusicBrainz lookup per recording, cached 30 days.
 */
export default definePlugin({
  manifest: {
    name: 'source-listenbrainz-recommendations', kind: 'source', apiVersion: PLUGIN_API_VERSION, configSchema: RecommendationsConfig,
    version: '1.0.0', uses: ['musicbrainz'],
  },
  create: ({ config, http, clock, storage, log, musicbrainz }) => {
    if (!musicbrainz) throw new Error('source-listenbrainz-recommendations needs the server\'s MusicBrainz client, which Crateflow offers from sdk 1.2 on');
    const api = new ListenBrainzApi({ http, clock, baseUrl: config.listenbrainz_url, token: config.token, timeoutMs: config.timeout_ms });
    const cursor = new RecommendationsCursor(storage);

    /** The run to continue, or a new one from ListenBrainz; undefined when ListenBrainz has nothing yet (204). */
    async function startOrResume(run: SourceRun): Promise<RecommendationsRun | undefined> {
      const unfinished = cursor.load(config.user);
      if (unfinished) {
        log.info({ user: config.user, resolved: unfinished.albums.length, of: unfinished.recordings.length }, 'resuming an unfinished run');
        return unfinished;
      }
      const path = `1/cf/recommendation/user/${encodeURIComponent(config.user)}/recording`;
      const body = await api.get(path, { count: String(config.max_recordings) }, run.signal).catch((err: unknown) => {
        if (isNotFoundError(err)) throw new Error(`ListenBrainz does not know the user "${config.user}" (config key user): ${err.message}`, { cause: err });
        throw err;
      });
      if (body !== undefined && !isRecord(body)) throw new Error('ListenBrainz answered the recommendations with JSON that is not an object');
      if (!body) {
        // §3.1: 204 is "not computed yet" (new accounts, between model runs): a clean run with nothing to propose.
        log.info({ user: config.user }, 'ListenBrainz has no recommendations for this user yet');
        run.explain?.(`ListenBrainz has not computed recommendations for ${config.user} yet (it does for users with enough listens, a few times a week)`);
        return undefined;
      }
      // A negative score is never proposed: ALS predicts how much the user would want a recording, 0 being "no
      // interest", and ListenBrainz lists its least fitting predictions too (listenbrainz-api.md §3.1: below 0 is
      // possible). A person asking for recommendations does not want the model's "rather not"; leaving them out
      // before the lookup also spares a MusicBrainz request (1 a second) per such recording.
      const listed = readRecommendations(body);
      const recordings = listed.filter((item) => item.score >= 0 && !(config.skip_listened && item.listened)).slice(0, config.max_recordings);
      if (recordings.length === 0) {
        log.info({ user: config.user, listed: listed.length }, 'every recommendation was already listened to or scored below 0');
        run.explain?.(`all ${listed.length} ListenBrainz recommendations for ${config.user} were already listened to or predicted below "no interest"`);
        return undefined;
      }
      return cursor.begin(config.user, recordings);
    }

    function toCandidate(tally: AlbumTally, best: number): SourceCandidate {
      const { album } = tally;
      const tracks = tally.recordings.length;
      return {
        artist: album.artist, album: album.title, type: 'album', mbid: album.mbid, ...(album.year === null ? {} : { year: album.year }),
        score: Math.round((tally.weight / best) * 1000) / 1000,
        reasons: [{
          kind: 'listening',
          text: `recommended from your listening: ${tracks} ${tracks === 1 ? 'track' : 'tracks'}`,
          refs: [
            { type: 'user', name: config.user },
            ...album.artists.slice(0, MAX_ARTIST_REFS).map((artist) => ({ type: 'artist' as const, name: artist.name, mbid: artist.mbid })),
            ...tally.recordings.filter(Boolean).slice(0, MAX_RECORDING_REFS).map((title) => ({ type: 'recording' as const, name: title })),
          ],
        }],
      };
    }

    return {
      async *discover(run: SourceRun): AsyncIterable<SourceCandidate[]> {
        const state = await startOrResume(run);
        if (!state) {
          run.progress(0, 0);
          return;
        }
        const total = state.recordings.length;
        for (let index = state.albums.length; index < total; index++) {
          run.progress(index, total);
          if (run.signal.aborted) return;
          const recording = state.recordings[index];
          const found = recording ? await musicbrainz.recordingReleaseGroups(recording.mbid) : undefined;
          await cursor.resolved(state, (found && albumOfRecording(found, config.include_secondary_types)) ?? null);
        }
        run.progress(total, total);
        const tallies = tallyAlbums(state.albums);
        const best = tallies[0]?.weight ?? 1;
        const seen = new Set(state.emitted);
        let batch: SourceCandidate[] = [];
        for (const tally of tallies) {
          if (run.signal.aborted) return;
          if (seen.size >= config.max_candidates || tally.weight / best < config.min_score) break;
          const { album } = tally;
          if (seen.has(album.mbid) || run.known({ mbid: album.mbid, artist: album.artist, album: album.title })) continue;
          seen.add(album.mbid);
          batch.push(toCandidate(tally, best));
          if (batch.length === BATCH) {
            await cursor.emitted(state, batch.map((candidate) => candidate.mbid));
            yield batch;
            batch = [];
          }
        }
        if (batch.length > 0) {
          await cursor.emitted(state, batch.map((candidate) => candidate.mbid));
          yield batch;
        }
        await cursor.clear();
      },
    };
  },
});
