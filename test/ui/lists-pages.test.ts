import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { startApp, type StartedApp } from '../helpers/start-app.js';
import { api, eventually } from '../helpers/api-client.js';
import { JobScheduler } from '../../core/jobs/job-scheduler.js';
import { launchChromium } from './launch-chromium.js';
import { DESKTOP, failApi, openPage, PHONE } from './watched-page.js';

interface Download { id: string; artist: string; state: string }

// The scripted fixture client lets each artist's download end in a chosen state (see the fixture's doc).
const SCRIPTED = fileURLToPath(new URL('../fixtures/plugins/scripted-downloads.ts', import.meta.url));
const TENDER_PATH = '/srv/music/incoming/Broadcast/Tender Buttons';
const SCRIPT = {
  Broadcast: { status: [{ state: 'completed', progress: 1, download_path: TENDER_PATH }] },
  Low: { status: [{ state: 'downloading', progress: 0.42 }] },
  'Boards of Canada': { status: [{ state: 'downloading', progress: 0.1 }] },
  Stereolab: { status: [{ state: 'failed', progress: 0.3, error: 'no source had every track of the album' }] },
};

describe('dashboard, wishlist and downloads pages', () => {
  let browser: Browser;
  let app: StartedApp;
  let scriptDir: string;
  const poll = () => app.crateflow.container.resolve(JobScheduler).runNow('download_poll');
  const downloads = async () => (await api<{ items: Download[] }>(app.baseUrl, 'GET', '/api/v1/downloads')).body.items;

  before(async () => {
    scriptDir = await mkdtemp(join(tmpdir(), 'crateflow-ui-script-'));
    await writeFile(join(scriptDir, 'script.json'), JSON.stringify(SCRIPT));
    app = await startApp({
      config: {
        download_client: { type: 'scripted-downloads', poll_interval: '1h' },
        library: { sync_interval: '1h' },
        plugins: [{ use: SCRIPTED, config: { script_file: join(scriptDir, 'script.json'), calls_file: join(scriptDir, 'calls.jsonl') } }],
      },
    });
    await mkdir(join(app.dataDir, '..', 'music'), { recursive: true });
    const wanted = [['Broadcast', 'Tender Buttons'], ['Low', 'Things We Lost in the Fire'], ['Boards of Canada', 'Geogaddi'], ['Stereolab', 'Emperor Tomato Ketchup']];
    for (const [artist, album] of wanted) {
      assert.equal((await api(app.baseUrl, 'POST', '/api/v1/wishlist', { artist, album })).status, 201);
    }
    await eventually(async () => {
      await poll();
      const states = new Set((await downloads()).map((d) => d.state));
      return states.has('completed') && states.has('failed') ? true : undefined;
    }, 10_000, 'completed and failed downloads');
    assert.equal((await api(app.baseUrl, 'POST', '/api/v1/library/sync')).status, 202);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await rm(scriptDir, { recursive: true, force: true });
  });

  for (const [label, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
    it(`shows dashboard counts, last sync, plugin health and activity (${label})`, async () => {
      const w = await openPage(browser, { baseURL: app.baseUrl, viewport });
      const { page } = w;
      await page.goto('/');
      await page.getByTestId('count-completed').filter({ hasText: '1' }).waitFor();
      await page.getByRole('heading', { name: 'Plugins' }).waitFor();
      await page.getByText('scripted-downloads', { exact: true }).waitFor();
      await page.getByText('Downloaded', { exact: true }).first().waitFor();
      await w.screenshot(`dashboard-${label}`);
      w.assertNoConsoleErrors();
      await w.close();
    });

    it(`shows wishlist statuses and download paths (${label})`, async () => {
      const w = await openPage(browser, { baseURL: app.baseUrl, viewport });
      const { page } = w;
      await page.goto('/wishlist');
      await page.getByText('Tender Buttons', { exact: true }).waitFor();
      await page.getByText('Geogaddi', { exact: true }).waitFor();
      await page.getByText(TENDER_PATH).waitFor();
      await page.getByRole('button', { name: 'downloading' }).click();
      await page.waitForURL(/status=downloading/);
      // Geogaddi is on the unfiltered list too: wait for the filtered one to replace it.
      await eventually(async () => ((await page.getByText('Tender Buttons', { exact: true }).count()) === 0 ? true : undefined), 5000, 'the filtered wishlist');
      await page.getByText('Geogaddi', { exact: true }).waitFor();
      await page.getByRole('button', { name: 'All' }).click();
      await page.getByText('Tender Buttons', { exact: true }).waitFor();
      await w.screenshot(`wishlist-${label}`);
      w.assertNoConsoleErrors();
      await w.close();
    });

    it(`shows download states with progress bars and paths (${label})`, async () => {
      const w = await openPage(browser, { baseURL: app.baseUrl, viewport });
      const { page } = w;
      await page.goto('/downloads');
      await page.getByRole('progressbar', { name: 'Progress of Low — Things We Lost in the Fire' }).waitFor();
      await page.getByText(TENDER_PATH).waitFor();
      await page.getByText('no source had every track of the album').waitFor();
      await w.screenshot(`downloads-${label}`);
      w.assertNoConsoleErrors();
      await w.close();
    });
  }

  it('retries a failed download', async () => {
    const w = await openPage(browser, { baseURL: app.baseUrl });
    const { page } = w;
    await page.goto('/downloads?status=failed');
    await page.getByRole('button', { name: 'Retry Stereolab — Emperor Tomato Ketchup' }).click();
    await page.getByText('Retrying Stereolab — Emperor Tomato Ketchup').waitFor();
    await page.getByText('No failed downloads.').waitFor();
    w.assertNoConsoleErrors();
    await w.close();
  });

  it('removes a wishlist item after a confirmation', async () => {
    const w = await openPage(browser, { baseURL: app.baseUrl });
    const { page } = w;
    await page.goto('/wishlist');
    await page.getByRole('button', { name: 'Remove Boards of Canada — Geogaddi' }).click();
    await page.getByRole('button', { name: 'Confirm removing Boards of Canada — Geogaddi' }).click();
    await page.getByText('Removed Boards of Canada — Geogaddi from the wishlist').waitFor();
    await page.getByRole('row').filter({ hasText: 'Geogaddi' }).waitFor({ state: 'detached' });
    w.assertNoConsoleErrors();
    await w.close();
  });

  it('shows an API error as a message with a retry, not a blank page', async () => {
    const w = await openPage(browser, { baseURL: app.baseUrl });
    const { page } = w;
    const recover = await failApi(page, '**/api/v1/downloads?*', 'the data dir is not writable');
    await page.goto('/downloads');
    await page.getByRole('alert').filter({ hasText: 'the data dir is not writable' }).waitFor();
    await recover();
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.getByText('Tender Buttons', { exact: true }).waitFor();
    w.assertNoConsoleErrors([/status of 503/]);
    await w.close();
  });
});
