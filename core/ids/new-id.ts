import { randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * A new id: 10 characters of time (ms, base 32) then 12 random ones, so ids sort by creation time and never
 * look like numbers (JSON object keys stay in insertion order).
 */
export function newId(now: number = Date.now()): string {
  let time = '';
  for (let value = now, i = 0; i < 10; i++, value = Math.floor(value / 32)) time = ALPHABET[value % 32] + time;
  let tail = '';
  for (let i = 0; i < RANDOM_CHARS; i++) tail += ALPHABET[nextRandomByte() % 32];
  return time + tail;
}

const RANDOM_CHARS = 12;
/**
 * Random bytes fetched 4 KiB at a time: a call per id was 7 % of an approval's CPU time in a profile of approvals
 * at c=32 (each approval makes several ids). The bytes are as random either way; each is used once.
 */
const pool = Buffer.alloc(4096);
let used = pool.length;

function nextRandomByte(): number {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  return pool[used++] ?? 0;
}
