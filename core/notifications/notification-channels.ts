import type { NotificationEntry } from '../config/notification-entry.schema.js';
import type { LoadedPlugins } from '../plugins/plugin-host.js';
import { notifierInstanceName } from '../plugins/plugin-mounts.js';
import type { NotificationChannel } from './notification-dispatcher.js';

/** Each `notifications:` entry with the notifier instance its mount created (checked at start, so each has one). */
export function notificationChannels(entries: readonly NotificationEntry[], plugins: LoadedPlugins): NotificationChannel[] {
  return entries.flatMap((entry) => {
    const notifier = plugins.byName(notifierInstanceName(entry.name));
    return notifier?.kind === 'notifier' ? [{ entry, notifier }] : [];
  });
}
