import { mkdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '@crateflow/sdk';

/**
 * Creates an album folder holding one audio file. With a clock, the file and the folder get that clock's time
 * as their modification time: file times otherwise come from the real clock, and a blackhole judging "quiet
 * for long enough" by a manual clock would see files from its future.
 */
export async function writeAlbum(folder: string, clock?: Clock, track = '01 Track.flac'): Promise<string> {
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, track), 'audio');
  if (clock) {
    const at = new Date(clock.now());
    await utimes(join(folder, track), at, at);
    await utimes(folder, at, at);
  }
  return folder;
}
