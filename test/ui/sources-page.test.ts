import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { api, eventually } from '../helpers/api-client.js';
import { startApp } from '../helpers/start-app.js';
import { candidate, SCRIPTED_SOURCE, sourceFiles } from '../core/sources/source-fixture.js';
import { launchChromium } from './launch-chromium.js';
import { DESKTOP, openPage, PHONE } from './watched-page.js';

/** The Sources page: every source with its state, last run, why a run added nothing or failed, and Run now. */
describe('sources page', () => {
  it('shows each source\'s last run (counts, failure, or why it added nothing), runs one, and is reached from the nav', async (t) => {
    const browser = await launchChromium();
    t.after(() => browser.close());
    const adds = await sourceFiles({ candidates: [candidate('Autechre', 'Tri Repetae', '1'), candidate('Plaid', 'Double Figure', '4')] });
    const quiet = await sourceFiles({ candidates: [], explain: 'ListenBrainz has not computed recommendations for rob yet' });
    const broken = await sourceFiles({ fail: 'ListenBrainz answered 500' });
    const app = await startApp({
      config: {
        sources: [
          { name: 'picks', use: SCRIPTED_SOURCE, schedule: 'manual', ...adds.config },
          { name: 'listening', use: SCRIPTED_SOURCE, schedule: '1d', ...quiet.config },
          { name: 'broken', use: SCRIPTED_SOURCE, schedule: 'manual', ...broken.config },
          { name: 'off', use: SCRIPTED_SOURCE, enabled: false, ...adds.config },
        ],
      },
    });
    t.after(async () => {
      await app.close();
      await Promise.all([adds.remove(), quiet.remove(), broken.remove()]);
    });
    // A 1d source runs once at start; the others run by hand here.
    for (const name of ['broken']) await api(app.baseUrl, 'POST', `/api/v1/sources/${name}/run`);
    await eventually(async () => {
      const listed = await api<{ items: { name: string; running: unknown; last_run: unknown }[] }>(app.baseUrl, 'GET', '/api/v1/sources');
      const ran = listed.body.items.filter((s) => s.name === 'listening' || s.name === 'broken');
      return ran.every((s) => s.last_run && !s.running) || undefined;
    }, 10_000, 'the first runs to end');

    for (const [name, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
      const w = await openPage(browser, { baseURL: app.baseUrl, viewport });
      const { page } = w;
      await page.goto('/');
      if (name === 'desktop') await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sources' }).click();
      else await page.goto('/sources');
      await page.getByRole('heading', { name: 'Sources' }).waitFor();
      const card = (source: string) => page.getByTestId('source').filter({ has: page.getByText(source, { exact: true }) });
      await card('listening').getByText('Nothing added: ListenBrainz has not computed recommendations for rob yet.').waitFor();
      await card('listening').getByText('every 1d').waitFor();
      await card('broken').getByText('ListenBrainz answered 500', { exact: false }).waitFor();
      await card('off').getByText('disabled (enabled: false)').waitFor();
      assert.equal(await card('off').getByRole('button', { name: 'Run off now' }).count(), 0, 'a disabled source offers no Run now');
      if (name === 'desktop') {
        await card('picks').getByText('not run yet').waitFor();
        await card('picks').getByRole('button', { name: 'Run picks now' }).click();
        await page.getByText('Started picks: its candidates appear in the queue as it finds them').waitFor();
        await card('picks').getByText('2 added, 0 duplicate, 0 owned', { exact: false }).waitFor();
      }
      await w.screenshot(`sources-${name}`);
      w.assertNoConsoleErrors();
      await w.close();
    }
  });
});
