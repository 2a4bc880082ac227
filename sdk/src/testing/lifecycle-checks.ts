import assert from 'node:assert/strict';
import type { TSchema } from 'typebox';
import { PLUGIN_API_VERSION } from '../api-version.js';
import { PLUGIN_KINDS, type PluginDefinition, type PluginKind } from '../define-plugin.js';
import type { ContractCheck, ContractService } from './contract-check.js';
import { withInstance, withService, type Harness, type HarnessOptions } from './plugin-harness.js';

// The same rule the server applies to manifest.name.
const NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;

/**
 * The checks every kind shares: the manifest, the config schema against the test config, the instance's
 * members, health, and a clean stop (no timers left on the clock). `exercise` makes the plugin do some work
 * between start and stop, so timers it schedules while working are covered too.
 */
export function lifecycleChecks<K extends PluginKind, S extends TSchema, V extends ContractService>(
  plugin: PluginDefinition<K, S>,
  kind: K,
  options: HarnessOptions<S, V>,
  exercise: (harness: Harness<K, S, V>) => Promise<void>,
): ContractCheck[] {
  const label = typeof plugin.manifest?.name === 'string' ? plugin.manifest.name : '(unnamed)';
  const checks: ContractCheck[] = [
    {
      name: `declares a ${kind} manifest for plugin API ${PLUGIN_API_VERSION}`,
      run: async () => checkManifest(plugin, kind),
    },
    {
      name: 'accepts the test config with its configSchema (defaults applied)',
      run: () => withService(plugin, options, async () => undefined),
    },
    {
      name: `creates an instance with every member a ${kind} plugin needs`,
      run: () => withInstance(plugin, options, async () => undefined, { start: false }),
    },
    {
      name: 'leaves no timer pending on its clock after stop()',
      run: () =>
        withInstance(plugin, options, async (harness) => {
          await exercise(harness);
          await harness.stop();
          assert.equal(
            harness.context.clock.pendingTimers,
            0,
            `plugin "${label}" still has ${harness.context.clock.pendingTimers} timer(s) scheduled after stop(); cancel them in stop()`,
          );
        }),
    },
    {
      name: 'answers health(), when it has one, with a boolean ok',
      run: () =>
        withInstance(plugin, options, async ({ instance }) => {
          if (!instance.health) return;
          const health = await instance.health();
          assert.equal(typeof health.ok, 'boolean', `plugin "${label}": health() must resolve to { ok: boolean, message? }`);
          if (health.message !== undefined) assert.equal(typeof health.message, 'string');
        }),
    },
  ];
  return checks;
}

function checkManifest(plugin: PluginDefinition, kind: PluginKind): void {
  const manifest: unknown = plugin.manifest;
  assert.ok(manifest && typeof manifest === 'object', 'the plugin exports no manifest (use definePlugin from @crateflow/sdk)');
  const { name, apiVersion, configSchema, version } = plugin.manifest;
  assert.ok(typeof name === 'string' && NAME.test(name), `manifest.name must be lower-case letters, digits and dashes (got ${JSON.stringify(name)})`);
  assert.ok(PLUGIN_KINDS.includes(plugin.manifest.kind), `manifest.kind must be one of ${PLUGIN_KINDS.join(', ')}`);
  assert.equal(plugin.manifest.kind, kind, `plugin "${name}" is a ${plugin.manifest.kind} plugin, but was tested as a ${kind} plugin`);
  assert.ok(
    apiVersion === PLUGIN_API_VERSION,
    `plugin "${name}" was built for plugin API ${apiVersion}, this sdk (and servers built on it) supports ${PLUGIN_API_VERSION}`,
  );
  const schema: unknown = configSchema;
  assert.ok(
    schema !== null && typeof schema === 'object' && ('type' in schema || 'anyOf' in schema || 'oneOf' in schema),
    `plugin "${name}": manifest.configSchema must be a typebox schema`,
  );
  if (version !== undefined) assert.equal(typeof version, 'string', `plugin "${name}": manifest.version must be a string`);
  assert.equal(typeof plugin.create, 'function', `plugin "${name}": create must be a function`);
}
