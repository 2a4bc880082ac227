import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import type { LibraryAlbum } from '@crateflow/sdk';
import { startApp, type StartedApp } from '../helpers/start-app.js';
import { api, eventually } from '../helpers/api-client.js';
import { writeAlbum } from '../helpers/write-album.js';
import { launchChromium } from './launch-chromium.js';
import { startIdentityProxy, type IdentityProxy } from './identity-proxy.js';
import { DESKTOP, failApi, openPage, PHONE } from './watched-page.js';

interface LibraryList {
  items: LibraryAlbum[];
  total: number;
  synced_at: string | null;
}

// The scripted fixture backend yields whatever albums a test writes to its script file (see the fixture's doc).
const SCRIPTED = fileURLToPath(new URL('../fixtures/plugins/scripted-library.ts', import.meta.url));
const MBID = '0e9b3b0a-6b3e-4a8f-9d3c-1c2b3a4d5e6f';
const NAMED: readonly (readonly [artist: string, album: string])[] = [['Broadcast', 'Tender Buttons'], ['Broadcast', 'Haha Sound'], ['Stereolab', 'Dots and Loops'], ['Stereolab', 'Emperor Tomato Ketchup'], ['Low', 'Things We Lost in the Fire']];
const FILLERS = 118;
const TOTAL = NAMED.length + FILLERS;

/** The folder startApp() gives the filesystem library (next to the data dir in the app's temp dir). */
const musicDir = (app: StartedApp) => join(app.dataDir, '..', 'music');

/** Starts a sync through the API and waits until its job has completed. */
async function syncLibrary(baseUrl: string, headers: Record<string, string> = {}): Promise<void> {
  const started = await api<{ job: { id: string } }>(baseUrl, 'POST', '/api/v1/library/sync', undefined, headers);
  assert.equal(started.status, 202);
  const status = await eventually(async () => {
    const job = await api<{ status: string }>(baseUrl, 'GET', `/api/v1/jobs/${started.body.job.id}`, undefined, headers);
    return job.body.status === 'running' ? undefined : job.body.status;
  }, 10_000, 'the library sync to end');
  assert.equal(status, 'completed');
}

/** A cell of the library table holding exactly `text` (a stacked table at phone width has no cell roles). */
const albumCell = (page: Page, text: string) => page.locator('tbody td').getByText(text, { exact: true });

/** The album at `index` of a page the API answered (negative counts from the end). */
function albumAt(list: LibraryList, index: number): string {
  const album = list.items.at(index)?.album;
  assert.ok(album, `the page of ${list.items.length} albums has no album at ${index}`);
  return album;
}

/** The text of the page's total once it equals `text`: rows of the previous list may still be on screen until then. */
const totalReads = (page: Page, text: string) =>
  eventually(async () => ((await page.getByTestId('library-total').textContent()) === text ? true : undefined), 5000, `the total "${text}"`);

