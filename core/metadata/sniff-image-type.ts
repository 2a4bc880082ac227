export interface ImageType {
  readonly contentType: 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';
  /** The file extension covers of this type are stored under. */
  readonly extension: 'jpg' | 'png' | 'gif' | 'webp';
}

/** Every type a cover may be, in the order stored files are looked for. */
export const IMAGE_TYPES: readonly ImageType[] = [
  { contentType: 'image/jpeg', extension: 'jpg' },
  { contentType: 'image/png', extension: 'png' },
  { contentType: 'image/gif', extension: 'gif' },
  { contentType: 'image/webp', extension: 'webp' },
];

const starts = (bytes: Buffer, offset: number, signature: readonly number[]): boolean =>
  bytes.length >= offset + signature.length && signature.every((byte, i) => bytes[offset + i] === byte);

/**
 * What image the bytes are, from their magic numbers (JPEG `FF D8 FF`, PNG `89 50 4E 47 0D 0A 1A 0A`, GIF `GIF8`,
 * WebP `RIFF....WEBP`), or undefined when they are none of these. Upstream `Content-Type` headers are not believed:
 * an HTML page served as a cover would run in the browser that opens it.
 */
export function sniffImageType(bytes: Buffer): ImageType | undefined {
  if (starts(bytes, 0, [0xff, 0xd8, 0xff])) return IMAGE_TYPES[0];
  if (starts(bytes, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return IMAGE_TYPES[1];
  if (starts(bytes, 0, [0x47, 0x49, 0x46, 0x38])) return IMAGE_TYPES[2];
  if (starts(bytes, 0, [0x52, 0x49, 0x46, 0x46]) && starts(bytes, 8, [0x57, 0x45, 0x42, 0x50])) return IMAGE_TYPES[3];
  return undefined;
}
