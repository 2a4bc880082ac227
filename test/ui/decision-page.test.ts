import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { DecisionLinkService } from '../../core/approvals/decision-links.js';
import type { QueueItem } from '../../core/queue/queue-item.schema.js';
import { api } from '../helpers/api-client.js';
import { findQueueItem } from '../helpers/find-queue-item.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { startApp, type StartedApp } from '../helpers/start-app.js';
import { launchChromium } from './launch-chromium.js';
import { openPage, PHONE } from './watched-page.js';

// The page a person reaches from a notification on a phone: Chromium at phone size, as the in-app browser of a chat
// or ntfy would show it.
describe('decision page (a decision link on a phone)', () => {
  let browser: Browser;
  let app: StartedApp;
  const clock = new ManualClock();

  before(async () => {
    app = await startApp({ clock, config: { server: { public_url: 'https://music.example.org' }, approvals: { link_ttl: '1h' } } });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  /** A new pending album and a link to decide it, as the page's address on this test's server. */
  async function linkFor(album: string): Promise<{ item: QueueItem; path: string }> {
    const added = await api<{ items: QueueItem[] }>(app.baseUrl, 'POST', '/api/v1/queue', { artist: 'Broadcast', album, year: 2003, reasons: [{ kind: 'similar', text: 'Similar to Stereolab', refs: [] }] });
    const item = added.body.items[0];
    assert.ok(item, JSON.stringify(added.body));
    const link = app.crateflow.container.resolve(DecisionLinkService).issue(item.id, 'test');
    await link.saved;
    return { item, path: new URL(link.url).pathname };
  }

  const statusOf = async (id: string): Promise<string | undefined> => (await findQueueItem(app.baseUrl, id))?.status;

  it('shows the album with two thumb-sized buttons and decides nothing until one is pressed; then once only', async () => {
    const { item, path } = await linkFor('Ha Ha Sound');
    const w = await openPage(browser, { baseURL: app.baseUrl, viewport: PHONE });
    const { page } = w;
    const shown = await page.goto(path);
    assert.equal(shown?.status(), 200);
    await page.getByRole('heading', { name: /Ha Ha Sound/ }).waitFor();
    assert.match(await page.locator('main').innerText(), /Similar to Stereolab/);
    const approve = page.getByRole('button', { name: 'Approve' });
    const reject = page.getByRole('button', { name: 'Reject' });
    for (const button of [approve, reject]) {
      const box = await button.boundingBox();
      assert.ok(box && box.height >= 44 && box.width >= 120, `a thumb-sized button (${JSON.stringify(box)})`);
    }
    assert.equal(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'), true, 'nothing wider than the phone');
    await w.screenshot('decision-page-phone');
    await page.reload();
    assert.equal(await statusOf(item.id), 'pending', 'opening (and reopening) the page decided nothing');

    await approve.click();
    await page.getByText(/Done: Approved by link \(test\)/).waitFor();
    assert.equal(await statusOf(item.id), 'approved');
    await w.screenshot('decision-page-approved-phone');

    const again = await page.goto(path);
    assert.equal(again?.status(), 410);
    await page.getByText('This link was used already.').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Reject' }).count(), 0, 'a used link offers no buttons');
    w.assertNoConsoleErrors([/status of 410/]);
    await w.close();
  });

  it('says a link has expired, and what became of its album', async () => {
    const { item, path } = await linkFor('Tender Buttons');
    await clock.advance(3600_000);
    const w = await openPage(browser, { baseURL: app.baseUrl, viewport: PHONE });
    const answer = await w.page.goto(path);
    assert.equal(answer?.status(), 410);
    await w.page.getByText('This link has expired.').waitFor();
    await w.page.getByText('It is still waiting for a decision in the queue.').waitFor();
    assert.equal(await statusOf(item.id), 'pending');
    await w.screenshot('decision-page-expired-phone');
    await w.close();
  });
});
