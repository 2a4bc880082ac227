import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { CandidateFile } from './download-record.js';
import { sanitizeSegment } from './local-folder.js';
import { remoteBaseName } from './remote-path.js';

/**
 * How many of a candidate's files are in `folder` with their full size (and how many bytes have arrived). slskd sets `Completed, Succeeded`
 * *before* it moves a file from its incomplete directory into the downloads directory, and a move across
 * filesystems is a copy that takes as long as one (slskd's `src/slskd/Transfers/Downloads/DownloadService.cs`:
 * the state update precedes `Files.MoveFile`). So an album is complete only when this counts every file.
 */
export async function filesOnDisk(folder: string, files: readonly CandidateFile[]): Promise<{ present: number; bytes: number; absent: string[] }> {
  let present = 0;
  let bytes = 0;
  const absent: string[] = [];
  for (const file of files) {
    const name = sanitizeSegment(remoteBaseName(file.filename));
    const size = await sizeOf(join(folder, name));
    // Bytes already copied count as progress, so a slow move is not taken for a stall.
    bytes += Math.min(size ?? 0, file.size);
    if (size === file.size) present++;
    else absent.push(name);
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
