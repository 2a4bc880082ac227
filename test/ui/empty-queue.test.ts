import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { api, eventually } from '../helpers/api-client.js';
import { startApp } from '../helpers/start-app.js';
import { startMetadataApp } from '../core/metadata/metadata-test-app.js';
import { launchChromium } from './launch-chromium.js';
import { DESKTOP, openPage, PHONE } from './watched-page.js';

/** The queue of a fresh install: where candidates come from, Add, and how to set up (or run) a source. */
describe('empty queue', () => {
  let browser: Browser;

  for (const [name, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
    it(`on a fresh install says where candidates come from and offers Add and setting up a source (${name})`, async (t) => {
      browser ??= await launchChromium();
      const app = await startApp();
      t.after(() => app.close());
      const w = await openPage(browser, { baseURL: app.baseUrl, viewport });
      const { page } = w;
      await page.goto('/queue');
      const empty = page.getByTestId('empty-queue');
      await empty.getByRole('heading', { name: 'Nothing is waiting for a decision' }).waitFor();
      for (const origin of ['Discovery sources', 'The API', 'Node-RED']) await empty.getByText(origin, { exact: true }).waitFor();
      // No source is configured: the setup explanation is open, with an example for config.yaml.
      await empty.getByText('No discovery source is configured.', { exact: false }).waitFor();
      await empty.getByText('type: similar-artists', { exact: false }).waitFor();
      await w.screenshot(`empty-queue-${name}`);

      await empty.getByRole('button', { name: 'Add an album' }).click();
      const dialog = page.getByRole('dialog', { name: 'Add an album' });
      await dialog.waitFor();
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      w.assertNoConsoleErrors();
      await w.close();
    });
  }

  it('makes running the configured source its main action, lists the sources, and says why a run added nothing', async (t) => {
    browser ??= await launchChromium();
    t.after(() => browser.close());
    const { app } = await startMetadataApp(t, { config: { sources: [{ name: 'fresh-albums', type: 'new-releases', schedule: 'manual' }] } });
    const w = await openPage(browser, { baseURL: app.baseUrl, viewport: PHONE });
    const { page } = w;
    await page.goto('/queue');
    const empty = page.getByTestId('empty-queue');
    const main = empty.getByTestId('run-first-source');
    await main.getByText('Run fresh-albums now').waitFor();
    assert.match((await main.getAttribute('class')) ?? '', /btn-primary/, 'running the source is the primary action');
    await empty.getByText('Set up a source').click();
    const sources = empty.getByRole('list', { name: 'Discovery sources' });
    await sources.getByText('fresh-albums', { exact: true }).waitFor();
    await sources.getByText('new-releases · runs when started').waitFor();
    await main.click();
    await page.getByText('Started fresh-albums: its candidates appear here as it finds them').waitFor();
    // The library is empty: the run proposes nothing and says so once it has ended (the page is read again).
    await eventually(async () => {
      const listed = await api<{ items: { name: string; last_run: { status: string } | null }[] }>(app.baseUrl, 'GET', '/api/v1/sources');
      const status = listed.body.items.find((s) => s.name === 'fresh-albums')?.last_run?.status;
      return status === 'completed' || undefined;
    }, 10_000, 'the run to complete');
    await page.reload();
    await page.getByTestId('source-note').getByText('your library is empty, so there are no artists to follow', { exact: false }).waitFor();
    await w.screenshot('empty-queue-sources-phone');
    w.assertNoConsoleErrors();
    await w.close();
  });
});
