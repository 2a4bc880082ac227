import assert from 'node:assert/strict';
import type { TSchema } from 'typebox';
import type { PluginDefinition } from '../define-plugin.js';
import type { LibraryBackend } from '../kinds/library.js';
import { LibraryAlbum } from '../records.js';
import { assertRecord } from './check-record.js';
import { registerContract, type CommonContractOptions, type ContractCheck, type ContractService, type ServiceAndConfig } from './contract-check.js';
import { lifecycleChecks } from './lifecycle-checks.js';
import { withInstance } from './plugin-harness.js';

/**
 * Options of {@link testLibraryContract}. Give the service at least two pages of albums (and say so with
 * `minPages: 2`) so the abort check has something to stop.
 *
 * @example
 * { service: () => startFakeSubsonic({ albums: 1200 }), config: (fake) => ({ url: fake.url, page_size: 500 }), minPages: 2 }
 */
export type LibraryContractOptions<S extends TSchema, V extends ContractService> = ServiceAndConfig<S, V> &
  CommonContractOptions & {
    /** The library must yield at least this many albums (default 1). */
    minAlbums?: number;
    /** ... in at least this many pages (default 1). */
    minPages?: number;
    /** Pages read before the kit assumes the library never ends (default 10,000). */
    maxPages?: number;
  };

/**
 * The behaviour every library backend must have, as checks: pages of valid albums, an end, and stopping when
 * the signal aborts (also when it is aborted before the first page).
 *
 * @example
 * for (const check of libraryContractChecks(plugin, { config: { path: dir } })) await check.run();
 */
export function libraryContractChecks<S extends TSchema, V extends ContractService>(
  plugin: PluginDefinition<'library', S>,
  options: LibraryContractOptions<S, V>,
): ContractCheck[] {
  const maxPages = options.maxPages ?? 10_000;
  const checks = lifecycleChecks(plugin, 'library', options, async (h) => {
    await readPages(h.instance, new AbortController().signal, 1);
  });
  checks.push(
    {
      name: 'yields pages of valid library albums, then ends',
      run: () =>
        withInstance(plugin, options, async ({ instance }) => {
          const pages = await readPages(instance, new AbortController().signal, maxPages);
          const albums = pages.flat();
          assert.ok(pages.length >= (options.minPages ?? 1), `yielded ${pages.length} page(s), expected at least ${options.minPages ?? 1}`);
          assert.ok(albums.length >= (options.minAlbums ?? 1), `yielded ${albums.length} album(s), expected at least ${options.minAlbums ?? 1}`);
        }),
    },
    {
      name: 'yields no further page once the signal aborts',
      run: () =>
        withInstance(plugin, options, async ({ instance }) => {
          const controller = new AbortController();
          let afterAbort = 0;
          let seen = 0;
          const reading = (async () => {
            for await (const page of instance.albums(controller.signal)) {
              if (controller.signal.aborted) afterAbort++;
              seen++;
              if (seen === 1) controller.abort();
              if (seen > maxPages) break;
            }
          })();
          // Ending by throwing (an aborted request) is an acceptable way to stop.
          await reading.catch((err: unknown) => assert.ok(controller.signal.aborted, `albums() failed before the abort: ${String(err)}`));
          assert.equal(afterAbort, 0, `albums() yielded ${afterAbort} page(s) after the signal was aborted`);
        }),
    },
    {
      name: 'yields nothing when the signal is already aborted',
      run: () =>
        withInstance(plugin, options, async ({ instance }) => {
          const controller = new AbortController();
          controller.abort();
          let pages = 0;
          const reading = (async () => {
            for await (const _page of instance.albums(controller.signal)) if (++pages > 1) break;
          })();
          await reading.catch((err: unknown) => assert.ok(err !== undefined, 'albums() threw undefined'));
          assert.equal(pages, 0, 'albums() yielded a page although the signal was aborted before it started');
        }),
    },
    {
      name: 'accepts refresh(), when it has one, after a download landed',
      run: () =>
        withInstance(plugin, options, async ({ instance }) => {
          await instance.refresh?.({ download_path: '/downloads/Low/Double Negative' });
          await instance.refresh?.({});
        }),
    },
  );
  return checks;
}

/**
 * Registers the library contract as a node:test suite. Call it at the top level of a test file.
 *
 * @example
 * import { testLibraryContract } from '@crateflow/sdk/testing';
 * testLibraryContract(plugin, { service: startFakeLibrary, config: (fake) => ({ url: fake.url }), minPages: 2 });
 */
export function testLibraryContract<S extends TSchema, V extends ContractService>(plugin: PluginDefinition<'library', S>, options: LibraryContractOptions<S, V>): void {
  registerContract(`${plugin.manifest.name} (library contract)`, libraryContractChecks(plugin, options), options);
}

async function readPages(library: LibraryBackend, signal: AbortSignal, maxPages: number): Promise<LibraryAlbum[][]> {
  const pages: LibraryAlbum[][] = [];
  for await (const page of library.albums(signal)) {
    const raw: unknown = page;
    assert.ok(Array.isArray(raw), `albums() must yield arrays of albums (page ${pages.length + 1} is ${typeof raw})`);
    raw.forEach((album: unknown, i) => assertRecord(LibraryAlbum, album, `album ${i} of page ${pages.length + 1}`));
    pages.push(page);
    if (pages.length >= maxPages) break;
  }
  return pages;
}
