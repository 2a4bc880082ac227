import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { api } from '../helpers/api-client.js';
import { startApp, type StartedApp } from '../helpers/start-app.js';
import { launchChromium } from './launch-chromium.js';
import { DESKTOP, openPage, PHONE } from './watched-page.js';

const TENDER = 'a1b2c3d4-0000-4000-8000-000000000001';
const HAHA = 'a1b2c3d4-0000-4000-8000-000000000002';
const BOC = 'b0c0b0c0-0000-4000-8000-000000000003';
const GEOGADDI = 'b0c0b0c0-0000-4000-8000-000000000004';

/**
 * The album panel: opened from a queue row (and a wishlist row), it shows the reasons in full with their links,
 * the tracks and research links of `GET /api/v1/release-groups/{mbid}` — built on another branch, so answered here
 * in the browser with the agreed shape — and decides; Esc closes it and the focus goes back to what opened it.
 */
describe('album panel', () => {
  let browser: Browser;

  before(async () => {
    browser = await launchChromium();
  });
  after(() => browser?.close());

  /** A fresh Crateflow per test: an approved album could not be proposed again for the next viewport. */
  async function freshApp(t: { after(fn: () => Promise<unknown>): void }): Promise<StartedApp> {
    const app = await startApp();
    t.after(() => app.close());
    return app;
  }

  const detail = (mbid: string, title: string) => ({
    mbid, title, artist: 'Broadcast', year: 2009, primary_type: 'Album', secondary_types: ['Compilation'],
    tracks: [
      { position: 1, title: 'Pendulum', length_s: 263 },
      { position: 2, title: 'Tears in the Typing Pool', length_s: 158 },
      { position: 3, title: 'Black Cat' },
    ],
    links: {
      musicbrainz: `https://musicbrainz.org/release-group/${mbid}`,
      listenbrainz: `https://listenbrainz.org/album/${mbid}`,
      lastfm: `https://www.last.fm/music/Broadcast/${encodeURIComponent(title)}`,
      bandcamp_search: `https://bandcamp.com/search?q=${encodeURIComponent(`Broadcast ${title}`)}`,
    },
  });

  /** Tender Buttons has its detail; Haha Sound's lookup fails (503). */
  async function stubDetail(page: Page): Promise<void> {
    await page.route('**/api/v1/release-groups/*', (route) => {
      const mbid = new URL(route.request().url()).pathname.split('/').pop();
      if (mbid === TENDER) return route.fulfill({ contentType: 'application/json', body: JSON.stringify(detail(TENDER, 'Tender Buttons')) });
      const problem = { type: 'about:blank', title: 'Service Unavailable', status: 503, detail: 'MusicBrainz cannot be reached' };
      return route.fulfill({ status: 503, contentType: 'application/problem+json', body: JSON.stringify(problem) });
    });
  }

  for (const [name, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
    it(`shows tracks, reasons and research links, closes with Esc, and approves (${name})`, async (t) => {
      const app = await freshApp(t);
      const reasons = [
        { kind: 'similar-artists', text: 'similar to Boards of Canada', refs: [{ type: 'artist', name: 'Boards of Canada', mbid: BOC }, { type: 'release-group', name: 'Geogaddi', mbid: GEOGADDI }] },
        { kind: 'listening', text: 'recommended from your listening', refs: [{ type: 'user', name: 'rob' }] },
      ];
      const added = await api(app.baseUrl, 'POST', '/api/v1/queue', [
        { artist: 'Broadcast', album: 'Tender Buttons', mbid: TENDER, source: 'similar', score: 0.8, reasons },
        { artist: 'Broadcast', album: 'Haha Sound', mbid: HAHA, source: 'similar' },
      ]);
      assert.equal(added.status, 201, JSON.stringify(added.body));
      const w = await openPage(browser, { baseURL: app.baseUrl, viewport });
      const { page } = w;
      await stubDetail(page);
      // The list view: its rows open the panel from the title (the cards' cover does in the grid, below).
      await page.goto('/queue?view=list');

      const opener = page.getByRole('button', { name: 'Broadcast Tender Buttons', exact: true });
      await opener.click();
      const panel = page.getByRole('dialog', { name: 'Broadcast Tender Buttons' });
      const tracks = panel.getByRole('list', { name: 'Tracks' });
      await tracks.getByText('Tears in the Typing Pool').waitFor();
      assert.equal(await tracks.getByRole('listitem').count(), 3);
      await tracks.getByText('4:23').waitFor();
      await panel.getByText('Album + Compilation').waitFor();
      await panel.getByText('similar to Boards of Canada').waitFor();
      await panel.getByText('recommended from your listening').waitFor();
      const hrefs: [string, string][] = [
        ['Boards of Canada', `https://musicbrainz.org/artist/${BOC}`],
        ['Geogaddi', `https://musicbrainz.org/release-group/${GEOGADDI}`],
        ['rob', 'https://listenbrainz.org/user/rob'],
        ['MusicBrainz', `https://musicbrainz.org/release-group/${TENDER}`],
        ['ListenBrainz', `https://listenbrainz.org/album/${TENDER}`],
        ['Last.fm', 'https://www.last.fm/music/Broadcast/Tender%20Buttons'],
        ['Bandcamp search', 'https://bandcamp.com/search?q=Broadcast%20Tender%20Buttons'],
      ];
      for (const [text, href] of hrefs) {
        const link = panel.getByRole('link', { name: text, exact: true });
        assert.equal(await link.getAttribute('href'), href, text);
        assert.equal(await link.getAttribute('target'), '_blank', text);
        assert.equal(await link.getAttribute('rel'), 'noopener noreferrer', text);
      }
      await w.screenshot(`album-panel-${name}`);

      await page.keyboard.press('Escape');
      await panel.waitFor({ state: 'hidden' });
      await page.locator('button.album-open:focus').filter({ hasText: 'Tender Buttons' }).waitFor();

      // A failed lookup is a message with a retry, not an empty panel.
      await page.getByRole('button', { name: 'Broadcast Haha Sound', exact: true }).click();
      const failed = page.getByRole('dialog', { name: 'Broadcast Haha Sound' });
      await failed.getByRole('alert').filter({ hasText: 'MusicBrainz cannot be reached' }).waitFor();
      await failed.getByRole('button', { name: 'Try again' }).waitFor();
      await failed.getByRole('button', { name: 'Close' }).click();
      await failed.waitFor({ state: 'hidden' });

      // In the grid (the default view), a card's cover opens the same panel.
      await page.goto('/queue?view=grid');
      await page.getByRole('button', { name: 'Details of Broadcast — Tender Buttons', exact: true }).click();
      await panel.getByRole('list', { name: 'Tracks' }).getByText('Tears in the Typing Pool').waitFor();
      await page.keyboard.press('Escape');
      await panel.waitFor({ state: 'hidden' });
      await page.goto('/queue?view=list');

      await opener.click();
      await panel.getByRole('button', { name: 'Approve', exact: true }).click();
      await page.getByText('Approved Broadcast — Tender Buttons').waitFor();
      await panel.waitFor({ state: 'hidden' });
      await opener.waitFor({ state: 'detached' });
      w.assertNoConsoleErrors([/503 \(Service Unavailable\)/]);
      await w.close();
    });
  }

  it('opens from the wishlist, without decisions, and says when an album has no MusicBrainz id yet', async (t) => {
    const app = await freshApp(t);
    const wished = await api(app.baseUrl, 'POST', '/api/v1/wishlist', { artist: 'Stereolab', album: 'Dots and Loops' });
    assert.equal(wished.status, 201, JSON.stringify(wished.body));
    const w = await openPage(browser, { baseURL: app.baseUrl });
    const { page } = w;
    await page.goto('/wishlist');
    await page.getByRole('button', { name: 'Stereolab Dots and Loops', exact: true }).click();
    const panel = page.getByRole('dialog', { name: 'Stereolab Dots and Loops' });
    await panel.getByText('The tracks are shown once the album is matched on MusicBrainz.').waitFor();
    assert.equal(await panel.getByRole('link', { name: 'Bandcamp search' }).getAttribute('href'), 'https://bandcamp.com/search?q=Stereolab%20Dots%20and%20Loops');
    assert.equal(await panel.getByRole('button', { name: 'Approve', exact: true }).count(), 0);
    await w.screenshot('album-panel-wishlist-desktop');
    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'hidden' });
    w.assertNoConsoleErrors();
    await w.close();
  });
});
