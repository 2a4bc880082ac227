import { stat } from 'node:fs/promises';
import { basename } from 'node:path';

/**
 * How many of a candidate's files are at their local paths with their full size (and how many bytes have arrived). slskd sets `Completed, Succeeded`
 * *before* it moves a file from its incomplete directory into the downloads directory, and a move across
 * filesystems is a copy that takes as long as one (slskd's `src/slskd/Transfers/Downloads/DownloadService.cs`:
 * the state update precedes `Files.MoveFile`). So an album is complete only when this counts every file.
 */
export async function filesOnDisk(files: readonly { path: string; size: number }[]): Promise<{ present: number; bytes: number; absent: string[] }> {
  let present = 0;
  let bytes = 0;
  const absent: string[] = [];
  for (const file of files) {
    const size = await sizeOf(file.path);
    // Bytes already copied count as progress, so a slow move is not taken for a stall.
    bytes += Math.min(size ?? 0, file.size);
    if (size === file.size) present++;
    else absent.push(basename(file.path));
  }
  return { present, bytes, absent };
}

async function sizeOf(path: string): Promise<number | undefined> {
  try {
    const info = await stat(path);
    return info.isFile() ? info.size : undefined;
  } catch (err: unknown) {
    // ENOENT: slskd has not moved it yet. Any other error (permissions, a wrong downloads_dir) also means "not
    // usable here"; the stall limit turns a file that never arrives into a failed candidate naming the folder.
    return undefined;
  }
}
