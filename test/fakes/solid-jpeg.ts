/**
 * A real baseline JPEG of one flat grey, built byte by byte so the Cover Art Archive fake serves images a browser
 * or an image library decodes, without committing binary fixtures. Every 8×8 block is "no change, end of block",
 * which with one-code Huffman tables is two zero bits; a comment segment carries `label`, so two images of the same
 * size still differ in bytes.
 */
export function solidJpeg(width: number, height: number, label: string): Buffer {
  const blocks = Math.ceil(width / 8) * Math.ceil(height / 8);
  const comment = Buffer.from(label, 'utf8');
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]), // SOI
    segment(0xe0, Buffer.from([0x4a, 0x46, 0x49, 0x46, 0x00, 1, 1, 0, 0, 1, 0, 1, 0, 0])), // APP0 "JFIF", 1.1, no thumbnail
    segment(0xfe, comment), // COM
    segment(0xdb, Buffer.from([0x00, ...new Array<number>(64).fill(1)])), // DQT: table 0, all ones
    segment(0xc0, Buffer.from([8, height >> 8, height & 0xff, width >> 8, width & 0xff, 1, 1, 0x11, 0])), // SOF0, one component
    segment(0xc4, huffmanTable(0x00)), // DHT: DC table 0, the single symbol 0 ("difference category 0")
    segment(0xc4, huffmanTable(0x10)), // DHT: AC table 0, the single symbol 0x00 ("end of block")
    segment(0xda, Buffer.from([1, 1, 0x00, 0, 63, 0])), // SOS
    // Two bits per block, all zero; the last byte is padded with one bits as the format asks.
    scanData(blocks * 2),
    Buffer.from([0xff, 0xd9]), // EOI
  ]);
}

function segment(marker: number, payload: Buffer): Buffer {
  const length = payload.length + 2;
  return Buffer.concat([Buffer.from([0xff, marker, length >> 8, length & 0xff]), payload]);
}

function huffmanTable(classAndId: number): Buffer {
  const counts = new Array<number>(16).fill(0);
  counts[0] = 1;
  return Buffer.from([classAndId, ...counts, 0x00]);
}

function scanData(bits: number): Buffer {
  const data = Buffer.alloc(Math.ceil(bits / 8));
  const spare = data.length * 8 - bits;
  if (spare > 0) data[data.length - 1] = (1 << spare) - 1;
  return data;
}
