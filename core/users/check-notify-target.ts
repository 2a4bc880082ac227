import type { NotificationEntry } from '../config/notification-entry.schema.js';
import { ValidationError } from '../errors/validation-error.js';
import type { UserRecord } from './user.schema.js';

// How each built-in channel addresses one person: ntfy's topic rule (server/server.go, topicRegex), a Telegram chat id.
const ADDRESS: Record<string, { pattern: RegExp; what: string }> = {
  ntfy: { pattern: /^[-_A-Za-z0-9]{1,64}$/, what: 'an ntfy topic: letters, digits, _ and -, at most 64' },
  telegram: { pattern: /^-?[0-9]{1,15}$/, what: 'a Telegram chat id (a number; the person starts the bot first)' },
};

/** Refuses a user's `notify` that names no configured channel, or an address the channel cannot reach. */
export function checkNotifyTarget(notify: UserRecord['notify'] | null | undefined, channels: readonly NotificationEntry[]): void {
  if (!notify) return;
  const channel = channels.find((entry) => entry.name === notify.channel);
  if (!channel) {
    const known = channels.map((entry) => entry.name).join(', ');
    throw new ValidationError([{ path: 'body.notify.channel', message: known ? `there is no notifications entry "${notify.channel}" (there are: ${known})` : 'no notifications are configured (config.yaml notifications:)' }]);
  }
  // A third-party notifier may not know `recipient` (sdk 1.6) and would tell the whole channel one person's news.
  const address = channel.type === undefined ? undefined : ADDRESS[channel.type];
  if (!address) throw new ValidationError([{ path: 'body.notify.channel', message: `"${notify.channel}" is not an ntfy or Telegram channel; only those reach one person` }]);
  if (!address.pattern.test(notify.to)) throw new ValidationError([{ path: 'body.notify.to', message: `must be ${address.what}` }]);
}
