import type { DownloadClient, DownloadUpdate, WantedItem } from '@crateflow/sdk';
import type { FakeSlskdFile } from '../../fakes/fake-slskd.js';

export const WANTED: WantedItem = { id: 'w_low_dn', artist: 'Low', album: 'Double Negative', type: 'album', year: 2018 };

const TITLES = ['Quorum', 'Dancing and Blood', 'Fly', 'Tempest', 'Always Up', 'Always Trying to Work It Out', 'The Son, the Sun', 'Dancing and Fire', 'Poor Sucker', 'Rome', 'Numb'];

/** An album folder as a peer shares it: `<root>\<folder>\NN - Title.<ext>`. */
export function albumFiles(root: string, folder: string, extension: string, count = TITLES.length, extra: Partial<FakeSlskdFile> = {}): FakeSlskdFile[] {
  return TITLES.slice(0, count).map((title, i) => ({
    filename: `${root}\\${folder}\\${String(i + 1).padStart(2, '0')} - ${title}.${extension}`,
    size: extension === 'flac' ? 30_000 + i : 9_000 + i,
    ...(extension === 'mp3' ? { bitRate: 320 } : { bitDepth: 16, sampleRate: 44100 }),
    ...extra,
  }));
}

/** Polls like the core does until the download is completed or failed; returns every update seen. */
export async function pollUntilDone(client: DownloadClient, ref: string, item: WantedItem = WANTED, limit = 60): Promise<DownloadUpdate[]> {
  const seen: DownloadUpdate[] = [];
  for (let i = 0; i < limit; i++) {
    const update = await client.status(ref, item);
    seen.push(update);
    if (update.state === 'completed' || update.state === 'failed') return seen;
  }
  throw new Error(`download ${ref} not finished after ${limit} polls; last update ${JSON.stringify(seen.at(-1))}`);
}

/** Polls until the download reaches `state` (or fails the test after `limit` polls). */
export async function pollUntil(client: DownloadClient, ref: string, state: DownloadUpdate['state'], item: WantedItem = WANTED, limit = 20): Promise<DownloadUpdate> {
  for (let i = 0; i < limit; i++) {
    const update = await client.status(ref, item);
    if (update.state === state) return update;
  }
  throw new Error(`download ${ref} never reached ${state}`);
}
