import { Type, type Static } from 'typebox';

// Keys of a `sources:` entry that the core reads itself; every other key of the entry is the source plugin's config.
export const CORE_SOURCE_KEYS = ['name', 'type', 'use', 'enabled', 'schedule', 'notify'] as const;

/** The names a source may have: they appear in URLs (`/api/v1/sources/{name}/run`) and as the queue item's `source`. */
export const SOURCE_NAME_PATTERN = '^[a-z0-9][a-z0-9-]*$';

/** `1d`, `6h`, `30m`, … or `manual` (runs only when asked through the API). */
export const SourceSchedule = Type.String({
  pattern: '^([0-9]+(ms|s|m|h|d)|manual)$',
  default: '1d',
  description: 'how often the source runs (e.g. 6h, 1d, 30d; at most 3650d), or "manual" for runs started through POST /api/v1/sources/{name}/run only',
});

/**
 * One discovery source of config.yaml: a built-in (`type`) or a third-party plugin (`use`), its schedule, and
 * the plugin's own keys beside them. The same plugin may appear in several entries with different configs
 * (two ListenBrainz users, say); each entry is its own instance with its own storage.
 */
export const SourceEntry = Type.Object(
  {
    name: Type.String({
      pattern: SOURCE_NAME_PATTERN,
      maxLength: 64,
      description: 'unique name of this source: lower-case letters, digits and dashes; shown as the queue item\'s source',
    }),
    type: Type.Optional(
      Type.String({ minLength: 1, description: 'a built-in source: listenbrainz-recommendations, similar-artists or new-releases (or give use instead)' }),
    ),
    use: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'a third-party source plugin, as in plugins[].use: a package name or a path to its folder or .js file, relative to config.yaml',
      }),
    ),
    enabled: Type.Boolean({ default: true, description: 'false: the source never runs, neither on schedule nor through the API' }),
    schedule: SourceSchedule,
    notify: Type.Union([Type.Literal('digest'), Type.Literal('each')], {
      default: 'digest',
      description: "how notification channels hear of this source's candidates: gathered in their digest, or each in a message of its own with Approve and Reject",
    }),
  },
  { additionalProperties: true },
);
export type SourceEntry = Static<typeof SourceEntry>;
