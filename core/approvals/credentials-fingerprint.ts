import { createHash, randomBytes, scrypt } from 'node:crypto';
import type { Clock, Logger } from '@crateflow/sdk';
import type { AppConfig } from '../config/app-config.schema.js';
import type { Store } from '../storage/store.js';
import type { DecisionLinkService } from './decision-links.js';

const SALT_KEY = 'credentials/salt';
const FINGERPRINT_KEY = 'credentials/fingerprint';

/** The fingerprint of this start's credentials, and the one the last start stored. */
export interface CredentialsCheck {
  salt: string;
  fingerprint: string;
  before: string | undefined;
}

/**
 * Starts computing the fingerprint of the credentials in `ui.auth` (call it as early as the store is open: the
 * scrypt runs on the thread pool meanwhile). What goes in:
 *  - a `password_hash`, as it is (it is salted scrypt already);
 *  - a plain `password`, through salted scrypt (N = 2^13, as auth-basic's own stamp of it), so the stored
 *    fingerprint is no quicker to guess against than that stamp;
 *  - every API key (name, key, role), in a fixed order, so reordering the list changes nothing.
 */
export function checkCredentials(store: Store, auth: AppConfig['ui']['auth']): Promise<CredentialsCheck> {
  const read = store.db.prepare<[string], string>('SELECT value FROM core_state WHERE key = ?').pluck();
  const salt = read.get(SALT_KEY) ?? randomBytes(16).toString('base64url');
  const before = read.get(FINGERPRINT_KEY);
  const keys = auth.api_keys.map((entry) => `${entry.name}\0${entry.key ?? ''}\0${entry.key_hash ?? ''}\0${entry.role}`).sort();
  // The auth plugin's keys (basic: username, password or password_hash) sit beside the core's in the same block.
  const field = (name: string): unknown => (name in auth ? Reflect.get(auth, name) : undefined);
  const visible = JSON.stringify([auth.enabled, auth.type, field('username') ?? null, field('password_hash') ?? null, keys]);
  const password = typeof field('password') === 'string' ? String(field('password')) : '';
  return new Promise((resolve, reject) => {
    scrypt(`${visible}\0${password}`, salt, 32, { N: 2 ** 13, r: 8, p: 1, maxmem: 32 * 1024 * 1024 }, (err, key) => {
      if (err) reject(err);
      else resolve({ salt, fingerprint: createHash('sha256').update(key).digest('base64url'), before });
    });
  });
}

/**
 * Revokes the decision links issued before this start (`issuedBefore`) when its credentials differ from the last
 * start's: whoever replaces a leaked password expects what it opened to close, and a link sent to a phone is one of
 * those things (login sessions end the same way, in the auth plugin). The new fingerprint and the revocation commit
 * together, so a crash or a full disk cannot record the one without the other. Awaited before the service serves.
 */
export async function revokeLinksIfCredentialsChanged(store: Store, links: DecisionLinkService, check: Promise<CredentialsCheck>, issuedBefore: number, clock: Clock, log: Logger): Promise<void> {
  const { salt, fingerprint, before } = await check;
  if (before === fingerprint) return;
  const revoked = await store.change(() => {
    const write = store.db.prepare<[string, string]>('INSERT INTO core_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
    write.run(SALT_KEY, salt);
    write.run(FINGERPRINT_KEY, fingerprint);
    // A first start has issued nothing under other credentials.
    return before === undefined ? 0 : links.table.revokeLive(clock.now(), issuedBefore);
  });
  if (revoked > 0) log.info({ revoked }, 'the credentials in ui.auth changed since the last start: the decision links issued before were revoked');
}
