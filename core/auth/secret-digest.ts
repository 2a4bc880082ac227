import { createHash } from 'node:crypto';

/**
 * The SHA-256 of a secret (a password, an API key) as UTF-8: what is compared with timingSafeEqual (equal lengths,
 * whatever the secret's) and what is kept of a random key instead of the key.
 */
export function secretDigest(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}
