import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { describe, it, type TestContext } from 'node:test';
import { isRetryLaterError, type PreviewProvider, type PreviewTrack } from '@crateflow/sdk';
import { testPreviewContract } from '@crateflow/sdk/testing';
import deezer from '@crateflow/preview-deezer';
import { startFakeDeezer, type FakeDeezer, type FakeDeezerOptions } from '../../fakes/fake-deezer.js';
import { createPluginTestContext } from '../../helpers/plugin-test-context.js';

testPreviewContract(deezer, {
  service: () => startFakeDeezer({ quota: false }),
  config: (fake) => ({ url: fake.url, preview_origins: [fake.cdnUrl] }),
  album: (fake) => ({ artist: fake.albums[0]?.artist.name ?? '', album: fake.albums[0]?.title ?? '' }),
  minTracks: 20,
});

async function setup(t: TestContext, fakeOptions: FakeDeezerOptions = { quota: false }, config: Record<string, unknown> = {}): Promise<{ fake: FakeDeezer; provider: PreviewProvider }> {
  const fake = await startFakeDeezer(fakeOptions);
  const harness = createPluginTestContext(deezer, { url: fake.url, preview_origins: [fake.cdnUrl], ...config });
  t.after(async () => {
    await harness.close();
    await fake.close();
  });
  return { fake, provider: await deezer.create(harness.context) };
}

const find = (provider: PreviewProvider, artist: string, album: string): Promise<PreviewTrack[]> =>
  provider.findPreviews({ artist, album, signal: new AbortController().signal });

async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

