import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { postJson } from './post-json.js';

const FOLDERS_AT_ONCE = 64;
const SYNC_POLL_MS = 200;

/** One album folder of the bench's folder library. */
export interface AlbumFolder {
  artist: string;
  album: string;
}

/**
 * `count` albums named apart from the bench's queue candidates (`Owned Artist N/Owned Album N`), so a sync
 * removes no wishlist item for them.
 */
export function ownedAlbums(count: number): AlbumFolder[] {
  return Array.from({ length: count }, (_, index) => ({ artist: `Owned Artist ${index}`, album: `Owned Album ${index}` }));
}

/**
 * Makes `artist/album/01.flac` for each album (empty files: the folder library counts a folder with an audio file
 * as an album). Folders are made a few dozen at a time: 100,000 albums take seconds, not minutes.
 */
export async function makeAlbumFolders(musicDir: string, albums: readonly AlbumFolder[]): Promise<void> {
  for (let start = 0; start < albums.length; start += FOLDERS_AT_ONCE) {
    await Promise.all(
      albums.slice(start, start + FOLDERS_AT_ONCE).map(async ({ artist, album }) => {
        const folder = join(musicDir, artist, album);
        await mkdir(folder, { recursive: true });
        await writeFile(join(folder, '01.flac'), '');
      }),
    );
  }
}

/** Runs a library sync through the API and waits for its job to complete; answers the albums it found. */
export async function syncLibrary(baseUrl: string, timeoutMs: number): Promise<number> {
  const started = await postJson(`${baseUrl}/api/v1/library/sync`, undefined, 202);
  const id = jobIdOf(started);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const job: unknown = await (await fetch(`${baseUrl}/api/v1/jobs/${id}`)).json();
    const status = job && typeof job === 'object' && 'status' in job ? job.status : undefined;
    if (status === 'completed') {
      const library: unknown = await (await fetch(`${baseUrl}/api/v1/library?limit=1`)).json();
      return library && typeof library === 'object' && 'total' in library && typeof library.total === 'number' ? library.total : 0;
    }
    if (status === 'failed') throw new Error(`the library sync failed: ${JSON.stringify(job)}`);
    await sleep(SYNC_POLL_MS);
  }
  throw new Error(`the library sync did not end within ${timeoutMs} ms`);
}

function jobIdOf(body: unknown): string {
  const job = body && typeof body === 'object' && 'job' in body ? body.job : undefined;
  const id = job && typeof job === 'object' && 'id' in job ? job.id : undefined;
  if (typeof id !== 'string') throw new Error(`POST /api/v1/library/sync answered without a job id: ${JSON.stringify(body)}`);
  return id;
}
