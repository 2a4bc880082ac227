import assert from 'node:assert/strict';
import type { TSchema } from 'typebox';
import type { PluginDefinition } from '../define-plugin.js';
import { SourceCandidate, type DiscoverySource, type KnownAs, type LibraryArtist, type SourceRun } from '../kinds/source.js';
import { assertRecord } from './check-record.js';
import { registerContract, type CommonContractOptions, type ContractCheck, type ContractService, type ServiceAndConfig } from './contract-check.js';
import { lifecycleChecks } from './lifecycle-checks.js';
import { withInstance } from './plugin-harness.js';

/** The album a `known()` question is about. */
type KnownQuestion = Parameters<SourceRun['known']>[0];

/**
 * Options of {@link testSourceContract}. Give the service enough for at least two batches (and say so with
 * `minBatches: 2`) so the abort check has something to stop.
 *
 * @example
 * { service: startFakeListenBrainz, config: (fake) => ({ url: fake.url, user: 'rob' }), minBatches: 2,
 *   libraryArtists: [{ name: 'Boards of Canada', albums: 4 }] }
 */
export type SourceContractOptions<S extends TSchema, V extends ContractService> = ServiceAndConfig<S, V> &
  CommonContractOptions & {
    /** What `run.libraryArtists()` answers (default: none). */
    libraryArtists?: readonly LibraryArtist[];
    /** `run.lastCompletedAt` (default undefined: the first run). */
    lastCompletedAt?: string;
    /** What `run.known()` answers besides what the known-albums check adds (default: nothing is known). */
    known?: (candidate: KnownQuestion) => KnownAs | undefined;
    /** The source must propose at least this many candidates (default 1) ... */
    minCandidates?: number;
    /** ... in at least this many batches (default 1). */
    minBatches?: number;
    /** Batches read before the kit assumes the run never ends (default 1,000). */
    maxBatches?: number;
    /** Whether the source must report progress at least once (default true: the server shows it with an ETA). */
    reportsProgress?: boolean;
  };

/** A run as the kit hands it to `discover()`, with what the source reported. */
export interface TestSourceRun extends SourceRun {
  /** Every `progress()` call, in order. */
  readonly progressCalls: { done: number; total: number | undefined }[];
  /** Every `known()` question, in order. */
  readonly knownCalls: KnownQuestion[];
}

/**
 * A {@link SourceRun} for a plugin's own tests: the given signal, library artists and `known()`, recording
 * `progress()` and `known()` calls.
 *
 * @example
 * const run = createTestSourceRun({ libraryArtists: [{ name: 'Low', albums: 3 }] });
 * for await (const batch of source.discover(run)) candidates.push(...batch);
 */
export function createTestSourceRun(options: {
  signal?: AbortSignal;
  libraryArtists?: readonly LibraryArtist[];
  lastCompletedAt?: string;
  known?: (candidate: KnownQuestion) => KnownAs | undefined;
} = {}): TestSourceRun {
  const progressCalls: { done: number; total: number | undefined }[] = [];
  const knownCalls: KnownQuestion[] = [];
  return {
    signal: options.signal ?? new AbortController().signal,
    lastCompletedAt: options.lastCompletedAt,
    progressCalls,
    knownCalls,
    progress: (done, total) => {
      progressCalls.push({ done, total });
    },
    libraryArtists: async () => options.libraryArtists ?? [],
    known: (candidate) => {
      knownCalls.push(candidate);
      return options.known?.(candidate);
    },
  };
}

/**
 * The behaviour every discovery source must have, as checks: batches of valid candidates and an end, progress
 * that makes sense, no candidate that `known()` said the server has, stopping when the signal aborts (also when
 * it is aborted before the first batch), and no timer left after `stop()`.
 *
 * @example
 * for (const check of sourceContractChecks(plugin, { config: { user: 'rob' } })) await check.run();
 */
