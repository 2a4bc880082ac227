import assert from 'node:assert/strict';
import type { TSchema } from 'typebox';
import type { PluginDefinition } from '../define-plugin.js';
import { isCredentialsError, isNotFoundError } from '../errors.js';
import type { DownloadClient } from '../kinds/download-client.js';
import { DownloadUpdate, WantedItem } from '../records.js';
import { assertRecord } from './check-record.js';
import { registerContract, type CommonContractOptions, type ContractCheck, type ContractService, type ServiceAndConfig } from './contract-check.js';
import { lifecycleChecks } from './lifecycle-checks.js';
import { withInstance, type Harness } from './plugin-harness.js';

/**
 * The service behind a download client during a check, with the hooks the kit needs from it.
 *
 * @example
 * service: async () => {
 *   const fake = await startFakeSlskd();
 *   return { url: fake.url, close: fake.close, rejectCredentials: () => fake.answer401(), step: () => fake.advanceTransfers() };
 * }
 */
export interface DownloadClientService extends ContractService {
  /** From now on the service answers 401 (a wrong API key). Required unless `usesCredentials: false`. */
  rejectCredentials?(): void | Promise<void>;
  /** Lets downloads on the service move on by one step; called before every poll. */
  step?(): void | Promise<void>;
}

/**
 * Options of {@link testDownloadClientContract}.
 *
 * @example
 * { service: startFake, config: (fake) => ({ url: fake.url, api_key: 'k' }),
 *   wanted: { id: 'w1', artist: 'Low', album: 'Double Negative', type: 'album' }, pollIntervalMs: 1000 }
 */
export type DownloadClientContractOptions<S extends TSchema, V extends DownloadClientService> = ServiceAndConfig<S, V> &
  CommonContractOptions & {
    /** The item to download; the service must be able to complete it. */
    wanted: WantedItem;
    /** Simulated time between polls, as the server's `poll_interval` (default 10 s). */
    pollIntervalMs?: number;
    /** Polls before the kit gives up waiting for `completed` (default 30). */
    maxPolls?: number;
    /** Set to false for a client without credentials (a watched folder): the 401 check is then not registered. */
    usesCredentials?: boolean;
  };

/**
 * The behaviour every download client must have, as checks: valid updates with progress in 0..1, completion
 * exactly once with a non-empty path, a 401 turned into `CredentialsError`, no timers left after `stop()`.
 *
 * @example
 * for (const check of downloadClientContractChecks(plugin, options)) await check.run();
 */
export function downloadClientContractChecks<S extends TSchema, V extends DownloadClientService>(
  plugin: PluginDefinition<'download-client', S>,
  options: DownloadClientContractOptions<S, V>,
): ContractCheck[] {
  assertRecord(WantedItem, options.wanted, 'the contract option `wanted`');
  const poll = pollWith(options.wanted, options.pollIntervalMs ?? 10_000);
  const maxPolls = options.maxPolls ?? 30;
  const checks = lifecycleChecks(plugin, 'download-client', options, async (h) => {
    const { ref } = await h.instance.request(options.wanted);
    await poll(h, ref);
  });
  checks.push(
    {
      name: 'reports valid updates with progress in 0..1 until the download completes',
      run: () =>
        withInstance(plugin, options, async (h) => {
          const { ref } = await h.instance.request(options.wanted);
          assert.ok(typeof ref === 'string' && ref.length > 0, `request() must resolve to { ref: non-empty string } (got ${JSON.stringify(ref)})`);
          const updates = await pollUntilTerminal(h, ref, poll, maxPolls);
          const last = updates.at(-1);
          assert.equal(last?.state, 'completed', `the download ended as ${last?.state}${last?.error ? ` (${last.error})` : ''} instead of completed`);
        }),
    },
    {
      name: 'reports completion exactly once, with a non-empty download path',
      run: () =>
        withInstance(plugin, options, async (h) => {
          const { ref } = await h.instance.request(options.wanted);
          const updates = await pollUntilTerminal(h, ref, poll, maxPolls);
          const completions = updates.filter((u) => u.state === 'completed');
          assert.equal(completions.length, 1, 'completed must be the last state reported while polling');
          const path = completions[0]?.download_path;
          assert.ok(typeof path === 'string' && path.length > 0, 'a completed update must carry a non-empty download_path');
          // The server may poll again (a restart between poll and commit): the answer must not be a second,
          // different completion, nor a step back. Forgetting the ref (NotFoundError) is fine too.
          for (let i = 0; i < 2; i++) {
            const again = await poll(h, ref).catch((err: unknown) => {
              if (isNotFoundError(err)) return undefined;
              throw err;
            });
            if (again === undefined) continue;
            assert.equal(again.state, 'completed', `after completing, status() went back to ${again.state}`);
            assert.equal(again.download_path, path, 'after completing, status() reported a different download_path');
          }
        }),
    },
  );
  if (options.usesCredentials !== false) {
    checks.push({
      name: 'turns a 401 from its service into a CredentialsError',
      run: () =>
        withInstance(plugin, options, async (h) => {
          assert.ok(
            h.service?.rejectCredentials,
            'give the kit a service with rejectCredentials() (make it answer 401), or set usesCredentials: false',
          );
          await h.service.rejectCredentials();
          const failure = await requestAndPoll(h, options.wanted, poll).then(
            () => undefined,
            (err: unknown) => err,
          );
          assert.ok(failure !== undefined, 'request() and status() both succeeded although the service answered 401');
          assert.ok(
            isCredentialsError(failure),
            `a 401 must surface as CredentialsError from @crateflow/sdk; got ${failure instanceof Error ? `${failure.name}: ${failure.message}` : String(failure)}`,
          );
        }),
    });
  }
  return checks;
}

