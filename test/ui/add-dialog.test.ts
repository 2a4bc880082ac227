import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { api, eventually } from '../helpers/api-client.js';
import { writeAlbum } from '../helpers/write-album.js';
import { startMetadataApp } from '../core/metadata/metadata-test-app.js';
import { launchChromium } from './launch-chromium.js';
import { DESKTOP, openPage, PHONE } from './watched-page.js';

interface Result {
  mbid: string;
  artist: string;
  title: string;
  in_library: boolean;
  queued: boolean;
  wishlisted: boolean;
  rejected: boolean;
}

/**
 * The Add dialog against a real Crateflow searching the MusicBrainz fake (real HTTP on loopback): results with
 * covers and flags, buttons that say why they are disabled, adding to the queue and to the wishlist, and the
 * dialog's manners (labelled, modal, Esc, focus back on the opener).
 */
describe('Add dialog', () => {
  let browser: Browser;
  before(async () => {
    browser = await launchChromium();
  });
  after(() => browser?.close());

  for (const [name, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
    it(`searches MusicBrainz, shows flags, adds to the queue and to the wishlist (${name})`, async (t) => {
      const { app, album } = await startMetadataApp(t);
      const search = async () => (await api<{ items: Result[] }>(app.baseUrl, 'GET', `/api/v1/search?q=${encodeURIComponent(album.title)}`)).body.items;
      // Six results whose artist and title no other result shares, so each button's name is unique.
      const all = await search();
      const label = (r: Result) => `${r.artist} — ${r.title}`;
      const distinct = all.filter((r) => all.filter((o) => label(o) === label(r)).length === 1);
      const [queued, wished, rejected, owned, toQueue, toWish] = distinct;
      assert.ok(toWish && toQueue && owned && rejected && wished && queued, `six distinct results for "${album.title}", got ${distinct.length}`);

      assert.equal((await api(app.baseUrl, 'POST', '/api/v1/queue', { mbid: queued.mbid })).status, 201);
      assert.equal((await api(app.baseUrl, 'POST', '/api/v1/wishlist', { mbid: wished.mbid })).status, 201);
      const proposed = await api<{ items: { id: string }[] }>(app.baseUrl, 'POST', '/api/v1/queue', { mbid: rejected.mbid });
      assert.equal((await api(app.baseUrl, 'POST', `/api/v1/queue/${proposed.body.items[0]?.id ?? ''}/reject`)).status, 200);
      await writeAlbum(join(app.dataDir, '..', 'music', owned.artist, owned.title));
      const sync = await api<{ job: { id: string } }>(app.baseUrl, 'POST', '/api/v1/library/sync');
      await eventually(async () => ((await api<{ status: string }>(app.baseUrl, 'GET', `/api/v1/jobs/${sync.body.job.id}`)).body.status === 'completed' ? true : undefined));
      const flags = new Map((await search()).map((r) => [r.mbid, r]));
      assert.ok(flags.get(owned.mbid)?.in_library, 'the synced album is in the library');

      const w = await openPage(browser, { baseURL: app.baseUrl, viewport });
      const { page } = w;
      await page.goto('/queue');
      const opener = page.getByRole('button', { name: 'Add', exact: true });
      await opener.click();
      const dialog = page.getByRole('dialog', { name: 'Add an album' });
      await dialog.waitFor();
      await dialog.getByRole('searchbox', { name: 'Search MusicBrainz' }).fill(album.title);
      const row = (r: Result) => dialog.locator(`li[data-mbid="${r.mbid}"]`);
      await row(toWish).waitFor();

      await row(queued).getByText('Queued', { exact: true }).waitFor();
      assert.equal(await row(queued).getByRole('button', { name: `Add ${label(queued)} to the queue` }).isDisabled(), true);
      await row(queued).getByText('Already waiting in the queue').waitFor();
      await row(wished).getByText('Wishlisted', { exact: true }).waitFor();
      assert.equal(await row(wished).getByRole('button', { name: `Add ${label(wished)} to the wishlist` }).isDisabled(), true);
      await row(rejected).getByText('Rejected', { exact: true }).waitFor();
      await row(rejected).getByText('Rejected before: restore it from the Rejected view').waitFor();
      assert.equal(await row(rejected).getByRole('button', { name: `Add ${label(rejected)} to the wishlist` }).isDisabled(), false);
      await row(owned).getByText('In library', { exact: true }).waitFor();
      assert.equal(await row(owned).getByRole('button', { name: `Add ${label(owned)} to the queue` }).isDisabled(), true);
      assert.equal(await row(toQueue).locator('.badge').count(), 0, 'an album Crateflow does not know has no flag');
      // Every result has a cover: an image, or the placeholder where Crateflow has none (loaded as an empty pixel, no 404).
      assert.equal(await dialog.locator('li[data-mbid] img.cover, li[data-mbid] [data-testid="cover-placeholder"]').count(), await dialog.locator('li[data-mbid]').count());
      await w.screenshot(`add-dialog-results-${name}`);

      await row(toQueue).getByRole('button', { name: `Add ${label(toQueue)} to the queue` }).click();
      await page.getByText(`Added ${label(toQueue)} to the queue`).waitFor();
      await row(toQueue).getByText('Queued', { exact: true }).waitFor();
      await row(toWish).getByRole('button', { name: `Add ${label(toWish)} to the wishlist` }).click();
      await page.getByText(`Added ${label(toWish)} to the wishlist`).waitFor();
      await row(toWish).getByText('Wishlisted', { exact: true }).waitFor();

      const pending = await api<{ items: { mbid?: string }[] }>(app.baseUrl, 'GET', '/api/v1/queue/pending');
      assert.ok(pending.body.items.some((i) => i.mbid === toQueue.mbid), 'the album is pending in the queue');
      const wishlist = await api<{ items: { mbid?: string }[] }>(app.baseUrl, 'GET', '/api/v1/wishlist');
      assert.ok(wishlist.body.items.some((i) => i.mbid === toWish.mbid), 'the album is on the wishlist');

      // Modal: Tab keeps the focus inside; Esc closes and gives the focus back to the Add button.
      for (let i = 0; i < 4; i++) await page.keyboard.press('Tab');
      await dialog.locator(':focus').waitFor();
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      await page.locator('button.btn-add:focus').waitFor();
      // The queue shows what was added (it reloads after an add).
      await page.getByRole('button', { name: `Details of ${toQueue.artist} — ${toQueue.title}`, exact: true }).waitFor();
      w.assertNoConsoleErrors();
      await w.close();
    });
  }

  it('works on a fresh install (no metadata.contact): from the wishlist page, an artist\'s name alone lists their albums (issue #28)', async (t) => {
    const { app, album } = await startMetadataApp(t, { withoutContact: true });
    const artist = album.credit[0]?.artist.name ?? '';
    const w = await openPage(browser, { baseURL: app.baseUrl });
    const { page } = w;
    await page.goto('/wishlist');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Add an album' });
    await dialog.getByRole('searchbox', { name: 'Search MusicBrainz' }).fill(artist);
    await dialog.locator(`li[data-mbid="${album.id}"]`).waitFor();
    assert.equal(await dialog.getByRole('alert').count(), 0, 'no error shown');
    await w.screenshot('add-dialog-artist-desktop');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'hidden' });
    w.assertNoConsoleErrors();
    await w.close();
  });
});
