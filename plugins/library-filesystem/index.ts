import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { definePlugin, PLUGIN_API_VERSION, Type, type LibraryAlbum } from '@crateflow/sdk';
import { containsAudio } from './contains-audio.js';
import { visibleEntries } from './visible-entries.js';

const Config = Type.Object(
  {
    path: Type.String({ minLength: 1, default: './music', description: 'music folder laid out as <Artist>/<Album>/' }),
    audio_extensions: Type.Array(Type.String({ pattern: '^[a-z0-9]+$' }), {
      default: ['flac', 'mp3', 'm4a', 'aac', 'ogg', 'opus', 'wav', 'alac', 'aiff', 'wv', 'ape', 'dsf'],
      description: 'file extensions that count as audio (lower case, without the dot)',
    }),
  },
  { additionalProperties: false },
);

const PAGE_SIZE = 500;
const PARALLEL_READS = 16;

/**
 * The default library: a plain folder of `<Artist>/<Album>` folders. An album counts when its folder (or a
 * disc sub-folder such as `CD1`) holds at least one audio file.
 */
export default definePlugin({
  manifest: { name: 'library-filesystem', kind: 'library', apiVersion: PLUGIN_API_VERSION, configSchema: Config, version: '1.0.0' },
  create: ({ config, log }) => {
    const extensions = new Set(config.audio_extensions);
    return {
      async *albums(signal: AbortSignal): AsyncIterable<LibraryAlbum[]> {
        const artists = await visibleEntries(config.path).catch((err: NodeJS.ErrnoException) => {
          if (err.code === 'ENOENT') {
            log.warn({ path: config.path }, 'the library folder does not exist yet; the library is empty');
            return [];
          }
          throw new Error(`cannot read the library folder ${config.path}: ${err.code ?? err.message}`, { cause: err });
        });
        const artistDirs = artists.filter((d) => d.isDirectory);
        let page: LibraryAlbum[] = [];
        for (let i = 0; i < artistDirs.length && !signal.aborted; i += PARALLEL_READS) {
          const batch = artistDirs.slice(i, i + PARALLEL_READS);
          const found = await Promise.all(batch.map((artist) => albumsOf(join(config.path, artist.name), artist.name, extensions)));
          for (const albums of found) page.push(...albums);
          if (page.length >= PAGE_SIZE) {
            yield page;
            page = [];
          }
        }
        if (page.length > 0 && !signal.aborted) yield page;
      },
      async health() {
        try {
          await readdir(config.path);
          return { ok: true };
        } catch (err: unknown) {
          return { ok: false, message: `cannot read ${config.path}: ${err instanceof Error ? err.message : String(err)}` };
        }
      },
    };
  },
});

async function albumsOf(artistPath: string, artist: string, extensions: ReadonlySet<string>): Promise<LibraryAlbum[]> {
  const entries = await visibleEntries(artistPath);
  const albums = await Promise.all(
    entries
      .filter((d) => d.isDirectory)
      .map(async (dir) => ((await containsAudio(join(artistPath, dir.name), extensions, 1)) ? { artist, album: dir.name } : undefined)),
  );
  return albums.filter((a): a is LibraryAlbum => a !== undefined);
}
