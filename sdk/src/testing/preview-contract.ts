import assert from 'node:assert/strict';
import type { TSchema } from 'typebox';
import type { PluginDefinition } from '../define-plugin.js';
import { PreviewTrack, type PreviewProvider } from '../kinds/preview.js';
import { isFromOrigins, isPreviewOrigin } from '../preview-origins.js';
import { assertRecord } from './check-record.js';
import { registerContract, type CommonContractOptions, type ContractCheck, type ContractService, type ServiceAndConfig } from './contract-check.js';
import { lifecycleChecks } from './lifecycle-checks.js';
import { withInstance } from './plugin-harness.js';

/** An album to ask a provider about. */
export interface PreviewAlbum {
  readonly artist: string;
  readonly album: string;
  readonly mbid?: string;
}

/**
 * Options of {@link testPreviewContract}: an album the service has previews for (fixed, or picked from the
 * service the kit started), and one it does not have.
 *
 * @example
 * { service: startFakeDeezer, config: (fake) => ({ url: fake.url, preview_origins: [fake.cdnUrl] }),
 *   album: (fake) => ({ artist: fake.albums[0].artist.name, album: fake.albums[0].title }) }
 */
export type PreviewContractOptions<S extends TSchema, V extends ContractService> = ServiceAndConfig<S, V> &
  CommonContractOptions & {
    album: PreviewAlbum | ((service: V) => PreviewAlbum);
    /** An album the service does not know (default: made-up names). */
    missingAlbum?: PreviewAlbum;
    /** `album` must have at least this many previews (default 1). */
    minTracks?: number;
  };

const MADE_UP: PreviewAlbum = { artist: 'Nobody Plays Here', album: 'A Record That Was Never Made' };

/**
 * The behaviour every preview provider must have, as checks: valid origins, valid tracks whose URLs come from
 * those origins, an empty answer (not an error) for an unknown album, and no work once the signal is aborted.
 *
 * @example
 * for (const check of previewContractChecks(plugin, options)) await check.run();
 */
export function previewContractChecks<S extends TSchema, V extends ContractService>(
  plugin: PluginDefinition<'preview', S>,
  options: PreviewContractOptions<S, V>,
): ContractCheck[] {
  const albumFor = (service: V | undefined): PreviewAlbum => {
    if (typeof options.album !== 'function') return options.album;
    assert.ok(service, 'album is a function of the service, but no service() was given');
    return options.album(service);
  };
  const ask = (instance: PreviewProvider, album: PreviewAlbum, signal = new AbortController().signal) =>
    instance.findPreviews({ artist: album.artist, album: album.album, ...(album.mbid ? { mbid: album.mbid } : {}), signal });

  const checks = lifecycleChecks(plugin, 'preview', options, async (h) => {
    await ask(h.instance, albumFor(h.service));
  });
  checks.push(
    {
      name: 'lists at least one origin, each a scheme and host (optionally *.host) without a path',
      run: () =>
        withInstance(plugin, options, async ({ instance }) => {
          const origins: unknown = instance.origins;
          assert.ok(Array.isArray(origins) && origins.length > 0, 'origins must be a non-empty array of origins');
          for (const origin of origins) assert.ok(typeof origin === 'string' && isPreviewOrigin(origin), `origin ${JSON.stringify(origin)} is not like https://cdn.example.com`);
        }),
    },
    {
      name: 'finds valid preview tracks for a known album, each from one of its origins',
      run: () =>
        withInstance(plugin, options, async ({ instance, service }) => {
          const tracks: unknown = await ask(instance, albumFor(service));
          assert.ok(Array.isArray(tracks), `findPreviews() must answer an array (got ${typeof tracks})`);
          tracks.forEach((track: unknown, i) => {
            assertRecord(PreviewTrack, track, `track ${i}`);
            assert.ok(isFromOrigins(track.preview_url, instance.origins), `track ${i}: ${track.preview_url} is not from any of ${instance.origins.join(', ')}`);
          });
          const min = options.minTracks ?? 1;
          assert.ok(tracks.length >= min, `found ${tracks.length} preview(s), expected at least ${min}`);
        }),
    },
    {
      name: 'answers an empty list, not an error, for an album it does not know',
      run: () =>
        withInstance(plugin, options, async ({ instance }) => {
          const tracks = await ask(instance, options.missingAlbum ?? MADE_UP);
          assert.deepEqual(tracks, []);
        }),
    },
    {
      name: 'finds nothing once the signal is aborted (an empty list or an abort error)',
      run: () =>
        withInstance(plugin, options, async ({ instance, service }) => {
          const controller = new AbortController();
          controller.abort();
          const outcome = await ask(instance, albumFor(service), controller.signal).then(
            (tracks) => ({ tracks }),
            (err: unknown) => ({ err }),
          );
          if ('tracks' in outcome) assert.deepEqual(outcome.tracks, [], 'findPreviews() answered tracks although the signal was aborted before it started');
        }),
    },
  );
  return checks;
}

/**
 * Registers the preview contract as a node:test suite. Call it at the top level of a test file.
 *
 * @example
 * import { testPreviewContract } from '@crateflow/sdk/testing';
 * testPreviewContract(plugin, { service: startFake, config: (fake) => ({ url: fake.url }), album: { artist: 'Low', album: 'Things We Lost in the Fire' } });
 */
export function testPreviewContract<S extends TSchema, V extends ContractService>(plugin: PluginDefinition<'preview', S>, options: PreviewContractOptions<S, V>): void {
  registerContract(`${plugin.manifest.name} (preview contract)`, previewContractChecks(plugin, options), options);
}
