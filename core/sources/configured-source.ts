import type { AppConfig } from '../config/app-config.schema.js';
import { parseDuration } from '../config/parse-duration.js';
import type { LoadedPluginOf, LoadedPlugins } from '../plugins/plugin-host.js';
import { sourceInstanceName } from '../plugins/plugin-mounts.js';

/** A `sources:` entry with the plugin instance that serves it. */
export interface ConfiguredSource {
  name: string;
  /** The built-in type, or for a third-party source the plugin's manifest name. */
  type: string;
  /** What a third-party source was loaded from (`use:`); undefined for a built-in. */
  use: string | undefined;
  enabled: boolean;
  /** As written: a duration or `manual`. */
  schedule: string;
  /** The schedule in ms; undefined for `manual`. */
  intervalMs: number | undefined;
  plugin: LoadedPluginOf<'source'>;
}

/**
 * Pairs each `sources:` entry with its loaded instance. Start-up has already checked every entry, so an entry
 * without a source instance means the host and this list disagree: that is a bug, and it stops the start.
 */
export function configuredSources(config: AppConfig, plugins: LoadedPlugins): ConfiguredSource[] {
  return config.sources.map((entry, i) => {
    const plugin = plugins.byName(sourceInstanceName(entry.name));
    if (!plugin || plugin.kind !== 'source') throw new Error(`sources[${i}] ("${entry.name}"): no source plugin was loaded for it`);
    return {
      name: entry.name,
      type: entry.type ?? plugin.manifestName,
      use: entry.use,
      enabled: entry.enabled,
      schedule: entry.schedule,
      intervalMs: entry.schedule === 'manual' ? undefined : parseDuration(entry.schedule),
      plugin,
    };
  });
}
