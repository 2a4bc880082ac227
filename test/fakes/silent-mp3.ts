/**
 * A real MP3 of silence, built frame by frame so the Deezer fake's previews play in a browser without a committed
 * binary. MPEG-1 Layer III at 48 kHz and 128 kbit/s makes every frame exactly 384 bytes (144 × 128000 / 48000, no
 * padding) and 24 ms long (1152 samples); 30 s is 1250 frames, 480 000 bytes — the size of a real Deezer preview.
 * Each frame is a header followed by zeros: zero side information means no Huffman data and a gain that decodes
 * to silence.
 */
const FRAME_BYTES = 384;
const FRAME_MS = 24;

export function silentMp3(durationMs = 30_000): Buffer {
  const frames = Math.ceil(durationMs / FRAME_MS);
  const frame = Buffer.alloc(FRAME_BYTES);
  // Sync word, MPEG-1, Layer III, no CRC | 128 kbit/s, 48 kHz, no padding | mono, no copyright, original, no emphasis.
  frame.set([0xff, 0xfb, 0x94, 0xc4]);
  return Buffer.concat(new Array<Buffer>(frames).fill(frame));
}
