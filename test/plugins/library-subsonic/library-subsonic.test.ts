import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { CredentialsError, RetryLaterError, type LibraryAlbum, type LibraryBackend } from '@crateflow/sdk';
import type { RecordingLogger } from '@crateflow/sdk/testing';
import subsonic from '@crateflow/library-subsonic';
import { startFakeSlskd } from '../../fakes/fake-slskd.js';
import { startFakeSubsonic, type FakeSubsonic, type FakeSubsonicOptions } from '../../fakes/fake-subsonic.js';
import { generateAlbums } from '../../fakes/generate-albums.js';
import { createPluginTestContext } from '../../helpers/plugin-test-context.js';

const USER = 'crate';
const PASSWORD = 'hunter2 with spaces & symbols';

async function setup(
  t: TestContext,
  fakeOptions: Partial<FakeSubsonicOptions> = {},
  config: Record<string, unknown> = {},
): Promise<{ fake: FakeSubsonic; backend: LibraryBackend; log: RecordingLogger }> {
  const fake = await startFakeSubsonic({ username: USER, password: PASSWORD, albums: generateAlbums(23), ...fakeOptions });
  const harness = createPluginTestContext(subsonic, { url: fake.url, username: USER, password: PASSWORD, ...config });
  t.after(async () => {
    await harness.close();
    await fake.close();
  });
  return { fake, backend: await subsonic.create(harness.context), log: harness.context.log };
}

