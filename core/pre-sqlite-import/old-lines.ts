import { closeSync, openSync, readSync } from 'node:fs';

const CHUNK_BYTES = 1024 * 1024;

/** What reading a file of lines found. */
export interface OldLinesReading {
  /** False when there is no such file. */
  found: boolean;
  /** Bytes after the last newline (within the bytes read): a write cut short by a crash. */
  tornBytes: number;
}

/**
 * Every complete line of an old data file, numbered from 1, read synchronously in chunks (the import runs inside one
 * synchronous database change, and a file of a million lines is never one string). `end` stops at that many bytes:
 * the .jsonl files count only up to the length the core document acknowledged.
 */
export function eachOldLine(path: string, visit: (line: string, number: number) => void, end = Infinity): OldLinesReading {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err: unknown) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { found: false, tornBytes: 0 };
    throw err;
  }
  try {
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    let carry: Buffer[] = [];
    let carried = 0;
    let number = 0;
    let position = 0;
    while (position < end) {
      const bytesRead = readSync(fd, chunk, 0, Math.min(CHUNK_BYTES, end - position), position);
      if (bytesRead === 0) break;
      position += bytesRead;
      let start = 0;
      for (let newline = chunk.indexOf(10, 0); newline !== -1 && newline < bytesRead; newline = chunk.indexOf(10, start)) {
        const piece = chunk.subarray(start, newline);
        const bytes = carried > 0 ? Buffer.concat([...carry, piece]) : piece;
        carry = [];
        carried = 0;
        visit(bytes.toString('utf8'), ++number);
        start = newline + 1;
      }
      if (start < bytesRead) {
        carry.push(Buffer.from(chunk.subarray(start, bytesRead)));
        carried += bytesRead - start;
      }
    }
    return { found: true, tornBytes: carried };
  } finally {
    closeSync(fd);
  }
}
