import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { CredentialsError, RetryLaterError, type LibraryAlbum, type LibraryBackend } from '@crateflow/sdk';
import type { ManualClock, RecordingLogger } from '@crateflow/sdk/testing';
import jellyfin from '@crateflow/library-jellyfin';
import { startFakeJellyfin, type FakeJellyfin, type FakeJellyfinOptions } from '../../fakes/fake-jellyfin.js';
import { parseMediaBrowserHeader } from '../../fakes/find-jellyfin-token.js';
import { startFakeSlskd } from '../../fakes/fake-slskd.js';
import { generateAlbums } from '../../fakes/generate-albums.js';
import { createPluginTestContext } from '../../helpers/plugin-test-context.js';

const API_KEY = 'a3f1c0de5b7e4d2f9a8b7c6d5e4f3a21';

async function setup(
  t: TestContext,
  fakeOptions: Partial<FakeJellyfinOptions> = {},
  config: Record<string, unknown> = {},
): Promise<{ fake: FakeJellyfin; backend: LibraryBackend; log: RecordingLogger; clock: ManualClock }> {
  const fake = await startFakeJellyfin({ apiKey: API_KEY, albums: generateAlbums(23), ...fakeOptions });
  const harness = createPluginTestContext(jellyfin, { url: fake.url, api_key: API_KEY, ...config });
  t.after(async () => {
    await harness.close();
    await fake.close();
  });
  return { fake, backend: await jellyfin.create(harness.context), log: harness.context.log, clock: harness.context.clock };
}

/**
 * Collects every page while moving the manual clock past each retry wait the plugin schedules. The real-time
 * poll only waits for the loopback I/O (and a client timeout) to happen; no plugin timing depends on it.
 */
