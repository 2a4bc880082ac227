import { describe, it } from 'node:test';
import type { TSchema } from 'typebox';
import type { ConfigInput } from './config-for.js';
import type { TestContextOverrides } from './create-test-context.js';

/**
 * One behaviour the kit checks, as a named async function that throws (an AssertionError) when the plugin
 * misbehaves. `test<Kind>Contract()` registers each as a node:test `it()`; `<kind>ContractChecks()` returns
 * them for runners other than node:test.
 *
 * @example
 * for (const check of eventSinkContractChecks(plugin, options)) await check.run();
 */
export interface ContractCheck {
  readonly name: string;
  run(): Promise<void>;
}

/**
 * The external service a plugin talks to during one check, started by the author's `service()` option (a
 * small fake on 127.0.0.1:0, or a real endpoint). The kit starts a fresh one per check and closes it after.
 *
 * @example
 * service: async () => { const fake = await startFakeNtfy(); return { url: fake.url, close: fake.close }; }
 */
export interface ContractService {
  close?(): Promise<void> | void;
}

/**
 * How the kit gets a config for the plugin: a fixed block, or one built from the service (its URL, a key).
 *
 * @example
 * { service: startFake, config: (fake) => ({ url: fake.url, api_key: 'test-key' }) }
 * { config: { path: '/tmp/music' } }
 */
export type ServiceAndConfig<S extends TSchema, V extends ContractService> =
  | { service: () => Promise<V>; config: (service: V) => ConfigInput<S> }
  | { service?: undefined; config: ConfigInput<S> };

/**
 * Options every contract accepts.
 *
 * @example
 * { timeoutMs: 20_000, context: { serverVersion: '1.4.0' } }
 */
export interface CommonContractOptions {
  /** Context substitutions (clock start, pre-filled storage, …). */
  context?: TestContextOverrides;
  /**
   * Deadline for one check (default 60 s), so a plugin that hangs fails instead of stalling the run. A liveness
   * bound, not a speed test: on a loaded machine a check against a fake took longer than 10 s.
   */
  timeoutMs?: number;
}

/** Registers checks as one node:test suite. */
export function registerContract(title: string, checks: readonly ContractCheck[], options: CommonContractOptions): void {
  describe(title, () => {
    for (const check of checks) it(check.name, { timeout: options.timeoutMs ?? 60_000 }, () => check.run());
  });
}
