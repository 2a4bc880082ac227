import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { api } from '../helpers/api-client.js';
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

  it('lists the configured sources and runs one with Run now', async (t) => {
    browser ??= await launchChromium();
    t.after(() => browser.close());
    const { app } = await startMetadataApp(t, { config: { sources: [{ name: 'fresh-albums', type: 'new-releases', schedule: 'manual' }] } });
    const w = await openPage(browser, { baseURL: app.baseUrl, viewport: PHONE });
    const { page } = w;
    await page.goto('/queue');
    const empty = page.getByTestId('empty-queue');
    await empty.getByText('Set up a source').click();
    const sources = empty.getByRole('list', { name: 'Discovery sources' });
    await sources.getByText('fresh-albums', { exact: true }).waitFor();
    await sources.getByText('new-releases · runs when started').waitFor();
    await sources.getByRole('button', { name: 'Run fresh-albums now' }).click();
    await page.getByText('Started fresh-albums: its candidates appear here as it finds them').waitFor();
    const listed = await api<{ items: { name: string; last_run: unknown }[] }>(app.baseUrl, 'GET', '/api/v1/sources');
    assert.ok(listed.body.items.find((s) => s.name === 'fresh-albums')?.last_run, 'the source has a run');
    await w.screenshot('empty-queue-sources-phone');
    w.assertNoConsoleErrors();
    await w.close();
  });
});
