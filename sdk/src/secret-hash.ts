import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

// scrypt parameters for new hashes: N = 2^15, r = 8, p = 1 (about 32 MiB and 50-100 ms per hash).
const LOG_N = 15;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
const PHC = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+={0,2})\$([A-Za-z0-9+/]+={0,2})$/;

function derive(secret: string, salt: Buffer, keyLength: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(secret, salt, keyLength, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

const scryptOptions = (logN: number, r: number, p: number): ScryptOptions => ({ N: 2 ** logN, r, p, maxmem: 256 * 2 ** logN * r + 1024 * 1024 });

/**
 * Hashes a password or API key with scrypt, as a PHC string (`$scrypt$ln=15,r=8,p=1$<salt>$<hash>`), the
 * format `password_hash` and `key_hash` accept in config.yaml.
 *
 * @example
 * const stored = await hashSecret('correct horse battery staple');
 */
export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(secret, salt, KEY_LENGTH, scryptOptions(LOG_N, R, P));
  return `$scrypt$ln=${LOG_N},r=${R},p=${P}$${salt.toString('base64').replace(/=+$/, '')}$${key.toString('base64').replace(/=+$/, '')}`;
}

/**
 * Whether `hash` is a PHC scrypt string that {@link verifySecret} can check.
 *
 * @example
 * if (!isSecretHash(config.password_hash)) throw new Error('password_hash: run `crateflow hash-password`');
 */
export function isSecretHash(hash: string): boolean {
  return PHC.test(hash);
}

/**
 * Checks a secret against a PHC scrypt hash, comparing in constant time. False for a malformed hash.
 *
 * @example
 * if (await verifySecret(password, config.password_hash)) …
 */
export async function verifySecret(secret: string, hash: string): Promise<boolean> {
  const match = PHC.exec(hash);
  if (!match) return false;
  const [, logN, r, p, salt, expected] = match;
  const want = Buffer.from(expected ?? '', 'base64');
  if (want.length < 16) return false;
  const got = await derive(secret, Buffer.from(salt ?? '', 'base64'), want.length, scryptOptions(Number(logN), Number(r), Number(p)));
  return timingSafeEqual(got, want);
}
