import { open } from 'node:fs/promises';

const CHUNK_BYTES = 1024 * 1024;

export interface LineHandlers<Line> {
  /** A complete line (its newline removed), numbered from 1. */
  line(line: Line, number: number): void;
  /** The file ends with `bytes` bytes after its last newline: a write cut short. */
  torn?(bytes: number): void;
  /** Where to start reading (default 0: a line must start there) and where to stop (default: the end of the file). */
  start?: number;
  end?: number;
}

/**
 * Reads a file line by line in bounded memory (a chunk plus the longest line), so a store of any size the bounds
 * allow can be read back; one JSON string of the whole file cannot be, past V8's string limit (~512 MiB).
 * Resolves false when the file does not exist.
 */
export function readLines(path: string, handlers: LineHandlers<string>): Promise<boolean> {
  return readLineBytes(path, { ...handlers, line: (bytes, number) => handlers.line(bytes.toString('utf8'), number) });
}

/**
 * The same, with each line as bytes, valid only during the call: a reader that keeps a few fields of a long line
 * decodes just those, so the line itself can be collected (a slice of a decoded line keeps the whole line alive).
 */
export async function readLineBytes(path: string, handlers: LineHandlers<Buffer>): Promise<boolean> {
  const handle = await open(path, 'r').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (!handle) return false;
  try {
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    let carry: Buffer[] = [];
    let carried = 0;
    let number = 0;
    let position = handlers.start ?? 0;
    const stop = handlers.end ?? Infinity;
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, Math.min(CHUNK_BYTES, stop - position), position);
      if (bytesRead === 0) break;
      position += bytesRead;
      let start = 0;
      for (let end = chunk.indexOf(10, 0); end !== -1 && end < bytesRead; end = chunk.indexOf(10, start)) {
        const piece = chunk.subarray(start, end);
        const bytes = carried > 0 ? Buffer.concat([...carry, piece]) : piece;
        carry = [];
        carried = 0;
        handlers.line(bytes, ++number);
        start = end + 1;
      }
      if (start < bytesRead) {
        carry.push(Buffer.from(chunk.subarray(start, bytesRead)));
        carried += bytesRead - start;
      }
    }
    if (carried > 0) handlers.torn?.(carried);
    return true;
  } finally {
    await handle.close();
  }
}