async function collect(backend: LibraryBackend, signal = new AbortController().signal): Promise<LibraryAlbum[][]> {
  const pages: LibraryAlbum[][] = [];
  for await (const page of backend.albums(signal)) pages.push(page);
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

describe('library-subsonic plugin', () => {
  it('pages through getAlbumList2 and reports every album with its MusicBrainz id and year', async (t) => {
    const albums = generateAlbums(23);
    const { fake, backend } = await setup(t, { albums }, { page_size: 7 });
    const pages = await collect(backend);
    assert.deepEqual(pages.map((p) => p.length), [7, 7, 7, 2]);
    const found = pages.flat();
    assert.equal(found.length, 23);
    const first = albums[0];
    assert.ok(first);
    assert.deepEqual(found.find((a) => a.mbid === first.mbid), { artist: first.artist, album: first.name, mbid: first.mbid, year: first.year });
    const offsets = fake.received.filter((r) => r.path === '/rest/getAlbumList2').map((r) => r.query.get('offset'));
    assert.deepEqual(offsets, ['0', '7', '14', '21']);
    assert.ok(fake.received.every((r) => r.query.get('type') === null || r.query.get('type') === 'alphabeticalByName'));
  });

  it('authenticates with a fresh salted token per request and never sends the password', async (t) => {
    const { fake, backend } = await setup(t, {}, { page_size: 10 });
    await collect(backend);
    const requests = fake.received;
    assert.ok(requests.length >= 3);
    for (const r of requests) {
      const salt = r.query.get('s') ?? '';
      assert.equal(r.query.get('p'), null);
      assert.ok(salt.length >= 6);
      assert.equal(r.query.get('t'), createHash('md5').update(PASSWORD + salt, 'utf8').digest('hex'));
      assert.equal(r.query.get('f'), 'json');
      assert.equal(r.query.get('c'), 'crateflow');
      assert.equal(r.query.get('u'), USER);
      assert.ok([...r.query.values()].every((value) => !value.includes('hunter2')));
    }
    assert.equal(new Set(requests.map((r) => r.query.get('s'))).size, requests.length);
  });

  it('reports no mbid for untagged albums, plain Subsonic servers, and clients Navidrome treats as legacy', async (t) => {
    const untagged = await setup(t, { albums: generateAlbums(10, { untaggedEvery: 2 }) });
    const mixed = (await collect(untagged.backend)).flat();
    assert.equal(mixed.filter((a) => a.mbid === undefined).length, 5);
    assert.ok(mixed.filter((a) => a.mbid === undefined).every((a) => a.year === undefined && a.artist !== '' && a.album !== ''));

    const plain = await setup(t, { flavour: 'plain' });
    assert.ok((await collect(plain.backend)).flat().every((a) => a.mbid === undefined && a.year !== undefined));

    const legacy = await setup(t, {}, { client_name: 'Sub' });
    assert.ok((await collect(legacy.backend)).flat().every((a) => a.mbid === undefined), '"Sub" is a substring of "DSub"');
  });

  it('ends on an empty library, where the server leaves the album key out', async (t) => {
    const { backend } = await setup(t, { albums: [] });
    assert.deepEqual(await collect(backend), []);
  });

  it('stops paging when the signal is aborted', async (t) => {
    const { fake, backend } = await setup(t, {}, { page_size: 5 });
    const abort = new AbortController();
    const pages: LibraryAlbum[][] = [];
    for await (const page of backend.albums(abort.signal)) {
      pages.push(page);
      abort.abort();
    }
    assert.equal(pages.length, 1);
    assert.equal(fake.received.filter((r) => r.path === '/rest/getAlbumList2').length, 1);
  });

  it('fails start(), albums() and health with a clear CredentialsError on a wrong password (HTTP 200, status failed)', async (t) => {
    const { backend } = await setup(t, {}, { password: 'wrong' });
    const bad = (err: unknown) => err instanceof CredentialsError && /rejected user "crate": Wrong username or password \(error 40\)/.test(err.message);
    await assert.rejects(backend.start?.() ?? Promise.resolve(), bad);
    await assert.rejects(collect(backend), bad);
    const health = await backend.health?.();
    assert.equal(health?.ok, false);
    assert.match(health?.message ?? '', /error 40/);
  });

  it('fails start() with "not a Subsonic server" when the URL answers 404 or something other than JSON', async (t) => {
    const downloadsDir = await mkdtemp(join(tmpdir(), 'not-subsonic-'));
    const html = await startFakeSlskd({ downloadsDir });
    t.after(async () => {
      await html.close();
      await rm(downloadsDir, { recursive: true, force: true });
    });
    for (const [url, detail] of [[`${html.url}`, /did not answer with JSON \(text\/html/], [`${html.url}/api`, /answered HTTP 404/]] as const) {
      const harness = createPluginTestContext(subsonic, { url, username: USER, password: PASSWORD });
      t.after(() => harness.close());
      const backend = await subsonic.create(harness.context);
      await assert.rejects(backend.start?.() ?? Promise.resolve(), (err: unknown) => err instanceof Error && /^not a Subsonic server at http/.test(err.message) && detail.test(err.message));
    }
  });

  it('starts with a warning when the server is unreachable, and throws RetryLaterError from albums()', async (t) => {
    const harness = createPluginTestContext(subsonic, { url: await closedPortUrl(), username: USER, password: PASSWORD });
    t.after(() => harness.close());
    const backend = await subsonic.create(harness.context);
    await backend.start?.();
    assert.ok(harness.context.log.at('warn').some((l) => /not reachable yet/.test(l.msg)));
    await assert.rejects(collect(backend), (err: unknown) => err instanceof RetryLaterError && /is unreachable/.test(err.message));
    assert.equal((await backend.health?.())?.ok, false);
  });

  it('calls startScan on refresh, explains error 50 for a non-admin user, and stays quiet when the flag is off', async (t) => {
    const admin = await setup(t);
    await admin.backend.refresh?.({ download_path: '/music/Low/Double Negative' });
    assert.equal(admin.fake.received.filter((r) => r.path === '/rest/startScan').length, 1);

    const user = await setup(t, { admin: false });
    await assert.rejects(user.backend.refresh?.({}) ?? Promise.resolve(), /user "crate" may not call startScan .*error 50/);

    const off = await setup(t, {}, { start_scan_after_download: false });
    await off.backend.refresh?.({});
    assert.equal(off.fake.received.length, 0);
  });
  it('finds Navidrome albums under their plain title, though Navidrome appends the album version or comment to the name', async (t) => {
    const albums = generateAlbums(10, { versionEvery: 2 });
    const { fake, backend } = await setup(t, { albums, flavour: 'navidrome' });
    const found = (await collect(backend)).flat();
    const versioned = albums.filter((a) => a.version !== undefined);
    assert.equal(versioned.length, 5);
    const served = await fetch(`${fake.url}/rest/getAlbumList2?u=${USER}&p=${encodeURIComponent(PASSWORD)}&v=1.16.1&c=crateflow&f=json&type=alphabeticalByName&size=500`);
    const names = JSON.stringify(await served.json());
    for (const album of versioned) {
      assert.ok(names.includes(`"${album.name} (${album.version ?? ''})"`), 'the fake serves the name with the version appended');
      assert.equal(found.find((a) => a.mbid === album.mbid)?.album, album.name);
    }
  });

  it('files a Navidrome collaboration, shown as " • "-joined album artists, under each artist and the joined credit', async (t) => {
    const albums = generateAlbums(9, { collaborationEvery: 3 });
    const { backend } = await setup(t, { albums, flavour: 'navidrome' });
    const found = (await collect(backend)).flat();
    const collab = albums[2];
    const [first, second] = collab?.albumArtists ?? [];
    assert.ok(collab && first && second);
    assert.deepEqual(found.find((a) => a.mbid === collab.mbid), {
      artist: `${first.name} • ${second.name}`, artists: [first.name, second.name, collab.artist], album: collab.name, mbid: collab.mbid, year: collab.year,
    });
  });

  it('takes gonic\'s displayArtist credit over its one-artist artist field, and keeps every listed artist', async (t) => {
    const albums = generateAlbums(9, { collaborationEvery: 3, versionEvery: 3 });
    const { fake, backend } = await setup(t, { albums, flavour: 'gonic' });
    const found = (await collect(backend)).flat();
    const collab = albums[2];
    const [first, second] = collab?.albumArtists ?? [];
    assert.ok(collab && first && second && collab.version);
    const served = await fetch(`${fake.url}/rest/search3?u=${USER}&p=${encodeURIComponent(PASSWORD)}&v=1.16.1&c=crateflow&f=json&query=${collab.mbid ?? ''}`);
    const raw = JSON.stringify(await served.json());
    assert.ok([first.name, second.name].some((name) => raw.includes(`"artist":"${name}"`)), 'the fake serves one artist in artist, as gonic does');
    assert.ok(raw.includes(`"displayArtist":"${collab.artist}"`) && raw.includes(`"name":"${collab.name}"`));
    const listed = found.find((a) => a.mbid === collab.mbid);
    assert.equal(listed?.artist, collab.artist, 'the credit as tagged, not the one artist gonic puts in artist');
    assert.equal(listed?.album, collab.name, 'gonic keeps the comment in version and the name plain');
    assert.ok(listed?.artists?.includes(first.name) && listed.artists.includes(second.name));
  });

  it('reads a plain Subsonic server, which sends neither OpenSubsonic fields nor ids, by artist and name alone', async (t) => {
    const albums = generateAlbums(9, { collaborationEvery: 3, versionEvery: 2 });
    const { backend } = await setup(t, { albums, flavour: 'plain' });
    const found = (await collect(backend)).flat();
    assert.deepEqual(
      found.map((a) => [a.artist, a.album, a.mbid, a.artists]).sort(),
      albums.map((a) => [a.artist, a.name, undefined, undefined]).sort(),
    );
  });
});
