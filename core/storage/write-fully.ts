import type { FileHandle } from 'node:fs/promises';

/**
 * Writes every byte of `data` at `position`, or throws. A single write(2) may write fewer bytes than asked (a
 * nearly full disk writes what fits and returns the count; the next call fails with ENOSPC). FileHandle.write
 * reports that count and does not retry, so a caller that ignores it acknowledges a change that is only partly on
 * disk. Zero bytes written with no error is treated as a full disk, never as progress.
 */
export async function writeFully(handle: FileHandle, data: Buffer, position: number): Promise<void> {
  let done = 0;
  while (done < data.length) {
    const { bytesWritten } = await handle.write(data, done, data.length - done, position + done);
    if (bytesWritten <= 0) throw Object.assign(new Error(`only ${done} of ${data.length} bytes could be written`), { code: 'ENOSPC' });
    done += bytesWritten;
  }
}
