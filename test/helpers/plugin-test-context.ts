import { createHttpClient, type PluginDefinition, type PluginKind, type Static, type TSchema } from '@crateflow/sdk';
import { createTestContext, RecordingLogger, type TestContext, type TestContextOverrides } from '@crateflow/sdk/testing';
import { compileStrict } from '../../core/schema/ajv.js';
import { formatSchemaErrors } from '../../core/schema/format-schema-errors.js';

export interface PluginTestContextOptions extends TestContextOverrides {
  /** Per-request deadline of the HTTP client, instead of the kit's 30 s (the library-sync bench pages 50,000 albums). */
  httpTimeoutMs?: number;
}

export interface PluginTestContext<C> {
  /** The kit's context: pass it to `create()`; its `clock`, `storage` and `log` are the test's handles. */
  readonly context: TestContext<C>;
  /** Closes the context (its signal aborts) and the HTTP client made for `httpTimeoutMs`. */
  close(): Promise<void>;
}

/**
 * The sdk kit's `createTestContext` (manual clock, `MemoryStorage`, `RecordingLogger`, real HTTP client) for a
 * built-in plugin, with the config handled the way the server handles a `plugins:` block.
 *
 * Why not the kit's `configFor`: the sdk cannot import core, so `configFor` defaults and checks with typebox's
 * `Value`. Here the raw config goes through core's strict ajv, the validator plugin-host.ts runs, so a built-in
 * plugin gets exactly the defaults the server applies, and a schema that strict ajv refuses fails its own tests.
 * The config is also raw, as written in config.yaml: a nested block may leave out keys that have a default
 * (slskd's `search: { max_wait_ms }`), which `configFor`'s `ConfigInput` does not accept (only top-level keys
 * are optional there). Log entries carry `{ plugin: <name> }`, like the child logger the host hands a plugin.
 *
 * @example
 * const harness = createPluginTestContext(slskd, { url: fake.url, api_key: fake.apiKey, downloads_dir });
 * t.after(() => harness.close());
 * const client = await slskd.create(harness.context);
 */
export function createPluginTestContext<K extends PluginKind, S extends TSchema>(
  plugin: PluginDefinition<K, S>,
  rawConfig: Record<string, unknown>,
  { httpTimeoutMs, ...overrides }: PluginTestContextOptions = {},
): PluginTestContext<Static<S>> {
  const { name } = plugin.manifest;
  const validate = compileStrict<Static<S>>(plugin.manifest.configSchema);
  const config = structuredClone(rawConfig);
  if (!validate(config)) {
    const lines = formatSchemaErrors(validate.errors, 'config').map((p) => `${p.path}: ${p.message}`);
    throw new Error(`invalid test config for ${name}:\n  ${lines.join('\n  ')}`);
  }
  // The kit closes only an HTTP client it made itself, so one made here for another deadline is closed here.
  const http = httpTimeoutMs === undefined ? undefined : createHttpClient({ userAgent: `crateflow-test (${name})`, defaultTimeoutMs: httpTimeoutMs });
  const context = createTestContext<Static<S>>(config, { log: new RecordingLogger().child({ plugin: name }), http, ...overrides });
  return {
    context,
    async close() {
      await context.close();
      await http?.close();
    },
  };
}
