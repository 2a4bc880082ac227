import { open, readFile, rename, unlink } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { writeFully } from './write-fully.js';

/** The typed arrays an index is made of, by name. */
export type IndexArrays = Record<string, Uint8Array<ArrayBuffer> | Int32Array<ArrayBuffer> | Uint32Array<ArrayBuffer> | Float64Array<ArrayBuffer>>;

export interface StoredIndex<Meta> {
  meta: Meta;
  arrays: IndexArrays;
}

const MAGIC = Buffer.from('crateflow-index 1\n');
const KINDS = { Uint8Array, Int32Array, Uint32Array, Float64Array } as const;
type KindName = keyof typeof KINDS;

/**
 * A derived index saved beside the file it indexes (`<file>.idx`), so a start-up reads a few typed arrays instead
 * of every line of a 100,000-line file. It is a cache, never the truth: a missing, torn, foreign or stale index
 * file reads as none (the caller rebuilds from the lines and saves again), so it needs no fsync and no place in
 * the crash-consistency story. Written to a temp name and renamed, so a reader sees a whole one or the last one.
 *
 * Layout: magic, a JSON header (the caller's meta and each array's kind and length), the arrays at 8-byte aligned
 * offsets, and a CRC-32 of all of it.
 */
export class IndexFile<Meta> {
  constructor(readonly path: string) {}

  /** The saved index, or undefined when there is none or it is not whole. */
  async read(): Promise<StoredIndex<Meta> | undefined> {
    let bytes: Buffer;
    try {
      bytes = await readFile(this.path);
    } catch (err: unknown) {
      if (err instanceof Error && 'code' in err && err.code === 'ENOENT') return undefined;
      throw err;
    }
    return decode<Meta>(bytes);
  }

  async write(meta: Meta, arrays: IndexArrays): Promise<void> {
    const header = Buffer.from(JSON.stringify({ meta, arrays: Object.entries(arrays).map(([name, array]) => [name, kindOf(array), array.length]) }));
    const parts: Buffer[] = [MAGIC, u32(header.length), header];
    let length = MAGIC.length + 4 + header.length;
    for (const array of Object.values(arrays)) {
      const padding = (8 - (length % 8)) % 8;
      parts.push(Buffer.alloc(padding), Buffer.from(array.buffer, array.byteOffset, array.byteLength));
      length += padding + array.byteLength;
    }
    let sum = 0;
    for (const part of parts) sum = crc32(part, sum);
    parts.push(u32(sum));
    const temp = `${this.path}.tmp`;
    const handle = await open(temp, 'w');
    try {
      let at = 0;
      for (const part of parts) {
        await writeFully(handle, part, at);
        at += part.length;
      }
    } finally {
      await handle.close();
    }
    await rename(temp, this.path);
  }

  async remove(): Promise<void> {
    await unlink(this.path).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
  }
}

function decode<Meta>(bytes: Buffer): StoredIndex<Meta> | undefined {
  if (bytes.length < MAGIC.length + 8 || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  const body = bytes.subarray(0, bytes.length - 4);
  if (crc32(body) !== bytes.readUInt32LE(bytes.length - 4)) return undefined;
  const headerLength = bytes.readUInt32LE(MAGIC.length);
  let at = MAGIC.length + 4;
  let header: { meta: Meta; arrays: [string, KindName, number][] };
  try {
    header = JSON.parse(bytes.toString('utf8', at, at + headerLength));
  } catch {
    return undefined;
  }
  at += headerLength;
  // The arrays are copied out of the file's buffer: views would need it 8-byte aligned, and would keep the
  // whole buffer alive for as long as any one array is kept.
  const arrays: IndexArrays = {};
  for (const [name, kind, length] of header.arrays) {
    const Kind = KINDS[kind];
    if (!Kind) return undefined;
    at += (8 - (at % 8)) % 8;
    const byteLength = length * Kind.BYTES_PER_ELEMENT;
    if (at + byteLength > body.length) return undefined;
    const array = new Kind(length);
    Buffer.from(array.buffer).set(body.subarray(at, at + byteLength));
    arrays[name] = array;
    at += byteLength;
  }
  return { meta: header.meta, arrays };
}

function kindOf(array: IndexArrays[string]): KindName {
  if (array instanceof Uint8Array) return 'Uint8Array';
  if (array instanceof Int32Array) return 'Int32Array';
  if (array instanceof Uint32Array) return 'Uint32Array';
  return 'Float64Array';
}

function u32(value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32LE(value >>> 0);
  return bytes;
}