describe('preview-deezer plugin', () => {
  it('finds every licensed preview of a 30-track album across the 25-track page, keeping track numbers', async (t) => {
    const { fake, provider } = await setup(t);
    const album = fake.albums[0];
    assert.ok(album && album.tracks.length === 30);
    const tracks = await find(provider, album.artist.name, album.title);
    const licensed = album.tracks.map((track, i) => ({ track, position: i + 1 })).filter(({ track }) => track.previewable);
    assert.ok(licensed.length < album.tracks.length, 'the fake leaves some previews unlicensed');
    assert.deepEqual(tracks.map((track) => [track.position, track.title]), licensed.map(({ track, position }) => [position, track.title]));
    assert.ok(tracks.every((track) => track.source === 'deezer' && track.artist === album.artist.name && track.link?.startsWith('https://www.deezer.com/track/')));
    assert.equal(tracks[0]?.duration_s, album.tracks[0]?.duration);
    const mp3 = await fetch(tracks[0]?.preview_url ?? '');
    assert.equal(mp3.status, 200, 'the preview URL plays from the CDN');
    assert.equal(mp3.headers.get('content-type'), 'audio/mpeg');
  });

  it('matches the album whatever the case of its names', async (t) => {
    const { fake, provider } = await setup(t);
    const album = fake.albums[0];
    assert.ok(album);
    const tracks = await find(provider, album.artist.name.toUpperCase(), album.title.toLowerCase());
    assert.equal(tracks.length, album.tracks.filter((track) => track.previewable).length);
    assert.ok(tracks.every((track) => track.artist === album.artist.name));
  });

  it('answers an empty list for an album Deezer does not have, and remembers that for a while', async (t) => {
    const { fake, provider } = await setup(t);
    assert.deepEqual(await find(provider, 'Nobody Plays Here', 'Never Made'), []);
    const asked = fake.received.length;
    assert.deepEqual(await find(provider, 'nobody plays here', 'never made'), []);
    assert.equal(fake.received.length, asked, 'the second ask makes no request');
  });

  it('searches once per album and fetches the tracks afresh each time, as preview URLs expire', async (t) => {
    const { fake, provider } = await setup(t);
    const album = fake.albums[2];
    assert.ok(album);
    await find(provider, album.artist.name, album.title);
    await find(provider, album.artist.name, album.title);
    const paths = fake.received.map((request) => request.path);
    assert.deepEqual(paths, ['/search/album', `/album/${album.id}/tracks`, `/album/${album.id}/tracks`]);
  });

  it('turns Deezer\'s quota error, an HTTP 200 with code 4, into a RetryLaterError', async (t) => {
    const { fake, provider } = await setup(t, { quota: 1 });
    const album = fake.albums[3];
    assert.ok(album);
    const failure = await find(provider, album.artist.name, album.title).then(() => undefined, (err: unknown) => err);
    assert.ok(isRetryLaterError(failure), `expected a RetryLaterError, got ${String(failure)}`);
    assert.match(failure.message, /quota/);
    assert.equal(failure.retryAfterMs, 2000);
  });

  it('lists a two-disc album in disc order, positions counting on across discs and each track carrying its disc', async (t) => {
    const { fake, provider } = await setup(t);
    const album = fake.albums.find((candidate) => candidate.tracks.some((track) => track.disk === 2));
    assert.ok(album, 'the fake has a two-disc album');
    assert.deepEqual(album.tracks.map((track) => track.position), [1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 3, 4, 5, 6, 7, 8], 'Deezer numbers each disc from 1');
    const tracks = await find(provider, album.artist.name, album.title);
    const licensed = album.tracks.map((track, i) => ({ track, position: i + 1 })).filter(({ track }) => track.previewable);
    assert.deepEqual(tracks.map((track) => [track.disc, track.position, track.title]), licensed.map(({ track, position }) => [track.disk, position, track.title]));
    assert.equal(new Set(tracks.map((track) => track.position)).size, tracks.length, 'no position repeats');
    const single = fake.albums[2];
    assert.ok(single);
    assert.ok((await find(provider, single.artist.name, single.title)).every((track) => track.disc === undefined), 'a one-disc album names no disc');
  });

  it('matches a collaboration to the album Deezer files under its lead artist, in either credit order, not to a louder same-named album by a namesake', async (t) => {
    const { fake, provider } = await setup(t);
    const collaboration = fake.albums.find((album) => album.contributors.length > 1);
    assert.ok(collaboration, 'the fake has a collaboration');
    const [lead, guest] = collaboration.contributors;
    assert.ok(lead && guest);
    assert.equal(collaboration.artist.name, lead.name, 'Deezer files it under the lead only');
    const namesake = fake.albums.find((album) => album.title === collaboration.title && album.artist.name === lead.name && album.id !== collaboration.id);
    assert.ok(namesake, 'a namesake of the lead has a same-named album');
    assert.ok(namesake.popularity > collaboration.popularity, 'and it ranks first');
    const expected = collaboration.tracks.filter((track) => track.previewable).map((track) => track.title);
    for (const credit of [`${lead.name} & ${guest.name}`, `${guest.name} & ${lead.name}`]) {
      const tracks = await find(provider, credit, collaboration.title);
      assert.deepEqual(tracks.map((track) => track.title), expected, credit);
    }
    assert.ok(fake.received.every((request) => request.path !== `/album/${namesake.id}/tracks`), 'the namesake\'s tracks are never fetched');
  });

  it('never takes a same-named album by an artist who shares only a word of the name', async (t) => {
    const { fake, provider } = await setup(t);
    const other = fake.albums.find((album) => album.artist.name === 'Velvet Choir');
    assert.ok(other);
    const wanted = fake.albums.find((album) => album.title === other.title && album.id !== other.id);
    assert.ok(wanted);
    const tracks = await find(provider, wanted.artist.name, wanted.title);
    assert.equal(tracks.length, wanted.tracks.filter((track) => track.previewable).length, 'the album itself, not the louder one by Velvet Choir');
  });

  it('takes the standard edition over a louder deluxe and a louder clean edition, and the deluxe one when it is asked for', async (t) => {
    const { fake, provider } = await setup(t);
    const deluxe = fake.albums.find((album) => album.title.endsWith('(Deluxe Edition)'));
    assert.ok(deluxe);
    const title = deluxe.title.replace(' (Deluxe Edition)', '');
    const editions = fake.albums.filter((album) => album.title === title);
    const standard = editions.find((album) => album.explicit);
    assert.ok(standard && editions.some((album) => !album.explicit), 'an explicit and a clean edition of the same title');
    assert.ok(deluxe.tracks.length > standard.tracks.length);
    const licensedIds = (album: typeof standard) => album.tracks.filter((track) => track.previewable).map((track) => `https://www.deezer.com/track/${track.id}`);
    assert.deepEqual((await find(provider, standard.artist.name, title)).map((track) => track.link), licensedIds(standard));
    assert.deepEqual((await find(provider, standard.artist.name, deluxe.title)).map((track) => track.link), licensedIds(deluxe));
  });

  it('answers the quota error of a quota spent by other devices with a RetryLaterError at any step, remembers no empty answer, and finds the album once it is over', async (t) => {
    const { fake, provider } = await setup(t, {});
    const collaboration = fake.albums.find((album) => album.contributors.length > 1);
    assert.ok(collaboration);
    const credit = collaboration.contributors.map((artist) => artist.name).join(' & ');
    // Our own pace is far below Deezer's 50 per 5 s (the fake's own quota is on); the refusal comes from elsewhere at
    // the search, at each lookup that confirms the collaboration (the namesake's, then the album's), at the tracks.
    for (const after of [0, 1, 2, 3]) {
      fake.spendQuotaElsewhere(1, after);
      const before = fake.received.length;
      const failure = await find(provider, credit, collaboration.title).then(() => undefined, (err: unknown) => err);
      assert.ok(isRetryLaterError(failure), `refused after ${after}: expected a RetryLaterError, got ${String(failure)}`);
      assert.match(failure.message, /quota exceeded .*shared by every device/);
      assert.equal(fake.received.length - before, after + 1, `refused after ${after}: it stopped at the refusal`);
    }
    const tracks = await find(provider, credit, collaboration.title);
    assert.equal(tracks.length, collaboration.tracks.filter((track) => track.previewable).length, 'no empty answer was remembered');
  });

  it('fails naming the status when the URL answers something other than the API', async (t) => {
    const { fake } = await setup(t);
    const harness = createPluginTestContext(deezer, { url: fake.cdnUrl, preview_origins: [fake.cdnUrl] });
    t.after(() => harness.close());
    const provider = await deezer.create(harness.context);
    await assert.rejects(find(provider, 'Low', 'Secret Name'), /Deezer answered HTTP 403 for \/search\/album/);
  });

  it('asks to retry later when Deezer cannot be reached', async (t) => {
    const harness = createPluginTestContext(deezer, { url: await closedPortUrl() });
    t.after(() => harness.close());
    const provider = await deezer.create(harness.context);
    const failure = await find(provider, 'Low', 'Secret Name').then(() => undefined, (err: unknown) => err);
    assert.ok(isRetryLaterError(failure), `expected a RetryLaterError, got ${String(failure)}`);
  });

  it('lists the Deezer preview CDN as its origins by default', async () => {
    const harness = createPluginTestContext(deezer, {});
    try {
      const provider = await deezer.create(harness.context);
      assert.deepEqual(provider.origins, ['https://*.dzcdn.net']);
    } finally {
      await harness.close();
    }
  });
});
