import { stat } from 'node:fs/promises';
import type { PluginStorage } from '@crateflow/sdk';

const PREFIX = 'folder/';

/**
 * Which download uses which local folder, for slskd before 0.26. Those versions put every file in
 * `<downloads>/<last remote folder name>`, so two albums shared as `…\Dummy (1994)\FLAC` and
 * `…\Mezzanine (1998)\FLAC` would both fill `<downloads>/FLAC` and both be reported complete there. A candidate
 * whose folder another download claimed, or that already exists on disk without being ours (an earlier album
 * still sitting there), is a collision: the caller skips it for the next candidate.
 */
export class FolderClaims {
  constructor(private readonly storage: PluginStorage) {}

  /** Claims `folder` for `ref`; answers the reason when it is taken. */
  async claim(folder: string, ref: string): Promise<string | undefined> {
    const holder = this.storage.get<string>(PREFIX + folder);
    if (holder !== undefined && holder !== ref) return `its local folder ${folder} is in use by another download (slskd before 0.26 names folders after the last remote segment)`;
    if (holder === undefined && (await exists(folder))) return `its local folder ${folder} already exists and holds something else (slskd before 0.26 names folders after the last remote segment)`;
    if (holder === undefined) await this.storage.set(PREFIX + folder, ref);
    return undefined;
  }

  /** Gives up every folder `ref` holds (the download finished, failed or was cancelled). */
  async release(ref: string): Promise<void> {
    const held = [...this.storage.entries<string>(PREFIX)].filter(([, holder]) => holder === ref).map(([key]) => key);
    for (const key of held) await this.storage.delete(key);
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (err: unknown) {
    // Only "missing" makes a folder free; anything else (permissions) counts as taken, the safe side.
    return !(err instanceof Error && 'code' in err && err.code === 'ENOENT');
  }
}
