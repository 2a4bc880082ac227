import { randomBytes, scrypt } from 'node:crypto';
import type { Logger } from '@crateflow/sdk';
import type { Store } from '../storage/store.js';
import type { DecisionLinkService } from './decision-links.js';

const SALT_KEY = 'credentials/salt';
const FINGERPRINT_KEY = 'credentials/fingerprint';
/** The keys of `ui.auth` that say who may sign in; a change of any of them is a change of credentials. */
const CREDENTIAL_KEYS = ['enabled', 'type', 'username', 'password', 'password_hash', 'api_keys'] as const;

/**
 * Revokes the decision links issued before this start when the credentials in `ui.auth` changed since the last
 * start: whoever changes a leaked password expects what it opened to close, and a link sent to a phone is one of
 * those things (login sessions end the same way, in the auth plugin). The fingerprint is a salted scrypt of the
 * credential keys, kept in `core_state`, so the database does not help anyone guess a password. It runs beside the
 * start (scrypt takes the thread pool for tens of milliseconds), and only links issued before `startedAt` are
 * revoked, so links this start issued meanwhile stay good.
 */
export async function revokeLinksIfCredentialsChanged(store: Store, links: DecisionLinkService, auth: Record<string, unknown>, startedAt: number, log: Logger): Promise<void> {
  const read = store.db.prepare<[string], string>('SELECT value FROM core_state WHERE key = ?').pluck();
  const salt = read.get(SALT_KEY) ?? randomBytes(16).toString('base64url');
  const credentials = JSON.stringify(CREDENTIAL_KEYS.map((key) => [key, auth[key] ?? null]));
  const fingerprint = await new Promise<string>((resolve, reject) => {
    scrypt(credentials, salt, 32, { N: 2 ** 13, r: 8, p: 1, maxmem: 32 * 1024 * 1024 }, (err, key) => (err ? reject(err) : resolve(key.toString('base64url'))));
  });
  const before = read.get(FINGERPRINT_KEY);
  if (before === fingerprint) return;
  await store.change(() => {
    const write = store.db.prepare<[string, string]>('INSERT INTO core_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
    write.run(SALT_KEY, salt);
    write.run(FINGERPRINT_KEY, fingerprint);
  });
  if (before === undefined) return; // the first start with links: nothing was issued under other credentials
  const revoked = await links.revokeAll(startedAt);
  if (revoked > 0) log.info({ revoked }, 'the credentials in ui.auth changed since the last start: decision links issued before were revoked');
}
