import { createHash, randomBytes, scrypt } from 'node:crypto';
import type { PluginStorage } from '@crateflow/sdk';
import type { Account } from './credential-check.js';

const STAMP_KEY = 'credential/stamp';
const SALT_KEY = 'credential/salt';

/**
 * A fingerprint of the configured account (username and password or password hash), kept in plugin storage
 * so that a start with changed credentials can tell and end every session: whoever changes a leaked password
 * expects the thief's session to end with it. The stamp must not help anyone who copies the data folder guess
 * the password: a `password_hash` is already salted scrypt, so a SHA-256 of it adds nothing; a plain
 * `password` is stamped with salted scrypt (the salt stored beside it), so it is no quick guess either.
 */
export async function credentialStamp(account: Account, storage: PluginStorage): Promise<string> {
  if (account.password_hash !== undefined) return sha256(`hash\0${account.username}\0${account.password_hash}`);
  const stored = storage.get(SALT_KEY);
  const salt = typeof stored === 'string' && stored.length > 0 ? stored : randomBytes(16).toString('base64url');
  if (salt !== stored) await storage.set(SALT_KEY, salt);
  const derived = await new Promise<Buffer>((resolve, reject) => {
    // N = 2^13 (8 MiB, a quarter of hash-password's cost): thousands of times slower to guess against than a
    // SHA-256, yet it adds only tens of milliseconds to each start (tests start apps in basic mode by the dozen).
    scrypt(account.password ?? '', salt, 32, { N: 2 ** 13, r: 8, p: 1, maxmem: 32 * 1024 * 1024 }, (err, key) => (err ? reject(err) : resolve(key)));
  });
  return sha256(`plain\0${account.username}\0${derived.toString('base64url')}`);
}

/** Whether the account differs from the one the stored stamp was taken of (true on a first start, too). */
export async function credentialsChanged(stamp: string, storage: PluginStorage): Promise<boolean> {
  const before = storage.get(STAMP_KEY);
  if (before === stamp) return false;
  await storage.set(STAMP_KEY, stamp);
  return true;
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64url');
}
