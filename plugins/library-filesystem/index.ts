import { opendir } from 'node:fs/promises';
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
/** Plugin storage key: the library folder a sync last found albums in. */
const SEEN_ROOT = 'seen_root';

/**
 * The default library: a plain folder of `<Artist>/<Album>` folders. An album counts when its folder (or a
 * disc sub-folder such as `CD1`) holds at least one audio file.
 */
export default definePlugin({
  manifest: { name: 'library-filesystem', kind: 'library', apiVersion: PLUGIN_API_VERSION, configSchema: Config, version: '1.0.0' },
  create: ({ config, log, storage }) => {
    const extensions = new Set(config.audio_extensions);
    return {
      async *albums(signal: AbortSignal): AsyncIterable<LibraryAlbum[]> {
        const artists = await visibleEntries(config.path).catch((err: NodeJS.ErrnoException) => {
          // Once albums were found here, a folder that is gone is a NAS that is not mounted (or a renamed
          // folder), not an empty library: failing keeps the last library instead of emptying it.
          if (err.code === 'ENOENT' && storage.get<string>(SEEN_ROOT) === config.path) {
            throw new Error(`the library folder ${config.path} is gone, though the last sync found albums in it (is the drive or NAS mounted?)`, { cause: err });
          }
          if (err.code === 'ENOENT') {
            log.warn({ path: config.path }, 'the library folder does not exist yet; the library is empty');
            return [];
          }
          throw new Error(`cannot read the library folder ${config.path}: ${err.code ?? err.message}`, { cause: err });
        });
        const artistDirs = artists.filter((d) => d.isDirectory);
        let page: LibraryAlbum[] = [];
        let found = 0;
        for (let i = 0; i < artistDirs.length && !signal.aborted; i += PARALLEL_READS) {
          const batch = artistDirs.slice(i, i + PARALLEL_READS);
          const albumsByArtist = await Promise.all(batch.map((artist) => albumsOf(join(config.path, artist.name), artist.name, extensions)));
          for (const albums of albumsByArtist) page.push(...albums);
          if (page.length >= PAGE_SIZE) {
            found += page.length;
            yield page;
            page = [];
          }
        }
        found += page.length;
        if (page.length > 0 && !signal.aborted) yield page;
        if (found > 0 && !signal.aborted && storage.get<string>(SEEN_ROOT) !== config.path) await storage.set(SEEN_ROOT, config.path);
      },
      async health() {
        let empty: boolean;
        try {
          empty = await isEmptyFolder(config.path);
        } catch (err: unknown) {
          return { ok: false, message: `cannot read ${config.path}: ${err instanceof Error ? err.message : String(err)}` };
        }
        // An empty folder where albums were found before is a mount point whose drive or share is missing.
        if (empty && storage.get<string>(SEEN_ROOT) === config.path) {
          return { ok: false, message: `the library folder ${config.path} is empty, though albums were found in it before (is the drive or NAS mounted?)` };
        }
        return { ok: true };
      },
    };
  },
});

/** Reads one entry, not the whole listing: /health probes this, and a library folder can hold 100,000 artists. */
async function isEmptyFolder(path: string): Promise<boolean> {
  const dir = await opendir(path);
  try {
    return (await dir.read()) === null;
  } finally {
    await dir.close();
  }
}

async function albumsOf(artistPath: string, artist: string, extensions: ReadonlySet<string>): Promise<LibraryAlbum[]> {
  const entries = await visibleEntries(artistPath);
  const albums = await Promise.all(
    entries
      .filter((d) => d.isDirectory)
      .map(async (dir) => ((await containsAudio(join(artistPath, dir.name), extensions, 1)) ? { artist, album: dir.name } : undefined)),
  );
  return albums.filter((a): a is LibraryAlbum => a !== undefined);
}
