import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * A new id: 10 characters of time (ms, base 32) then 12 random ones, so ids sort by creation time and never
 * look like numbers (JSON object keys stay in insertion order).
 */
export function newId(now: number = Date.now()): string {
  let time = '';
  for (let value = now, i = 0; i < 10; i++, value = Math.floor(value / 32)) time = ALPHABET[value % 32] + time;
  const random = randomBytes(12);
  let tail = '';
  for (const byte of random) tail += ALPHABET[byte % 32];
  return time + tail;
}
