import assert from 'node:assert/strict';
import type { Static, TSchema } from 'typebox';
import type { KindContracts, PluginDefinition, PluginKind } from '../define-plugin.js';
import type { CommonContractOptions, ContractService, ServiceAndConfig } from './contract-check.js';
import { configFor } from './config-for.js';
import { createTestContext, type TestContext } from './create-test-context.js';

/** A created plugin instance with its service and context, for one check. */
export interface Harness<K extends PluginKind, S extends TSchema, V extends ContractService> {
  instance: KindContracts[K];
  context: TestContext<Static<S>>;
  service: V | undefined;
  /** Calls the instance's `stop()` (once; the harness does it after the check otherwise). */
  stop(): Promise<void>;
}

export type HarnessOptions<S extends TSchema, V extends ContractService> = ServiceAndConfig<S, V> & CommonContractOptions;

const REQUIRED: Record<PluginKind, readonly string[]> = {
  auth: ['authenticate'],
  'download-client': ['request', 'status'],
  library: ['albums'],
  'event-sink': ['deliver'],
  source: ['discover'],
  preview: ['findPreviews'],
  notifier: ['send'],
};
const OPTIONAL = ['start', 'stop', 'health', 'cancel', 'refresh', 'login', 'logout'] as const;

/** Starts the service, builds the config as the server would, and hands both to `body`; closes the service after. */
export async function withService<S extends TSchema, V extends ContractService>(
  plugin: PluginDefinition<PluginKind, S>,
  options: HarnessOptions<S, V>,
  body: (config: Static<S>, service: V | undefined) => Promise<void>,
): Promise<void> {
  let service: V | undefined;
  try {
    let config: Static<S>;
    if (options.service) {
      service = await options.service();
      config = configFor(plugin, options.config(service));
    } else {
      config = configFor(plugin, options.config);
    }
    await body(config, service);
  } finally {
    await service?.close?.();
  }
}

/**
 * Creates the plugin in a fresh test context (and starts it, unless `start: false`), runs `body`, then stops
 * it and releases the context and the service whatever happened.
 */
export async function withInstance<K extends PluginKind, S extends TSchema, V extends ContractService>(
  plugin: PluginDefinition<K, S>,
  options: HarnessOptions<S, V>,
  body: (harness: Harness<K, S, V>) => Promise<void>,
  { start = true }: { start?: boolean } = {},
): Promise<void> {
  await withService(plugin, options, async (config, service) => {
    const context = createTestContext(config, options.context);
    let stopped = false;
    let instance: KindContracts[K] | undefined;
    const stop = async () => {
      if (stopped || !instance) return;
      stopped = true;
      await instance.stop?.();
    };
    try {
      instance = await plugin.create(context);
      assertMembers(plugin.manifest.name, plugin.manifest.kind, instance);
      if (start) await instance.start?.();
      await body({ instance, context, service, stop });
    } finally {
      await stop();
      await context.close();
    }
  });
}

/** Fails naming every member the kind requires that `instance` lacks, and optional members that are not functions. */
export function assertMembers(name: string, kind: PluginKind, instance: unknown): void {
  assert.ok(instance !== null && typeof instance === 'object', `plugin "${name}": create() must return an object (got ${typeof instance})`);
  const missing = REQUIRED[kind].filter((member) => typeof Reflect.get(instance, member) !== 'function');
  assert.deepEqual(missing, [], `plugin "${name}": create() returned an object without ${missing.join(', ')} (required for a ${kind} plugin)`);
  const wrong = OPTIONAL.filter((member) => Reflect.has(instance, member) && typeof Reflect.get(instance, member) !== 'function');
  assert.deepEqual(wrong, [], `plugin "${name}": ${wrong.join(', ')} must be a function when present`);
}
