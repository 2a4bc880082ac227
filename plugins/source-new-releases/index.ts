import { definePlugin, isKnownUnderCredit, isRecord, type MusicBrainz, normalizeName, PLUGIN_API_VERSION, releaseGroupCredit, resolveArtist, type ResolvedArtist, type SourceCandidate, type SourceRun, StorageCache } from '@crateflow/sdk';
import { NewReleasesConfig } from './new-releases-config.schema.js';
import { NewReleasesCursor } from './new-releases-cursor.js';
import { isInWindow, releaseWindow } from './release-window.js';

const BATCH = 10;
const DAY = 24 * 60 * 60 * 1000;

/**
 * `new-releases`: release groups by library artists first released since the last run ("new album by Low,
 * 2026-10-03"). One name search per artist (kept cache_days in storage) and one browse per artist (cached 7 days by
 * the shared MusicBrainz client), so a daily run over a large library is almost free after the first.
 */
export default definePlugin({
  manifest: { name: 'source-new-releases', kind: 'source', apiVersion: PLUGIN_API_VERSION, configSchema: NewReleasesConfig, version: '1.0.0', uses: ['musicbrainz'] },
  create: ({ config, clock, storage, log, musicbrainz }) => {
    if (!musicbrainz) throw new Error('source-new-releases needs the server\'s MusicBrainz client, which Crateflow offers from sdk 1.2 on');
    const mb: MusicBrainz = musicbrainz;
    const cursor = new NewReleasesCursor(storage);
    const artistCache = new StorageCache(storage, clock, 'artist/', config.cache_days * DAY, config.max_artists);

    async function resolveCached(name: string, run: SourceRun): Promise<ResolvedArtist | undefined> {
      const key = normalizeName(name);
      const cached = artistCache.get(key);
      if (cached !== undefined) {
        if (!isRecord(cached)) return undefined;
        const { mbid, name: found } = cached;
        return typeof mbid === 'string' && typeof found === 'string' ? { mbid, name: found } : undefined;
      }
      const found = await resolveArtist(mb, name, run);
      await artistCache.set(key, found ? { ...found } : null);
      return found;
    }

    return {
      async *discover(run: SourceRun): AsyncIterable<SourceCandidate[]> {
        await artistCache.prune();
        const state = cursor.load() ?? { window: releaseWindow(clock.now(), run.lastCompletedAt, config.first_run_days, config.overlap_days), after: undefined, proposed: 0 };
        if (state.after !== undefined) log.info({ after: state.after, window: state.window }, 'resuming an unfinished run');
        await cursor.save(state);
        const library = (await run.libraryArtists()).slice(0, config.max_artists);
        if (library.length === 0) run.explain?.('your library is empty, so there are no artists to follow: add albums and sync the library');
        const mostOwned = Math.max(1, ...library.map((artist) => artist.albums));
        // Normalised-name order: stable across runs and library syncs, so "after" means the same artists on resume.
        const artists = library.map((artist) => ({ artist, key: normalizeName(artist.name) })).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
        const seen = new Set<string>();
        let batch: SourceCandidate[] = [];
        for (const [index, { artist, key }] of artists.entries()) {
          run.progress(index, artists.length);
          if (run.signal.aborted) return;
          if (state.proposed + batch.length >= config.max_candidates) break;
          if (state.after !== undefined && key <= state.after) continue;
          const found = await resolveCached(artist.name, run);
          const groups = found ? (await mb.releaseGroupsOfArtist(found.mbid, ['album'])) ?? [] : [];
          for (const group of groups) {
            if (state.proposed + batch.length >= config.max_candidates) break;
            // shared/reference/musicbrainz-api.md §6.2: `type=album` includes compilations and live albums.
            if (group.primaryType !== 'Album' || (!config.include_secondary_types && group.secondaryTypes.length > 0)) continue;
            if (!isInWindow(group.firstReleaseDate, state.window)) continue;
            const mbid = group.mbid.toLowerCase();
            // The whole credit ("A & B") is the album's artist; the library artist browsed is only why it came up.
            const credit = releaseGroupCredit(group, found?.name ?? artist.name);
            if (seen.has(mbid) || isKnownUnderCredit(run, { mbid, album: group.title, credit, foundUnder: artist.name })) continue;
            seen.add(mbid);
            batch.push({
              artist: credit, album: group.title, type: 'album', mbid,
              year: Number(group.firstReleaseDate?.slice(0, 4)),
              // Every new album is wanted; one by an artist you own more of a little more.
              score: Math.round((0.5 + (0.5 * artist.albums) / mostOwned) * 1000) / 1000,
              reasons: [{
                kind: 'new-release',
                text: `new album by ${found?.name ?? artist.name}, ${group.firstReleaseDate ?? ''}`,
                refs: [{ type: 'artist', name: found?.name ?? artist.name, ...(found ? { mbid: found.mbid } : {}) }],
              }],
            });
          }
          // The cursor moves past an artist only when nothing of its is waiting in the batch: a kill loses nothing.
          if (batch.length === 0) {
            state.after = key;
            await cursor.save(state);
          } else if (batch.length >= BATCH) {
            state.after = key;
            state.proposed += batch.length;
            await cursor.save(state);
            yield batch;
            batch = [];
          }
        }
        run.progress(artists.length, artists.length);
        if (batch.length > 0) {
          state.proposed += batch.length;
          await cursor.save(state);
          yield batch;
        }
        await cursor.clear();
      },
    };
  },
});
