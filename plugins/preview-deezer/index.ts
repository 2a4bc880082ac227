import { albumKey, arrayField, definePlugin, numberField, PLUGIN_API_VERSION, type PreviewQuery, type PreviewTrack } from '@crateflow/sdk';
import { AlbumMatchCache } from './album-match-cache.js';
import { confirmsCredit } from './confirms-credit.js';
import { DeezerApi } from './deezer-api.js';
import { DeezerConfig } from './deezer-config.schema.js';
import { editionLabels } from './edition-distance.js';
import { rankAlbumHits } from './rank-album-hits.js';
import { toPreviewTracks } from './to-preview-tracks.js';

const HOUR = 60 * 60 * 1000;
// Deezer's pages hold at most 100 items (§3); five pages cover any album, even a box set.
const PAGE = 100;
const MAX_PAGES = 5;
// Hits filed under one artist of a collaboration cost an album lookup each to confirm; a few are plenty.
const MAX_CONFIRMATIONS = 3;

/**
 * 30-second previews from Deezer's public API (no account, no key): one album search, then the album's tracks
 * (shared/reference/deezer-api.md §3.1, §4); a collaboration found under one of its artists costs an album lookup
 * that confirms it (confirmsCredit). Called only when someone presses play.
 */
export default definePlugin({
  manifest: { name: 'preview-deezer', kind: 'preview', apiVersion: PLUGIN_API_VERSION, configSchema: DeezerConfig, version: '1.0.0' },
  create: ({ config, http, clock, log }) => {
    const api = new DeezerApi(http, config.url, config.timeout_ms);
    // A match lasts an hour; "not on Deezer" only ten minutes, in case the search was unlucky.
    const matches = new AlbumMatchCache(clock, HOUR, HOUR / 6);

    const findAlbum = async (query: PreviewQuery): Promise<number | null> => {
      const key = matchKey(query);
      const known = matches.get(key);
      if (known !== undefined) return known;
      // A `"` inside a name would end Deezer's phrase early (§7).
      const phrase = (text: string) => `"${text.replace(/"/g, ' ').trim()}"`;
      const body = await api.get('/search/album', { q: `artist:${phrase(query.artist)} album:${phrase(query.album)}`, limit: '25' }, query.signal);
      let found: number | null = null;
      let confirmations = 0;
      for (const hit of rankAlbumHits(body ? arrayField(body, 'data') : [], query.artist, query.album)) {
        if (!hit.partOfCredit) {
          found = hit.id;
          break;
        }
        if (confirmations++ >= MAX_CONFIRMATIONS) break;
        const album = await api.get(`/album/${hit.id}`, {}, query.signal);
        if (album && confirmsCredit(album, query.artist)) {
          found = hit.id;
          break;
        }
      }
      // Only a finished search is remembered: a quota refusal or an outage above throws before this line, and an
      // aborted one proves nothing.
      if (query.signal.aborted) return null;
      matches.set(key, found);
      log.debug({ artist: query.artist, album: query.album, deezer_album: found }, found === null ? 'no Deezer album matches' : 'matched a Deezer album');
      return found;
    };

    return {
      origins: config.preview_origins,

      async findPreviews(query: PreviewQuery): Promise<PreviewTrack[]> {
        const albumId = await findAlbum(query);
        if (albumId === null) return [];
        const tracks: unknown[] = [];
        for (let page = 0, index = 0; page < MAX_PAGES && !query.signal.aborted; page++) {
          // `/tracks` pages past the 25 tracks `/album/{id}` embeds (§4).
          const body = await api.get(`/album/${albumId}/tracks`, { index: String(index), limit: String(PAGE) }, query.signal);
          if (!body) {
            // The album is gone from Deezer since it matched: look it up afresh next time.
            matches.forget(matchKey(query));
            return [];
          }
          const data = arrayField(body, 'data');
          tracks.push(...data);
          index += data.length;
          if (data.length === 0 || index >= (numberField(body, 'total') ?? 0)) break;
        }
        return toPreviewTracks(tracks, query.artist);
      },
    };
  },
});

/** The album's names as the match cache knows them: albumKey drops edition labels, but a deluxe edition is another album. */
function matchKey(query: PreviewQuery): string {
  return `${albumKey(query.artist, query.album)}\u241f${[...editionLabels(query.album)].sort().join(' ')}`;
}
