import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

const HEADER_BYTES = 32;
const FRAME_HEADER_BYTES = 24;
const MAGIC_LITTLE_ENDIAN = 0x377f0682;
const MAGIC_BIG_ENDIAN = 0x377f0683;

/** A damaged frame of the write-ahead log with committed transactions after it. */
export interface WalDamage {
  /** 1-based, as SQLite numbers frames. */
  frame: number;
  committedAfter: number;
}

/**
 * Looks for damage in the middle of a write-ahead log, before SQLite opens it. SQLite replays the log up to the
 * first frame whose checksum fails and silently drops everything after it: right for a torn last write (never
 * acknowledged), but a damaged frame with commits of this log after it (their salts match the log's header, so
 * they were written after it) means acknowledged changes would vanish. Damage at the tail looks like a torn
 * write and is left to SQLite. Layout: SQLite's file format, "The WAL File Format" (header, then frames of a
 * 24-byte header and one page; cumulative checksums in the byte order the magic number names).
 */
export function findWalDamage(walFile: string): WalDamage | undefined {
  let fd: number;
  try {
    fd = openSync(walFile, 'r');
  } catch (err: unknown) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const size = fstatSync(fd).size;
    const header = read(fd, 0, HEADER_BYTES);
    if (header.length < HEADER_BYTES) return undefined;
    const magic = header.readUInt32BE(0);
    if (magic !== MAGIC_LITTLE_ENDIAN && magic !== MAGIC_BIG_ENDIAN) return undefined;
    const bigEndian = magic === MAGIC_BIG_ENDIAN;
    const pageSize = header.readUInt32BE(8);
    // An unreadable header makes SQLite ignore the whole log, as it does a log it never finished starting.
    let sum = checksum(header.subarray(0, 24), [0, 0], bigEndian);
    if (sum[0] !== header.readUInt32BE(24) || sum[1] !== header.readUInt32BE(28)) return undefined;
    const salt1 = header.readUInt32BE(16);
    const salt2 = header.readUInt32BE(20);
    const frameBytes = FRAME_HEADER_BYTES + pageSize;
    const frames = Math.floor((size - HEADER_BYTES) / frameBytes);
    let damaged: number | undefined;
    let committedAfter = 0;
    for (let i = 0; i < frames; i++) {
      const frame = read(fd, HEADER_BYTES + i * frameBytes, frameBytes);
      const ofThisLog = frame.readUInt32BE(8) === salt1 && frame.readUInt32BE(12) === salt2;
      const isCommit = frame.readUInt32BE(4) !== 0;
      if (damaged === undefined) {
        if (!ofThisLog) return undefined; // the end of this log; older frames follow
        sum = checksum(frame.subarray(FRAME_HEADER_BYTES), checksum(frame.subarray(0, 8), sum, bigEndian), bigEndian);
        if (sum[0] !== frame.readUInt32BE(16) || sum[1] !== frame.readUInt32BE(20)) damaged = i + 1;
      } else if (ofThisLog && isCommit) committedAfter++;
    }
    return damaged !== undefined && committedAfter > 0 ? { frame: damaged, committedAfter } : undefined;
  } finally {
    closeSync(fd);
  }
}

function read(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  const got = readSync(fd, buffer, 0, length, position);
  return buffer.subarray(0, got);
}

/** SQLite's WAL checksum over 32-bit words, continued from `[s0, s1]`. */
function checksum(data: Buffer, [s0, s1]: [number, number], bigEndian: boolean): [number, number] {
  for (let i = 0; i + 8 <= data.length; i += 8) {
    const x0 = bigEndian ? data.readUInt32BE(i) : data.readUInt32LE(i);
    const x1 = bigEndian ? data.readUInt32BE(i + 4) : data.readUInt32LE(i + 4);
    s0 = (s0 + x0 + s1) >>> 0;
    s1 = (s1 + x1 + s0) >>> 0;
  }
  return [s0, s1];
}
