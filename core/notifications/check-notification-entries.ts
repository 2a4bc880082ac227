import type { NotificationEntry } from '../config/notification-entry.schema.js';
import { parseDuration } from '../config/parse-duration.js';
import { BUILT_IN } from '../plugins/plugin-mounts.js';
import type { PathProblem } from '../schema/format-schema-errors.js';

const MIN_DIGEST_MS = 5 * 60_000;
const MAX_DIGEST_MS = 24 * 3600_000;

/**
 * The rules of `notifications:` that its schema cannot express: unique names, exactly one of `type` and `use`, a
 * `type` that names a built-in notifier, a digest of 5m to 1d, and `server.public_url` for channels of new
 * candidates (their buttons are decision links, which need an address people reach).
 */
export function checkNotificationEntries(entries: readonly NotificationEntry[], publicUrl: string | undefined): PathProblem[] {
  const problems: PathProblem[] = [];
  const seen = new Map<string, number>();
  const known = Object.keys(BUILT_IN.notifier);
  entries.forEach((entry, i) => {
    const first = seen.get(entry.name);
    if (first !== undefined) problems.push({ path: `notifications[${i}].name`, message: `"${entry.name}" is already the name of notifications[${first}]; names must be unique` });
    else seen.set(entry.name, i);
    if (entry.type === undefined && entry.use === undefined) {
      problems.push({ path: `notifications[${i}]`, message: `needs "type" (one of ${known.map((k) => `"${k}"`).join(', ')}) or "use" (a notifier plugin)` });
    } else if (entry.type !== undefined && entry.use !== undefined) {
      problems.push({ path: `notifications[${i}]`, message: 'give either "type" (a built-in notifier) or "use" (a notifier plugin), not both' });
    } else if (entry.type !== undefined && !Object.hasOwn(BUILT_IN.notifier, entry.type)) {
      problems.push({ path: `notifications[${i}].type`, message: `unknown type "${entry.type}": must be one of ${known.map((k) => `"${k}"`).join(', ')} (or write "use" for a third-party notifier)` });
    }
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
