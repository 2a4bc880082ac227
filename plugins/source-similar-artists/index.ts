import { arrayField, definePlugin, isKnownUnderCredit, isNotFoundError, isRecord, isRetryLaterError, ListenBrainzApi, normalizeName, numberField, PLUGIN_API_VERSION, releaseGroupCredit, resolveArtist, StorageCache, stringField } from '@crateflow/sdk';
import type { JsonValue, MusicBrainz, ReleaseGroup, ResolvedArtist, SourceCandidate, SourceRun } from '@crateflow/sdk';
import { LastFmApi } from './lastfm-api.js';
import { SimilarArtistsConfig, similarArtistsConfigProblems } from './similar-artists-config.schema.js';
import { SimilarArtistsCursor, type SimilarArtistsRun } from './similar-artists-cursor.js';
import { orderedSeeds, SimilarityTally, similarityText, type Seed, type SimilarArtist, type TallyEntry } from './similarity-tally.js';

const BATCH = 10;
const DAY = 24 * 60 * 60 * 1000;
const MAX_SEED_REFS = 20;

/**
 * `similar-artists`: for each seed artist (library or ListenBrainz top artists), its similar artists from
 * ListenBrainz Labs and, with an `api_key`, Last.fm; similarities summed across seeds, then the studio albums of the
 * best-ranked artists from MusicBrainz that the user does not have ("similar to Boards of Canada, Autechre (+3)").
 */
