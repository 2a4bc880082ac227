import { checkNamedEntries } from '../config/check-named-entries.js';
import type { NotificationEntry } from '../config/notification-entry.schema.js';
import { parseDuration } from '../config/parse-duration.js';
import { BUILT_IN } from '../plugins/plugin-mounts.js';
import type { PathProblem } from '../schema/format-schema-errors.js';

const MIN_DIGEST_MS = 5 * 60_000;
const MAX_DIGEST_MS = 24 * 3600_000;

/**
 * The rules of `notifications:` that its schema cannot express: those of every named entry list
 * (checkNamedEntries), a digest of 5m to 1d, and `server.public_url` for channels of new
 * candidates (their buttons are decision links, which need an address people reach).
 */
export function checkNotificationEntries(entries: readonly NotificationEntry[], publicUrl: string | undefined): PathProblem[] {
  const problems = checkNamedEntries(entries, 'notifications', BUILT_IN.notifier, 'notifier');
  entries.forEach((entry, i) => {
    if (entry.digest !== 'off') {
      const ms = parseDuration(entry.digest);
      if (ms < MIN_DIGEST_MS || ms > MAX_DIGEST_MS) problems.push({ path: `notifications[${i}].digest`, message: `must be between 5m and 1d, or "off" (got "${entry.digest}")` });
    }
    if (entry.enabled && entry.events.includes('queue_added') && publicUrl === undefined) {
      problems.push({ path: `notifications[${i}].events`, message: 'queue_added messages carry Approve and Reject buttons, which are decision links: set server.public_url (the address people reach Crateflow at)' });
    }
  });
  return problems;
}