async function collectAdvancing(backend: LibraryBackend, clock: ManualClock): Promise<LibraryAlbum[][]> {
  let settled = false;
  const pages = collect(backend);
  const settle = (): void => {
    settled = true;
  };
  pages.then(settle, settle);
  while (!settled) {
    if (clock.pendingTimers > 0) await clock.advance(60_000);
    else await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return pages;
}

async function collect(backend: LibraryBackend): Promise<LibraryAlbum[][]> {
  const pages: LibraryAlbum[][] = [];
  for await (const page of backend.albums(new AbortController().signal)) pages.push(page);
  return pages;
}

async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

describe('library-jellyfin plugin', () => {
  it('pages through /Items until a short page and reports MusicBrainz release and release-group ids', async (t) => {
    const albums = generateAlbums(23);
    const { fake, backend } = await setup(t, { albums }, { page_size: 7 });
    const pages = await collect(backend);
    assert.deepEqual(pages.map((p) => p.length), [7, 7, 7, 2]);
    const first = albums[0];
    assert.ok(first);
    assert.deepEqual(pages.flat().find((a) => a.mbid === first.mbid), {
      artist: first.artist, album: first.name, mbid: first.mbid, release_group_mbid: first.releaseGroupMbid, year: first.year,
    });
    const lists = fake.received.filter((r) => r.path === '/Items');
    assert.deepEqual(lists.map((r) => r.query.get('StartIndex')), ['0', '7', '14', '21']);
    for (const r of lists) {
      assert.equal(r.query.get('IncludeItemTypes'), 'MusicAlbum');
      assert.equal(r.query.get('Recursive'), 'true');
      assert.equal(r.query.get('Fields'), 'ProviderIds');
      assert.equal(r.query.get('Limit'), '7');
    }
  });

  it('sends Authorization: MediaBrowser with a Token and client fields, which Jellyfin 12 (no legacy auth) accepts', async (t) => {
    const { fake, backend } = await setup(t, { legacyAuth: false });
    assert.equal((await collect(backend)).flat().length, 23);
    const header = fake.received[0]?.headers['authorization'] ?? '';
    const fields = parseMediaBrowserHeader(header, false);
    assert.equal(fields?.get('token'), API_KEY);
    assert.equal(fields?.get('client'), 'crateflow');
    assert.ok(fields?.get('deviceid')?.startsWith('crateflow-'));
    assert.equal(fields?.get('version'), '0.0.0-test');
    assert.ok(fake.received.every((r) => r.query.get('api_key') === null && r.query.get('ApiKey') === null));
  });

  it('leaves the ids out for untagged albums and lists as user_id when one is configured', async (t) => {
    const { fake, backend } = await setup(t, { albums: generateAlbums(6, { untaggedEvery: 3 }) }, { user_id: '0123456789abcdef0123456789abcdef' });
    const found = (await collect(backend)).flat();
    assert.equal(found.filter((a) => a.mbid === undefined && a.release_group_mbid === undefined && a.year === undefined).length, 2);
    assert.equal(fake.received.find((r) => r.path === '/Items')?.query.get('userId'), '0123456789abcdef0123456789abcdef');
  });

  it('ends on an empty library', async (t) => {
    const { backend } = await setup(t, { albums: [] });
    assert.deepEqual(await collect(backend), []);
  });

  it('fails start(), albums() and health with a CredentialsError on a wrong API key', async (t) => {
    const { backend } = await setup(t, {}, { api_key: 'not-the-key' });
    const bad = (err: unknown) => err instanceof CredentialsError && /rejected the API key \(HTTP 401\)/.test(err.message);
    await assert.rejects(backend.start?.() ?? Promise.resolve(), bad);
    await assert.rejects(collect(backend), bad);
    assert.match((await backend.health?.())?.message ?? '', /HTTP 401/);
  });

  it('fails start() with "not a Jellyfin server" when the URL answers 404 or something other than JSON', async (t) => {
    const downloadsDir = await mkdtemp(join(tmpdir(), 'not-jellyfin-'));
    const other = await startFakeSlskd({ downloadsDir });
    t.after(async () => {
      await other.close();
      await rm(downloadsDir, { recursive: true, force: true });
    });
    for (const [url, detail] of [[other.url, /did not answer with JSON \(text\/html/], [`${other.url}/api`, /answered HTTP 404/]] as const) {
      const harness = createPluginTestContext(jellyfin, { url, api_key: API_KEY });
      t.after(() => harness.close());
      const backend = await jellyfin.create(harness.context);
      await assert.rejects(backend.start?.() ?? Promise.resolve(), (err: unknown) => err instanceof Error && /^not a Jellyfin server at http/.test(err.message) && detail.test(err.message));
    }
  });

  it('starts with a warning when Jellyfin is unreachable, and throws RetryLaterError from albums() once its tries are used up', async (t) => {
    const harness = createPluginTestContext(jellyfin, { url: await closedPortUrl(), api_key: API_KEY });
    t.after(() => harness.close());
    const backend = await jellyfin.create(harness.context);
    await backend.start?.();
    assert.ok(harness.context.log.at('warn').some((l) => /not reachable yet/.test(l.msg)));
    await assert.rejects(collectAdvancing(backend, harness.context.clock), (err: unknown) => err instanceof RetryLaterError && /is unreachable/.test(err.message));
    assert.equal(harness.context.log.at('warn').filter((l) => /reading it again/.test(l.msg)).length, 2, 'three tries: two retries');
    assert.equal((await backend.health?.())?.ok, false);
  });

  it('queues a library scan on refresh, and explains that a non-admin token cannot', async (t) => {
    const { fake, backend } = await setup(t);
    await backend.refresh?.({ download_path: '/music/Low/Double Negative' });
    assert.equal(fake.received.filter((r) => r.method === 'POST' && r.path === '/Library/Refresh').length, 1);

    const user = await setup(t, { users: [{ token: 'user-token-0123456789', admin: false }] }, { api_key: 'user-token-0123456789' });
    await assert.rejects(user.backend.refresh?.({}) ?? Promise.resolve(), (err: unknown) => err instanceof CredentialsError && /needs an admin API key/.test(err.message));
  });
  it('reads past a TotalRecordCount lower than the real count (10.11) and stops only on a short page', async (t) => {
    // 205 albums reported as 200: stopping at TotalRecordCount would end after two pages and miss five albums.
    const albums = generateAlbums(205);
    const { fake, backend } = await setup(t, { albums, version: '10.11.1' }, { page_size: 100 });
    const found = (await collect(backend)).flat();
    assert.equal(found.length, 205);
    assert.deepEqual(new Set(found.map((a) => a.mbid)), new Set(albums.map((a) => a.mbid)));
    const lists = fake.received.filter((r) => r.path === '/Items');
    assert.deepEqual(lists.map((r) => r.query.get('StartIndex')), ['0', '100', '200']);
    const reported = await fetch(`${fake.url}/Items?IncludeItemTypes=MusicAlbum&Recursive=true&Limit=1`, { headers: { Authorization: `MediaBrowser Token="${API_KEY}"` } });
    const body: unknown = await reported.json();
    assert.ok(typeof body === 'object' && body !== null && 'TotalRecordCount' in body);
    assert.equal(body.TotalRecordCount, 200, 'the fake under-reports like 10.11');
  });

  it('asks for pages of 100 albums by default, the size Jellyfin 10.11 copes with', async (t) => {
    const { fake, backend } = await setup(t, { albums: generateAlbums(230) });
    assert.equal((await collect(backend)).flat().length, 230);
    assert.deepEqual(fake.received.filter((r) => r.path === '/Items').map((r) => [r.query.get('StartIndex'), r.query.get('Limit')]), [['0', '100'], ['100', '100'], ['200', '100']]);
  });

  it('reads a page that timed out again after a wait on the plugin clock, and finishes the listing', async (t) => {
    const { fake, backend, clock, log } = await setup(t, { albums: generateAlbums(25), stallPages: new Map([[10, 1]]) }, { page_size: 10, timeout_ms: 1000 });
    const found = (await collectAdvancing(backend, clock)).flat();
    assert.equal(found.length, 25);
    assert.deepEqual(fake.received.filter((r) => r.path === '/Items').map((r) => r.query.get('StartIndex')), ['0', '10', '10', '20']);
    const retries = log.at('warn').filter((l) => /reading it again/.test(l.msg));
    assert.equal(retries.length, 1);
    assert.equal(retries[0]?.fields['start_index'], 10);
    assert.equal(retries[0]?.fields['retry_in_ms'], 2000);
  });

  it('files a multi-artist album under every AlbumArtists entry and their joined credit', async (t) => {
    const albums = generateAlbums(12, { collaborationEvery: 3 });
    const { backend } = await setup(t, { albums });
    const found = (await collect(backend)).flat();
    const collab = albums[2];
    assert.ok(collab?.albumArtists);
    const [first, second] = collab.albumArtists;
    assert.ok(first && second);
    assert.deepEqual(found.find((a) => a.mbid === collab.mbid), {
      artist: first.name, artists: [second.name, `${first.name} & ${second.name}`], album: collab.name,
      mbid: collab.mbid, release_group_mbid: collab.releaseGroupMbid, year: collab.year,
    });
  });

  it('files a compilation without ALBUMARTIST, which Jellyfin credits to its performers, also under Various Artists', async (t) => {
    const albums = generateAlbums(8, { compilationEvery: 8 });
    const { backend } = await setup(t, { albums });
    const found = (await collect(backend)).flat();
    const compilation = albums[7];
    assert.ok(compilation?.performers);
    const listed = found.find((a) => a.mbid === compilation.mbid);
    assert.equal(listed?.artist, compilation.performers[0], 'Jellyfin shows the first performer, not Various Artists');
    assert.ok(listed?.artists?.includes('Various Artists'));
    assert.ok(compilation.performers.slice(1).every((p) => listed?.artists?.includes(p)));
    assert.ok(found.filter((a) => a !== listed).every((a) => a.artists === undefined), 'one-artist albums carry no other names');
  });
});
