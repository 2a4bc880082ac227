import { AssertionError } from 'node:assert';
import type { Static, TSchema } from 'typebox';
import { Value } from 'typebox/value';
import type { PluginDefinition, PluginKind } from '../define-plugin.js';
import { describeErrors } from './check-record.js';

/**
 * The config block as a user writes it in config.yaml: keys with a schema `default` may be left out.
 *
 * @example
 * const input: ConfigInput<typeof Config> = { topic_url: 'https://ntfy.sh/music' };   // timeout_ms defaulted
 */
export type ConfigInput<S extends TSchema> = Static<S> extends readonly unknown[] ? Static<S> : Static<S> extends object ? Partial<Static<S>> : Static<S>;

/**
 * Does what the server does with a plugin's config block before `create()`: applies the schema's defaults and
 * validates it. Throws an AssertionError listing every problem by key path when the config is not valid.
 *
 * @example
 * const config = configFor(plugin, { topic_url: fake.url });   // { topic_url: '…', timeout_ms: 10000 }
 */
export function configFor<K extends PluginKind, S extends TSchema>(plugin: PluginDefinition<K, S>, input: ConfigInput<S>): Static<S> {
  const schema = plugin.manifest.configSchema;
  const config = Value.Default(schema, structuredClone(input));
  if (Value.Check(schema, config)) return config;
  throw new AssertionError({
    message: `plugin "${plugin.manifest.name}": its configSchema rejects the config given to the test:\n${describeErrors(schema, config)}`,
    actual: config,
  });
}
