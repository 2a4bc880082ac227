import { Type, type Static } from 'typebox';
import type { EventType } from '@crateflow/sdk';

// Keys of a `notifications:` entry that the core reads itself; every other key is the notifier plugin's config.
export const CORE_NOTIFICATION_KEYS = ['name', 'type', 'use', 'enabled', 'events', 'digest'] as const;


/**
 * One notification channel of config.yaml: a built-in notifier (`type`: ntfy, telegram) or a third-party one
 * (`use`), what it is told about, and how new candidates are batched. Each entry is its own instance.
 */
export const NotificationEntry = Type.Object(
  {
    name: Type.String({ pattern: '^[a-z0-9][a-z0-9-]*$', maxLength: 32, description: 'unique name of this channel: lower-case letters, digits and dashes (decisions made from it are recorded as decided_via "notify:<name>")' }),
    type: Type.Optional(Type.String({ minLength: 1, description: 'a built-in notifier: ntfy or telegram (or give use instead)' })),
    use: Type.Optional(Type.String({ minLength: 1, description: 'a third-party notifier plugin, as in plugins[].use' })),
    enabled: Type.Boolean({ default: true, description: 'false: nothing is sent to this channel' }),
    events: Type.Array(Type.Union([Type.Literal('queue_added'), Type.Literal('download_completed'), Type.Literal('wishlist_removed')]), {
      default: ['queue_added'],
      uniqueItems: true,
      description: 'what the channel is told about: queue_added (new candidates, with Approve and Reject), download_completed, wishlist_removed',
    }),
    digest: Type.String({
      pattern: '^([0-9]+(m|h|d)|off)$',
      default: '1h',
      description: 'new candidates from sources are gathered and sent as one message this often (5m to 1d), or "off" for one message per candidate; candidates added by hand, and sources with notify: each, always get their own message',
    }),
  },
  { additionalProperties: true },
);
export type NotificationEntry = Static<typeof NotificationEntry>;
/** The events a channel may take: new candidates, finished downloads, albums the library now has. */
export type NotifiedEvent = NotificationEntry['events'][number] & EventType;
