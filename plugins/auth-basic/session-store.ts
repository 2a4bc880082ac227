import { createHash, randomBytes } from 'node:crypto';
import type { Clock, JsonValue, PluginStorage } from '@crateflow/sdk';

export interface SessionLimits {
  /** A session unused for this long ends. */
  idleMs: number;
  /** A session ends this long after login, however busy. */
  maxAgeMs: number;
}

interface StoredSession {
  user: string;
  /** A local account's: the stamp of the credentials it signed in with (LocalAccounts). */
  stamp?: string;
  created_at: number;
  last_seen_at: number;
}

const PREFIX = 'session/';

/**
 * Login sessions in plugin storage, so they survive a restart. The storage holds only a SHA-256 of each token:
 * a copy of the data folder does not let anyone sign in. `last_seen_at` is written at most once a minute (or
 * once a tenth of the idle time, whichever is shorter), not on every request.
 */
export class SessionStore {
  constructor(private readonly storage: PluginStorage, private readonly clock: Clock, private readonly limits: SessionLimits) {}

  /** Starts a session and returns its token (256 random bits, base64url). */
  async create(user: string, stamp?: string): Promise<string> {
    await this.sweep();
    const token = randomBytes(32).toString('base64url');
    const now = this.clock.now();
    await this.storage.set(keyOf(token), { user, ...(stamp === undefined ? {} : { stamp }), created_at: now, last_seen_at: now });
    return token;
  }

  /** The user of a live session and when it signed in, refreshing its idle timer; undefined when unknown or expired (and then removed). */
  async user(token: string): Promise<{ user: string; stamp?: string } | undefined> {
    const key = keyOf(token);
    const session = asSession(this.storage.get(key));
    if (!session) return undefined;
    const now = this.clock.now();
    if (this.expired(session, now)) {
      await this.storage.delete(key);
      return undefined;
    }
    if (now - session.last_seen_at > Math.min(60_000, this.limits.idleMs / 10)) {
      await this.storage.set(key, { ...session, last_seen_at: now });
    }
    return { user: session.user, ...(session.stamp === undefined ? {} : { stamp: session.stamp }) };
  }

  async end(token: string): Promise<void> {
    await this.storage.delete(keyOf(token));
  }

  /** Ends every session (credentials changed, or an admin asked); returns how many there were. */
  async endAll(): Promise<number> {
    const keys = [...this.storage.entries(PREFIX)].map(([key]) => key);
    await Promise.all(keys.map((key) => this.storage.delete(key)));
    return keys.length;
  }

  /** Removes every expired (or unreadable) session. */
  async sweep(): Promise<void> {
    const now = this.clock.now();
    const stale = [...this.storage.entries(PREFIX)].filter(([, value]) => {
      const session = asSession(value);
      return !session || this.expired(session, now);
    });
    await Promise.all(stale.map(([key]) => this.storage.delete(key)));
  }

  private expired(session: StoredSession, now: number): boolean {
    return now - session.last_seen_at >= this.limits.idleMs || now - session.created_at >= this.limits.maxAgeMs;
  }
}

function keyOf(token: string): string {
  return PREFIX + createHash('sha256').update(token, 'utf8').digest('base64url');
}

function asSession(value: JsonValue | undefined): StoredSession | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const { user, stamp, created_at, last_seen_at } = value;
  if (typeof user !== 'string' || typeof created_at !== 'number' || typeof last_seen_at !== 'number') return undefined;
  return { user, ...(typeof stamp === 'string' ? { stamp } : {}), created_at, last_seen_at };
}