describe('library page', () => {
  let browser: Browser;

  before(async () => {
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
  });

  describe('with a synced library of 123 albums', () => {
    let app: StartedApp;
    const libraryPage = async (offset: number) =>
      (await api<LibraryList>(app.baseUrl, 'GET', `/api/v1/library?limit=50&offset=${offset}`)).body;

    before(async () => {
      app = await startApp({ config: { library: { sync_interval: '1h' } } });
      for (const [artist, album] of NAMED) await writeAlbum(join(musicDir(app), artist, album));
      for (let i = 1; i <= FILLERS; i++) {
        const n = String(i).padStart(3, '0');
        await writeAlbum(join(musicDir(app), `Filler ${n}`, `Filler Record ${n}`));
      }
      await syncLibrary(app.baseUrl);
    });
    after(async () => {
      await app?.close();
    });

    for (const [label, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
      it(`lists the albums of the first page with the exact total and when the last sync ran (${label})`, async () => {
        const first = await libraryPage(0);
        const w = await openPage(browser, { baseURL: app.baseUrl, viewport });
        const { page } = w;
        await page.goto('/library');
        await page.getByRole('heading', { name: /^Library/ }).waitFor();
        await totalReads(page, `${TOTAL} albums`);
        assert.equal(await page.getByTestId('library-synced').textContent(), 'Last synced just now');
        await albumCell(page, albumAt(first, 0)).waitFor();
        assert.equal(await page.locator('tbody tr').count(), 50);
        await page.getByText(`1–50 of ${TOTAL}`).waitFor();
        assert.equal(await page.getByRole('link', { name: 'Library', exact: true }).getAttribute('aria-current'), 'page');
        assert.equal(await page.getByRole('button', { name: 'Sync library now' }).count(), 1); // auth is off: everyone is admin
        await w.screenshot(`library-${label}`);
        w.assertNoConsoleErrors();
        await w.close();
      });
    }

    it('narrows the list to the search, keeps it in the URL, and says when nothing matches', async () => {
      const w = await openPage(browser, { baseURL: app.baseUrl });
      const { page } = w;
      await page.goto('/library');
      await totalReads(page, `${TOTAL} albums`);
      const search = page.getByRole('searchbox', { name: 'Search library' });
      await search.fill('stereolab');
      await page.waitForURL(/q=stereolab/);
      // Stereolab's albums may be on the unfiltered first page too: wait for the filtered list itself.
      await totalReads(page, '2 albums');
      await eventually(async () => ((await page.locator('tbody tr').count()) === 2 ? true : undefined), 5000, 'the filtered rows');
      await albumCell(page, 'Dots and Loops').waitFor();
      await albumCell(page, 'Emperor Tomato Ketchup').waitFor();

      await page.reload();
      assert.equal(await search.inputValue(), 'stereolab');
      await totalReads(page, '2 albums');

      await search.fill('broadcast tender');
      await page.waitForURL(/q=broadcast\+tender/);
      await totalReads(page, '1 album');
      await albumCell(page, 'Tender Buttons').waitFor();

      await search.fill('no such record anywhere');
      await page.getByText('No albums match this search.').waitFor();
      assert.equal(await page.locator('tbody tr').count(), 0);

      await search.fill('');
      await page.waitForURL((url) => !url.search.includes('q='));
      await totalReads(page, `${TOTAL} albums`);
      w.assertNoConsoleErrors();
      await w.close();
    });

    it('pages through the albums 50 at a time with the offset in the URL', async () => {
      const [first, second, third] = [await libraryPage(0), await libraryPage(50), await libraryPage(100)];
      assert.equal(third.items.length, TOTAL - 100);
      const w = await openPage(browser, { baseURL: app.baseUrl });
      const { page } = w;
      await page.goto('/library');
      await albumCell(page, albumAt(first, 0)).waitFor();

      await page.getByRole('button', { name: 'Next page' }).click();
      await page.waitForURL(/offset=50/);
      await page.getByText(`51–100 of ${TOTAL}`).waitFor();
      await albumCell(page, albumAt(second, 0)).waitFor();
      await albumCell(page, albumAt(first, 0)).waitFor({ state: 'detached' });

      await page.getByRole('button', { name: 'Last page' }).click();
      await page.waitForURL(/offset=100/);
      await page.getByText(`101–${TOTAL} of ${TOTAL}`).waitFor();
      await albumCell(page, albumAt(third, -1)).waitFor();
      await eventually(async () => ((await page.locator('tbody tr').count()) === TOTAL - 100 ? true : undefined), 5000, 'the rows of the last page');
      assert.equal(await page.getByRole('button', { name: 'Next page' }).isDisabled(), true);

      await page.goBack();
      await page.waitForURL(/offset=50/);
      await albumCell(page, albumAt(second, 0)).waitFor();
      w.assertNoConsoleErrors();
      await w.close();
    });

    it('shows an API error as a message with a retry, not a blank page', async () => {
      const w = await openPage(browser, { baseURL: app.baseUrl });
      const { page } = w;
      const recover = await failApi(page, '**/api/v1/library?*', 'the library catalogue cannot be read');
      await page.goto('/library');
      await page.getByRole('alert').filter({ hasText: 'the library catalogue cannot be read' }).waitFor();
      await recover();
      await page.getByRole('button', { name: 'Try again' }).click();
      await totalReads(page, `${TOTAL} albums`);
      assert.equal(await page.getByRole('alert').count(), 0);
      w.assertNoConsoleErrors([/status of 503/]);
      await w.close();
    });
  });

  describe('behind a forward-auth proxy, before the first sync', () => {
    const CURATOR = { 'Remote-User': 'carol', 'Remote-Groups': 'curators' };
    const LISTENER = { 'Remote-User': 'lee', 'Remote-Groups': 'listeners' };
    let app: StartedApp;
    let proxy: IdentityProxy;

    before(async () => {
      app = await startApp({
        config: {
          library: { sync_interval: '1h' },
          ui: { auth: { enabled: true, type: 'proxy', trusted_headers: ['Remote-User', 'Remote-Groups'], roles: { curators: 'approver', listeners: 'viewer' } } },
        },
      });
      proxy = await startIdentityProxy(app.baseUrl, CURATOR);
    });
    after(async () => {
      await proxy?.close();
      await app?.close();
    });

    it('says no sync has run yet, then syncs on request for an approver and lists the album folder written since', async () => {
      proxy.identity = CURATOR;
      const w = await openPage(browser, { baseURL: proxy.url });
      const { page } = w;
      await page.goto('/library');
      assert.equal(await page.getByTestId('user-name').innerText(), 'carol · approver');
      await page.getByText('No library sync has run yet.').waitFor();
      await page.getByText('Albums appear here after the first library sync.').waitFor();
      await totalReads(page, '0 albums');
      await w.screenshot('library-empty-desktop');

      await writeAlbum(join(musicDir(app), 'Broadcast', 'Tender Buttons'));
      await page.getByRole('button', { name: 'Sync library now' }).click();
      await page.getByText('Library sync finished').waitFor();
      await albumCell(page, 'Tender Buttons').waitFor();
      await totalReads(page, '1 album');
      assert.equal(await page.getByTestId('library-synced').textContent(), 'Last synced just now');
      assert.equal(await page.getByRole('button', { name: 'Sync library now' }).isEnabled(), true);
      w.assertNoConsoleErrors();
      await w.close();
    });

    it('offers no sync button to a viewer, here or on the dashboard', async () => {
      proxy.identity = LISTENER;
      const w = await openPage(browser, { baseURL: proxy.url });
      const { page } = w;
      await page.goto('/library');
      assert.equal(await page.getByTestId('user-name').innerText(), 'lee · viewer');
      await page.getByTestId('library-synced').waitFor();
      assert.equal(await page.getByRole('button', { name: 'Sync library now' }).count(), 0);
      await page.getByRole('link', { name: 'Dashboard', exact: true }).click();
      await page.getByRole('heading', { name: 'Library sync' }).waitFor();
      assert.equal(await page.getByRole('button', { name: 'Sync library now' }).count(), 0);
      w.assertNoConsoleErrors();
      await w.close();
    });
  });

  describe('with a library backend that knows MusicBrainz ids', () => {
    let app: StartedApp;
    let scriptDir: string;
    let gateFile: string;

    before(async () => {
      scriptDir = await mkdtemp(join(tmpdir(), 'crateflow-ui-library-'));
      gateFile = join(scriptDir, 'gate');
      const files = { script_file: join(scriptDir, 'script.json'), gate_file: gateFile, calls_file: join(scriptDir, 'calls') };
      const albums: LibraryAlbum[] = [
        { artist: 'Broadcast', album: 'Tender Buttons', mbid: MBID, year: 2003 },
        { artist: 'Low', album: 'Things We Lost in the Fire', year: 2001 },
      ];
      await writeFile(files.script_file, JSON.stringify({ albums }));
      app = await startApp({ config: { library: { type: 'scripted-library', sync_interval: '1h' }, plugins: [{ use: SCRIPTED, config: files }] } });
      assert.equal((await api(app.baseUrl, 'POST', '/api/v1/wishlist', { artist: 'Broadcast', album: 'Tender Buttons' })).status, 201);
    });
    after(async () => {
      await app?.close();
      await rm(scriptDir, { recursive: true, force: true });
    });

    it('refreshes when a sync elsewhere removes a wished-for album, and links a MusicBrainz release only when known', async () => {
      const w = await openPage(browser, { baseURL: app.baseUrl });
      const { page } = w;
      await page.goto('/library');
      await page.getByText('No library sync has run yet.').waitFor();
      await page.getByText('Live', { exact: true }).waitFor(); // the stream is open, so the sync's event reaches the page

      await syncLibrary(app.baseUrl);
      await albumCell(page, 'Tender Buttons').waitFor();
      await totalReads(page, '2 albums');
      assert.equal((await api<{ total: number }>(app.baseUrl, 'GET', '/api/v1/wishlist')).body.total, 0);

      // Only checked, never followed: tests send nothing beyond loopback.
      const link = page.locator('tbody').getByRole('link', { name: MBID });
      assert.equal(await link.getAttribute('href'), `https://musicbrainz.org/release/${MBID}`);
      assert.equal(await link.getAttribute('target'), '_blank');
      assert.match((await link.getAttribute('rel')) ?? '', /\bnoreferrer\b/);
      assert.equal(await page.locator('tbody').getByRole('link').count(), 1);
      await albumCell(page, '2003').waitFor();
      await albumCell(page, '2001').waitFor();
      await w.screenshot('library-musicbrainz-desktop');
      w.assertNoConsoleErrors();
      await w.close();
    });

    it('disables the sync button while its sync runs and enables it again when the sync ends', async () => {
      const w = await openPage(browser, { baseURL: app.baseUrl });
      const { page } = w;
      await page.goto('/library');
      await page.getByTestId('library-synced').waitFor();
      await writeFile(gateFile, ''); // the backend holds every sync while this file exists
      try {
        await page.getByRole('button', { name: 'Sync library now' }).click();
        const syncing = page.getByRole('button', { name: 'Syncing…' });
        await syncing.waitFor();
        assert.equal(await syncing.isDisabled(), true);
      } finally {
        await rm(gateFile, { force: true });
      }
      await page.getByText('Library sync finished').waitFor();
      await page.getByRole('button', { name: 'Sync library now' }).waitFor();
      await albumCell(page, 'Tender Buttons').waitFor();
      assert.equal(await page.getByTestId('library-synced').textContent(), 'Last synced just now');
      w.assertNoConsoleErrors();
      await w.close();
    });
  });
});
