import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { MusicBrainzCatalogue } from '../test/fakes/musicbrainz-catalogue.js';
import { silentMp3 } from '../test/fakes/silent-mp3.js';

/** Artists of the catalogue the demo user "owns" albums of: seeds for similar-artists and new-releases. */
const OWNED_ARTISTS = 3;
const ALBUMS_EACH = 2;

/**
 * A small folder library (`<Artist>/<Album>/01 - Title.mp3`, 30 s of silence each): the first studio albums of a
 * few catalogue artists, so the sources have artists to start from and "already in your library" shows.
 */
export async function seedDemoLibrary(catalogue: MusicBrainzCatalogue, musicDir: string): Promise<void> {
  const mp3 = silentMp3();
  for (const artist of catalogue.artists.slice(1, 1 + OWNED_ARTISTS)) {
    const albums = catalogue.releaseGroupsOf(artist.id)
      .filter((group) => group.primaryType === 'Album' && group.secondaryTypes.length === 0 && group.credit.length === 1)
      .slice(0, ALBUMS_EACH);
    for (const album of albums) {
      const folder = join(musicDir, fileName(artist.name), fileName(album.title));
      await mkdir(folder, { recursive: true });
      await writeFile(join(folder, '01 - Track.mp3'), mp3);
    }
  }
}

function fileName(name: string): string {
  return name.replace(/[\\/:*?"<>|]/g, '_');
}