/**
 * Registers the download-client contract as a node:test suite. Call it at the top level of a test file.
 *
 * @example
 * import { testDownloadClientContract } from '@crateflow/sdk/testing';
 * import plugin from '../src/index.js';
 * testDownloadClientContract(plugin, {
 *   service: startFakeService, config: (fake) => ({ url: fake.url, api_key: 'k' }),
 *   wanted: { id: 'w1', artist: 'Low', album: 'Double Negative', type: 'album' },
 * });
 */
export function testDownloadClientContract<S extends TSchema, V extends DownloadClientService>(
  plugin: PluginDefinition<'download-client', S>,
  options: DownloadClientContractOptions<S, V>,
): void {
  registerContract(`${plugin.manifest.name} (download-client contract)`, downloadClientContractChecks(plugin, options), options);
}


function pollWith(wanted: WantedItem, intervalMs: number) {
  return async <S extends TSchema, V extends DownloadClientService>(h: Harness<'download-client', S, V>, ref: string): Promise<DownloadUpdate> => {
    await h.service?.step?.();
    await h.context.clock.advance(intervalMs);
    const update: unknown = await h.instance.status(ref, wanted);
    assertRecord(DownloadUpdate, update, `status("${ref}")`);
    if (update.state === 'completed') assert.ok(update.download_path, 'a completed update must carry download_path');
    if (update.state === 'failed') assert.ok(update.error, 'a failed update must carry error');
    return update;
  };
}

async function pollUntilTerminal<S extends TSchema, V extends DownloadClientService>(
  h: Harness<'download-client', S, V>,
  ref: string,
  poll: (h: Harness<'download-client', S, V>, ref: string) => Promise<DownloadUpdate>,
  maxPolls: number,
): Promise<DownloadUpdate[]> {
  const updates: DownloadUpdate[] = [];
  for (let i = 0; i < maxPolls; i++) {
    const update = await poll(h, ref);
    updates.push(update);
    if (update.state === 'completed' || update.state === 'failed') return updates;
  }
  assert.fail(`the download did not complete within ${maxPolls} polls (last state: ${updates.at(-1)?.state}); raise maxPolls or let the service finish`);
}

async function requestAndPoll<S extends TSchema, V extends DownloadClientService>(
  h: Harness<'download-client', S, V>,
  wanted: WantedItem,
  poll: (h: Harness<'download-client', S, V>, ref: string) => Promise<DownloadUpdate>,
): Promise<void> {
  const client: DownloadClient = h.instance;
  const { ref } = await client.request(wanted);
  await poll(h, ref);
}