export default definePlugin({
  manifest: { name: 'source-similar-artists', kind: 'source', apiVersion: PLUGIN_API_VERSION, configSchema: SimilarArtistsConfig, version: '1.0.0', uses: ['musicbrainz'] },
  checkConfig: similarArtistsConfigProblems,
  create: ({ config, http, clock, storage, log, musicbrainz }) => {
    if (!musicbrainz) throw new Error('source-similar-artists needs the server\'s MusicBrainz client, which Crateflow offers from sdk 1.2 on');
    const mb: MusicBrainz = musicbrainz;
    const listenbrainz = new ListenBrainzApi({ http, clock, baseUrl: config.listenbrainz_url, token: config.token, timeoutMs: config.timeout_ms });
    const lastfm = config.api_key ? new LastFmApi(http, { url: config.lastfm_url, apiKey: config.api_key, timeoutMs: config.timeout_ms }) : undefined;
    const cursor = new SimilarArtistsCursor(storage);
    const ttl = config.cache_days * DAY;
    const similarCache = new StorageCache(storage, clock, 'similar/', ttl, config.max_seeds * 4);
    const artistCache = new StorageCache(storage, clock, 'artist/', ttl, config.max_seeds * 4 + config.max_candidates * 2);
    const origin = config.seeds === 'listenbrainz' ? `listenbrainz:${config.user ?? ''}` : 'library';

    /** A name's MusicBrainz artist, from the storage cache when it was looked up within cache_days. */
    async function resolveCached(name: string, run: SourceRun): Promise<ResolvedArtist | undefined> {
      const key = normalizeName(name);
      const cached = artistCache.get(key);
      if (cached !== undefined) return isRecord(cached) ? readResolved(cached) : undefined;
      const found = await resolveArtist(mb, name, run);
      await artistCache.set(key, found ? { ...found } : null);
      return found;
    }

    async function chooseSeeds(run: SourceRun): Promise<Seed[] | undefined> {
      if (config.seeds === 'library') {
        const artists = (await run.libraryArtists()).slice(0, config.max_seeds);
        return inStableOrder(artists.map((artist) => ({ name: artist.name, mbid: null })));
      }
      const user = config.user ?? '';
      const body = await listenbrainz.get(`1/stats/user/${encodeURIComponent(user)}/artists`, { count: String(config.max_seeds), range: 'all_time' }, run.signal)
        .catch((err: unknown) => {
          if (isNotFoundError(err)) throw new Error(`ListenBrainz does not know the user "${user}" (config key user): ${err.message}`, { cause: err });
          throw err;
        });
      // §3.2: 204 means the stats are not computed yet: no seeds this time.
      if (!isRecord(body) || !isRecord(body['payload'])) return undefined;
      const seeds = arrayField(body['payload'], 'artists').filter(isRecord).flatMap((artist) => {
        const name = stringField(artist, 'artist_name');
        return name ? [{ name, mbid: stringField(artist, 'artist_mbid') ?? null }] : [];
      });
      return inStableOrder(seeds.slice(0, config.max_seeds));
    }

    /** The seed's similar artists, normalised per source to 0–1, from the cache or from the APIs. */
    async function similarTo(seed: Seed, run: SourceRun): Promise<{ seed: Seed; similar: SimilarArtist[] }> {
      const mbid = seed.mbid ?? (await resolveCached(seed.name, run))?.mbid ?? null;
      const resolved = { name: seed.name, mbid };
      const key = mbid ?? `name:${normalizeName(seed.name)}`;
      const cached = similarCache.get(key);
      if (Array.isArray(cached)) return { seed: resolved, similar: cached.flatMap(readSimilar) };
      const rows = new Map<string, SimilarArtist>();
      const keep = (row: SimilarArtist) => {
        const rowKey = row.mbid ?? `name:${normalizeName(row.name ?? '')}`;
        const known = rows.get(rowKey);
        if (row.mbid === mbid || (row.name !== null && normalizeName(row.name) === normalizeName(seed.name))) return;
        if (!known || row.similarity > known.similarity) rows.set(rowKey, { ...row, name: row.name ?? known?.name ?? null });
      };
      if (mbid) {
        const body = await listenbrainz.get('similar-artists/json', { artist_mbids: mbid, algorithm: config.algorithm }, run.signal, config.listenbrainz_labs_url)
          .catch((err: unknown) => {
            // §4: Labs answers bad input (most likely an algorithm it no longer has) with an HTML 400 page.
            if (run.signal.aborted || isRetryLaterError(err) || !(err instanceof Error)) throw err;
            throw new Error(`ListenBrainz Labs refused the similar-artists request (check config key algorithm): ${err.message}`, { cause: err });
          });
        // §4: a flat array in no particular order; integer co-listening scores, made 0–1 by the seed's best.
        const labs = (Array.isArray(body) ? body : []).filter(isRecord).flatMap((row) => {
          const artist = stringField(row, 'artist_mbid');
          const score = numberField(row, 'score');
          return artist && score !== undefined && score > 0 ? [{ mbid: artist.toLowerCase(), name: stringField(row, 'name') ?? null, score }] : [];
        }).sort((a, b) => b.score - a.score).slice(0, config.similar_per_seed);
        const top = labs[0]?.score ?? 1;
        for (const row of labs) keep({ mbid: row.mbid, name: row.name, similarity: row.score / top });
      }
      if (lastfm) {
        for (const row of await lastfm.similar(seed.name, config.similar_per_seed, run.signal)) keep({ mbid: row.mbid ?? null, name: row.name, similarity: row.match });
      }
      const similar = [...rows.values()];
      await similarCache.set(key, similar.map((row) => ({ ...row })));
      return { seed: resolved, similar };
    }

    /**
     * The albums of a similar artist whose MBID MusicBrainz does not know (404), found by its name instead. Last.fm's
     * MBIDs are its own matches and lag behind or disagree with MusicBrainz's (shared/reference/lastfm-api.md §4.1,
     * §5: navidrome/navidrome #1091, lklynet/aurral #96), so one MusicBrainz has deleted since still arrives. A merged
     * MBID needs no help: the browse answers for the artist that absorbed it (musicbrainz-api.md §3). Missing or empty
     * MBIDs never get here: they are looked up by name from the start.
     */
    async function groupsByName(entry: TallyEntry, staleMbid: string, run: SourceRun): Promise<ReleaseGroup[] | undefined> {
      if (entry.mbid === null || !entry.name) return undefined;
      const found = (await resolveCached(entry.name, run))?.mbid;
      if (!found || found === staleMbid) return undefined;
      log.info({ artist: entry.name, stale_mbid: staleMbid, mbid: found }, 'MusicBrainz does not know a similar artist\'s MBID; using the artist its name finds');
      return mb.releaseGroupsOfArtist(found, ['album']);
    }

    async function albumsOf(entry: TallyEntry, score: number, run: SourceRun, seen: Set<string>): Promise<SourceCandidate[]> {
      const mbid = entry.mbid ?? (entry.name ? (await resolveCached(entry.name, run))?.mbid : undefined);
      const name = entry.name ?? (mbid ? (await mb.artist(mbid))?.name : undefined);
      if (!mbid || !name) return [];
      const groups = (await mb.releaseGroupsOfArtist(mbid, ['album'])) ?? (await groupsByName(entry, mbid, run)) ?? [];
      const seeds = orderedSeeds(entry);
      const candidates: SourceCandidate[] = [];
      // albums_per_artist bounds the artist's albums the user has been offered, not this run's additions: an album
      // already known (owned, queued, wished for, rejected) or proposed under another artist this run takes a
      // place too, or every run would add the artist's next album.
      let offered = 0;
      for (const group of groups) {
        if (offered >= config.albums_per_artist) break;
        // shared/reference/musicbrainz-api.md §6.2: `type=album` includes compilations, live albums and soundtracks.
        if (group.primaryType !== 'Album' || (!config.include_secondary_types && group.secondaryTypes.length > 0)) continue;
        offered++;
        const mbidOfGroup = group.mbid.toLowerCase();
        // The whole credit ("A & B") is the album's artist; the similar artist browsed is only why it came up.
        const credit = releaseGroupCredit(group, name);
        if (seen.has(mbidOfGroup) || isKnownUnderCredit(run, { mbid: mbidOfGroup, album: group.title, credit, foundUnder: name })) continue;
        seen.add(mbidOfGroup);
        const year = Number(group.firstReleaseDate?.slice(0, 4));
        candidates.push({
          artist: credit, album: group.title, type: 'album', mbid: mbidOfGroup, ...(Number.isInteger(year) && group.firstReleaseDate ? { year } : {}),
          score,
          reasons: [{
            kind: 'similar-artists',
            text: similarityText(entry),
            refs: [
              ...seeds.slice(0, MAX_SEED_REFS).map((seed) => ({ type: 'artist' as const, name: seed.name, ...(seed.mbid ? { mbid: seed.mbid } : {}) })),
              ...(config.seeds === 'listenbrainz' && config.user ? [{ type: 'user' as const, name: config.user }] : []),
            ],
          }],
        });
      }
      return candidates;
    }

    return {
      async *discover(run: SourceRun): AsyncIterable<SourceCandidate[]> {
        await similarCache.prune();
        await artistCache.prune();
        let state: SimilarArtistsRun | undefined = cursor.load(origin);
        if (state) {
          log.info({ seeds: state.seeds.length, done: state.next }, 'resuming an unfinished run');
        } else {
          const seeds = await chooseSeeds(run);
          if (!seeds || seeds.length === 0) {
            log.info({ seeds: config.seeds }, 'no seed artists yet: nothing to compare with');
            run.explain?.(config.seeds === 'library'
              ? 'your library is empty, so there are no artists to start from: add albums (and sync the library) or set seeds: listenbrainz with a ListenBrainz user'
              : `ListenBrainz has no top artists for ${config.user ?? ''} yet (its statistics are computed daily for users with listens)`);
            run.progress(0, 0);
            return;
          }
          state = { origin, seeds, next: 0, emitted: [] };
          await cursor.save(state);
        }
        const tally = new SimilarityTally();
        const seedMbids = new Set<string>();
        const total = state.seeds.length;
        for (let index = 0; index < total; index++) {
          run.progress(index, total);
          if (run.signal.aborted) return;
          const seed = state.seeds[index];
          if (!seed) continue;
          const { seed: resolved, similar } = await similarTo(seed, run);
          if (resolved.mbid) seedMbids.add(resolved.mbid);
          tally.add(resolved, similar);
          if (index >= state.next) {
            state.next = index + 1;
            await cursor.save(state);
          }
        }
        run.progress(total, total);

        const owned = new Set((await run.libraryArtists()).map((artist) => normalizeName(artist.name)));
        const ranked = tally.ranked().filter((entry) => !(entry.mbid && seedMbids.has(entry.mbid)) && !(entry.name && owned.has(normalizeName(entry.name))));
        const best = ranked[0]?.total ?? 1;
        const seen = new Set(state.emitted);
        let batch: SourceCandidate[] = [];
        for (const entry of ranked) {
          if (run.signal.aborted) return;
          const score = Math.round((entry.total / best) * 1000) / 1000;
          if (seen.size >= config.max_candidates || score < config.min_score) break;
          const room = config.max_candidates - seen.size;
          batch.push(...(await albumsOf(entry, score, run, seen)).slice(0, room));
          if (batch.length >= BATCH) {
            state.emitted.push(...batch.map((candidate) => candidate.mbid));
            await cursor.save(state);
            yield batch;
            batch = [];
          }
        }
        if (batch.length > 0) {
          state.emitted.push(...batch.map((candidate) => candidate.mbid));
          await cursor.save(state);
          yield batch;
        }
        await cursor.clear();
      },
    };
  },
});

/** Sorted by normalised name: a stable order, so a resumed or repeated run walks the same seeds the same way. */
function inStableOrder(seeds: Seed[]): Seed[] {
  return seeds.map((seed) => ({ seed, key: normalizeName(seed.name) })).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).map(({ seed }) => seed);
}

function readResolved(value: { [key: string]: JsonValue } | Record<string, unknown>): ResolvedArtist | undefined {
  const mbid = typeof value['mbid'] === 'string' ? value['mbid'] : undefined;
  const name = typeof value['name'] === 'string' ? value['name'] : undefined;
  return mbid && name ? { mbid, name } : undefined;
}

function readSimilar(row: unknown): SimilarArtist[] {
  if (!isRecord(row)) return [];
  const similarity = typeof row['similarity'] === 'number' ? row['similarity'] : undefined;
  if (similarity === undefined) return [];
  return [{ mbid: typeof row['mbid'] === 'string' ? row['mbid'] : null, name: typeof row['name'] === 'string' ? row['name'] : null, similarity }];
}
