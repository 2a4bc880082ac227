import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { api, eventually } from '../helpers/api-client.js';
import { startApp, type StartedApp } from '../helpers/start-app.js';
import { writeAlbum } from '../helpers/write-album.js';
import { launchChromium } from './launch-chromium.js';
import { DESKTOP, openPage, PHONE } from './watched-page.js';

describe('queue page: undo, rejected and approved views', () => {
  let browser: Browser;
  let app: StartedApp;

  before(async () => {
    app = await startApp();
    const albums = ['Tender Buttons', 'Haha Sound', 'The Noise Made by People', 'Work and Non Work'];
    await api(app.baseUrl, 'POST', '/api/v1/queue', albums.map((album) => ({ artist: 'Broadcast', album })));
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  const pendingArtists = async () => (await api<{ items: { album: string }[] }>(app.baseUrl, 'GET', '/api/v1/queue/pending?limit=50')).body.items.map((i) => i.album).sort();

  for (const [name, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
    it(`takes a rejection back with Undo in the toast, and restores from the Rejected view (${name})`, async () => {
      const w = await openPage(browser, { baseURL: app.baseUrl, viewport });
      const { page } = w;
      await page.goto('/queue?sort=artist&order=asc');
      await page.getByRole('button', { name: 'Reject Broadcast — Tender Buttons' }).click();
      await page.getByText('Rejected Broadcast — Tender Buttons').waitFor();
      await page.getByRole('button', { name: 'Undo' }).click();
      await page.getByText('Restored Broadcast — Tender Buttons to the queue').waitFor();
      await page.getByRole('button', { name: 'Reject Broadcast — Tender Buttons' }).waitFor();
      assert.ok((await pendingArtists()).includes('Tender Buttons'), 'Undo put the item back to pending');

      await page.getByRole('button', { name: 'Reject Broadcast — Haha Sound' }).click();
      await page.getByText('Rejected Broadcast — Haha Sound').waitFor();
      await page.getByRole('button', { name: 'Rejected', exact: true }).click();
      await page.getByTestId('decided-total').getByText('1 rejected').waitFor();
      await w.screenshot(`queue-rejected-${name}`);
      await page.getByRole('button', { name: 'Restore Broadcast — Haha Sound' }).click();
      await page.getByText('Restored Broadcast — Haha Sound to the queue').waitFor();
      await page.getByTestId('decided-total').getByText('0 rejected').waitFor();
      assert.ok((await pendingArtists()).includes('Haha Sound'));
      await page.getByRole('button', { name: 'Pending', exact: true }).click();
      await page.getByRole('button', { name: 'Reject Broadcast — Haha Sound' }).waitFor();
      w.assertNoConsoleErrors();
      await w.close();
    });
  }

  it('says when an approved album is already in the library, and marks it in the Approved view', async () => {
    await writeAlbum(join(app.dataDir, '..', 'music', 'Broadcast', 'Work and Non Work'));
    const sync = await api<{ job: { id: string } }>(app.baseUrl, 'POST', '/api/v1/library/sync');
    await eventually(async () => ((await api<{ status: string }>(app.baseUrl, 'GET', `/api/v1/jobs/${sync.body.job.id}`)).body.status === 'completed' ? true : undefined));
    const w = await openPage(browser, { baseURL: app.baseUrl });
    const { page } = w;
    await page.goto('/queue?sort=artist&order=asc');
    await page.getByRole('button', { name: 'Approve Broadcast — Work and Non Work' }).click();
    await page.getByText('Approved Broadcast — Work and Non Work: already in your library, not downloaded again').waitFor();
    await page.getByRole('button', { name: 'Approved', exact: true }).click();
    await page.getByText('in library: not downloaded again').waitFor();
    await w.screenshot('queue-approved-desktop');
    const wishlist = await api<{ items: { album: string }[] }>(app.baseUrl, 'GET', '/api/v1/wishlist');
    assert.ok(!wishlist.body.items.some((i) => i.album === 'Work and Non Work'), 'an owned album is not wanted again');
    w.assertNoConsoleErrors();
    await w.close();
  });
});