export function sourceContractChecks<S extends TSchema, V extends ContractService>(
  plugin: PluginDefinition<'source', S>,
  options: SourceContractOptions<S, V>,
): ContractCheck[] {
  const maxBatches = options.maxBatches ?? 1000;
  const runWith = (extra: { signal?: AbortSignal; known?: (candidate: KnownQuestion) => KnownAs | undefined } = {}) =>
    createTestSourceRun({
      ...(options.libraryArtists ? { libraryArtists: options.libraryArtists } : {}),
      ...(options.lastCompletedAt !== undefined ? { lastCompletedAt: options.lastCompletedAt } : {}),
      ...extra,
      known: (candidate) => extra.known?.(candidate) ?? options.known?.(candidate),
    });
  const checks = lifecycleChecks(plugin, 'source', options, async (h) => {
    await readBatches(h.instance, runWith(), 1);
  });
  checks.push(
    {
      name: 'yields batches of valid candidates, then ends',
      run: () =>
        withInstance(plugin, options, async ({ instance }) => {
          const batches = await readBatches(instance, runWith(), maxBatches);
          const candidates = batches.flat();
          assert.ok(batches.length >= (options.minBatches ?? 1), `yielded ${batches.length} batch(es), expected at least ${options.minBatches ?? 1}`);
          assert.ok(candidates.length >= (options.minCandidates ?? 1), `yielded ${candidates.length} candidate(s), expected at least ${options.minCandidates ?? 1}`);
        }),
    },
    {
      name: 'reports progress as done (and total) units that make sense',
      run: () =>
        withInstance(plugin, options, async ({ instance }) => {
          const run = runWith();
          await readBatches(instance, run, maxBatches);
          if (options.reportsProgress !== false) assert.ok(run.progressCalls.length > 0, 'never called run.progress(); the server shows a run\'s progress and ETA from it');
          run.progressCalls.forEach(({ done, total }, i) => {
            const call = `progress call ${i + 1} (${done}, ${String(total)})`;
            assert.ok(Number.isFinite(done) && done >= 0, `${call}: done must be a finite number >= 0`);
            if (total === undefined) return;
            assert.ok(Number.isFinite(total) && total >= 0, `${call}: total must be a finite number >= 0`);
            assert.ok(done <= total, `${call}: done is more than total`);
          });
        }),
    },
    {
      name: 'proposes nothing that run.known() says the server already has',
      run: async () => {
        const first: SourceCandidate[] = [];
        await withInstance(plugin, options, async ({ instance }) => {
          first.push(...(await readBatches(instance, runWith(), maxBatches)).flat());
        });
        const mbids = new Set(first.map((c) => c.mbid));
        const owned = (candidate: KnownQuestion): KnownAs | undefined => (candidate.mbid !== undefined && mbids.has(candidate.mbid) ? 'library' : undefined);
        await withInstance(plugin, options, async ({ instance }) => {
          const again = (await readBatches(instance, runWith({ known: owned }), maxBatches)).flat();
          const proposed = again.filter((c) => mbids.has(c.mbid));
          assert.equal(
            proposed.length,
            0,
            `proposed ${proposed.length} candidate(s) that run.known() answered "library" for, e.g. ${describe(proposed[0])}; ask run.known() before proposing`,
          );
        });
      },
    },
    {
      name: 'yields no further batch once the signal aborts',
      run: () =>
        withInstance(plugin, options, async ({ instance }) => {
          const controller = new AbortController();
          let afterAbort = 0;
          let seen = 0;
          const reading = (async () => {
            for await (const _batch of instance.discover(runWith({ signal: controller.signal }))) {
              if (controller.signal.aborted) afterAbort++;
              seen++;
              if (seen === 1) controller.abort();
              if (seen > maxBatches) break;
            }
          })();
          // Ending by throwing (an aborted request) is an acceptable way to stop.
          await reading.catch((err: unknown) => assert.ok(controller.signal.aborted, `discover() failed before the abort: ${String(err)}`));
          assert.equal(afterAbort, 0, `discover() yielded ${afterAbort} batch(es) after the signal was aborted`);
        }),
    },
    {
      name: 'yields nothing when the signal is already aborted',
      run: () =>
        withInstance(plugin, options, async ({ instance }) => {
          const controller = new AbortController();
          controller.abort();
          let batches = 0;
          const reading = (async () => {
            for await (const _batch of instance.discover(runWith({ signal: controller.signal }))) if (++batches > 1) break;
          })();
          await reading.catch((err: unknown) => assert.ok(err !== undefined, 'discover() threw undefined'));
          assert.equal(batches, 0, 'discover() yielded a batch although the signal was aborted before the run started');
        }),
    },
  );
  return checks;
}

/**
 * Registers the source contract as a node:test suite. Call it at the top level of a test file.
 *
 * @example
 * import { testSourceContract } from '@crateflow/sdk/testing';
 * testSourceContract(plugin, { service: startFakeListenBrainz, config: (fake) => ({ url: fake.url, user: 'rob' }), minBatches: 2 });
 */
export function testSourceContract<S extends TSchema, V extends ContractService>(plugin: PluginDefinition<'source', S>, options: SourceContractOptions<S, V>): void {
  registerContract(`${plugin.manifest.name} (source contract)`, sourceContractChecks(plugin, options), options);
}

async function readBatches(source: DiscoverySource, run: SourceRun, maxBatches: number): Promise<SourceCandidate[][]> {
  const batches: SourceCandidate[][] = [];
  for await (const batch of source.discover(run)) {
    const raw: unknown = batch;
    assert.ok(Array.isArray(raw), `discover() must yield arrays of candidates (batch ${batches.length + 1} is ${typeof raw})`);
    raw.forEach((candidate: unknown, i) => assertRecord(SourceCandidate, candidate, `candidate ${i} of batch ${batches.length + 1}`));
    batches.push([...batch]);
    if (batches.length >= maxBatches) break;
  }
  return batches;
}

function describe(candidate: SourceCandidate | undefined): string {
  if (!candidate) return '(none)';
  return `${candidate.artist}${candidate.album ? ` — ${candidate.album}` : ''} (${candidate.mbid})`;
}
