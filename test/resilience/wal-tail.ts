import { readFile } from 'node:fs/promises';

// What a kill left at the end of a SQLite write-ahead log, read from the file itself (the WAL format is documented
// at sqlite.org/fileformat2.html, "The Write-Ahead Log"): a 32-byte header, then frames of a 24-byte header and one
// page. A frame belongs to the current log when its salts equal the header's and its checksum continues the chain;
// a frame whose "database size" field is not 0 ends a transaction (a commit). Frames of the current log after the
// last commit, or a frame cut short at the end of the file, are a transaction the kill interrupted: SQLite ignores
// them when it opens the database, which is what a crash test wants to see happen.

const HEADER_BYTES = 32;
const FRAME_HEADER_BYTES = 24;
const MAGIC_LITTLE_ENDIAN = 0x377f0682;
const MAGIC_BIG_ENDIAN = 0x377f0683;

export interface WalTail {
  /** Bytes of the file (0 when there is none). */
  bytes: number;
  /** Frames up to and including the last valid commit frame: what a reopen replays. */
  committedFrames: number;
  /** Byte offset just past the last valid commit frame (the header's end when none). */
  committedEnd: number;
  /** Frames of the current log after the last commit (a transaction that never committed), checksum valid or not. */
  unfinishedFrames: number;
  /** Bytes at the very end too few for a whole frame (a write cut short). */
  partialBytes: number;
  /**
   * Commit frames of the current log after a frame whose checksum broke the chain: transactions that had committed
   * behind damage. A crash leaves none (it can only cut the one transaction being written); SQLite drops them too.
   */
  commitsBehindDamage: number;
}

/** True when the log ends in an interrupted transaction: whole frames without their commit, or a cut frame. */
export function endsTorn(tail: WalTail): boolean {
  return tail.unfinishedFrames > 0 || tail.partialBytes > 0;
}

/** Reads the WAL at `path` (a missing or empty file is an empty log). */
export async function readWalTail(path: string): Promise<WalTail> {
  const file = await readFile(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return Buffer.alloc(0);
    throw err;
  });
  const empty: WalTail = { bytes: file.length, committedFrames: 0, committedEnd: HEADER_BYTES, unfinishedFrames: 0, partialBytes: 0, commitsBehindDamage: 0 };
  if (file.length < HEADER_BYTES) return { ...empty, committedEnd: 0, partialBytes: file.length };
  const magic = file.readUInt32BE(0);
  if (magic !== MAGIC_LITTLE_ENDIAN && magic !== MAGIC_BIG_ENDIAN) throw new Error(`${path} is not a SQLite WAL (magic ${magic.toString(16)})`);
  const bigEndian = magic === MAGIC_BIG_ENDIAN;
  const pageSize = file.readUInt32BE(8) === 1 ? 65536 : file.readUInt32BE(8);
  const salt1 = file.readUInt32BE(16);
  const salt2 = file.readUInt32BE(20);
  let sum = checksum(file.subarray(0, 24), [0, 0], bigEndian);
  if (sum[0] !== file.readUInt32BE(24) || sum[1] !== file.readUInt32BE(28)) return empty; // a header never completed
  const frameBytes = FRAME_HEADER_BYTES + pageSize;
  let frames = 0;
  let committedFrames = 0;
  let committedEnd = HEADER_BYTES;
  let unfinishedFrames = 0;
  let offset = HEADER_BYTES;
  let chainIntact = true;
  let commitsBehindDamage = 0;
  for (; offset + frameBytes <= file.length; offset += frameBytes) {
    if (file.readUInt32BE(offset + 8) !== salt1 || file.readUInt32BE(offset + 12) !== salt2) {
      // A frame of an earlier log that this one has not overwritten yet: the current log ends here.
      return { bytes: file.length, committedFrames, committedEnd, unfinishedFrames, partialBytes: 0, commitsBehindDamage };
    }
    frames++;
    const commit = file.readUInt32BE(offset + 4) !== 0;
    if (!chainIntact) {
      unfinishedFrames++;
      if (commit) commitsBehindDamage++;
      continue;
    }
    sum = checksum(file.subarray(offset, offset + 8), sum, bigEndian);
    sum = checksum(file.subarray(offset + FRAME_HEADER_BYTES, offset + frameBytes), sum, bigEndian);
    chainIntact = sum[0] === file.readUInt32BE(offset + 16) && sum[1] === file.readUInt32BE(offset + 20);
    if (chainIntact && commit) {
      committedFrames = frames;
      committedEnd = offset + frameBytes;
      unfinishedFrames = 0;
    } else unfinishedFrames++;
  }
  return { bytes: file.length, committedFrames, committedEnd, unfinishedFrames, partialBytes: file.length - offset, commitsBehindDamage };
}

/** The WAL's running checksum over `data` (32-bit words, two at a time) from `start`. */
function checksum(data: Buffer, start: readonly [number, number], bigEndian: boolean): [number, number] {
  let [s0, s1] = start;
  for (let i = 0; i < data.length; i += 8) {
    const x0 = bigEndian ? data.readUInt32BE(i) : data.readUInt32LE(i);
    const x1 = bigEndian ? data.readUInt32BE(i + 4) : data.readUInt32LE(i + 4);
    s0 = (s0 + x0 + s1) >>> 0;
    s1 = (s1 + x1 + s0) >>> 0;
  }
  return [s0, s1];
}
