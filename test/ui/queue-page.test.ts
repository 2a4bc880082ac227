import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startApp, type StartedApp } from '../helpers/start-app.js';
import { api, eventually } from '../helpers/api-client.js';
import { startFakeWebhookReceiver, type FakeWebhookReceiver } from '../fakes/fake-webhook-receiver.js';
import { launchChromium } from './launch-chromium.js';
import { seedQueue } from './seed-queue.js';
import { DESKTOP, openPage, PHONE } from './watched-page.js';

describe('queue page (auth disabled)', () => {
  let browser: Browser;
  let app: StartedApp;
  let receiver: FakeWebhookReceiver;
  const eventsOf = () => receiver.received.map((r) => JSON.parse(r.body.toString('utf8')) as { event: string; data: { artist: string } });

  before(async () => {
    receiver = await startFakeWebhookReceiver();
    app = await startApp({
      config: { webhooks: [{ name: 'decisions', url: receiver.url, secret: 'decisions-secret', events: ['queue_approved', 'queue_rejected'] }] },
    });
    await seedQueue(app.baseUrl, 60);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await receiver?.close();
  });

  it('approves and rejects single items, and the webhook receiver sees both events', async () => {
    const w = await openPage(browser, { baseURL: app.baseUrl });
    const { page } = w;
    await page.goto('/queue?sort=artist&order=asc');
    await page.getByRole('button', { name: 'Approve Artist 00001 — Record number 00001' }).click();
    await page.getByText('Approved Artist 00001 — Record number 00001').waitFor();
    await page.getByRole('button', { name: 'Reject Artist 00002 — Record number 00002' }).click();
    await page.getByText('Rejected Artist 00002 — Record number 00002').waitFor();
    await page.getByRole('button', { name: 'Approve Artist 00001 — Record number 00001' }).waitFor({ state: 'detached' });

    await receiver.waitFor(2);
    const events = eventsOf().map((e) => `${e.event}:${e.data.artist}`).sort();
    assert.deepEqual(events, ['queue_approved:Artist 00001', 'queue_rejected:Artist 00002']);
    await w.screenshot('queue-desktop');
    w.assertNoConsoleErrors();
    await w.close();
  });

  it('approves a selection with the bulk action and rejects with the keyboard', async () => {
    const w = await openPage(browser, { baseURL: app.baseUrl });
    const { page } = w;
    await page.goto('/queue?sort=artist&order=asc&view=list');
    await page.getByRole('checkbox', { name: 'Select Artist 00003 — Record number 00003' }).check();
    await page.getByRole('checkbox', { name: 'Select Artist 00004 — Record number 00004' }).check();
    assert.equal(await page.getByTestId('selection-count').textContent(), '2 selected');
    await page.getByRole('button', { name: 'Approve selected' }).click();
    await page.getByText('Approved 2 items').waitFor();

    // Keyboard: a click makes a row active; j moves down, x selects, r rejects the selection, a approves the active row.
    await page.getByRole('cell', { name: 'Artist 00005 Record number 00005' }).click();
    await page.locator('body').press('j');
    await page.locator('body').press('x');
    assert.equal(await page.getByTestId('selection-count').textContent(), '1 selected');
    await page.locator('body').press('r');
    await page.getByText('Rejected Artist 00006 — Record number 00006').waitFor();
    await page.getByRole('button', { name: 'Approve Artist 00006 — Record number 00006' }).waitFor({ state: 'detached' });
    await page.locator('body').press('a');
    await page.getByText('Approved Artist 00007 — Record number 00007').waitFor();

    await receiver.waitFor(6);
    const artists = eventsOf().slice(2).map((e) => `${e.event}:${e.data.artist}`).sort();
    assert.deepEqual(artists, ['queue_approved:Artist 00003', 'queue_approved:Artist 00004', 'queue_approved:Artist 00007', 'queue_rejected:Artist 00006']);
    w.assertNoConsoleErrors();
    await w.close();
  });

  it('shows items added and decided elsewhere without a reload', async () => {
    const w = await openPage(browser, { baseURL: app.baseUrl });
    const { page } = w;
    await page.goto('/queue');
    await page.getByText('Live', { exact: true }).waitFor();
    const before = Number((await page.getByTestId('queue-total').textContent())?.replace(/\D/g, ''));
    const added = await api<{ items: { id: string }[] }>(app.baseUrl, 'POST', '/api/v1/queue', { artist: 'Live Arrival', album: 'Fresh Pressing', source: 'manual' });
    assert.equal(added.status, 201);
    await page.getByRole('button', { name: 'Approve Live Arrival — Fresh Pressing' }).waitFor();
    await eventually(async () => ((await page.getByTestId('queue-total').textContent())?.includes(String(before + 1)) ? true : undefined), 5000, 'the total to grow');
    const id = added.body.items[0]?.id ?? '';
    assert.equal((await api(app.baseUrl, 'POST', `/api/v1/queue/${id}/reject`)).status, 200);
    await page.getByRole('button', { name: 'Approve Live Arrival — Fresh Pressing' }).waitFor({ state: 'detached' });
    w.assertNoConsoleErrors();
    await w.close();
  });

  it('searches, sorts and pages through the queue at phone width', async () => {
    const w = await openPage(browser, { baseURL: app.baseUrl, viewport: PHONE });
    const { page } = w;
    await page.goto('/queue?view=list');
    await page.getByRole('searchbox', { name: 'Search queue' }).fill('00021');
    await page.waitForURL(/q=00021/);
    // The row for 00021 may already be on the unfiltered first page: wait for the filtered list itself.
    await eventually(async () => ((await page.locator('tbody tr').count()) === 1 ? true : undefined), 5000, 'the filtered list');
    await page.getByRole('button', { name: 'Approve Artist 00021 — Record number 00021' }).waitFor();
    await page.getByRole('searchbox', { name: 'Search queue' }).fill('');
    await page.waitForURL((url) => !url.search.includes('q='));
    await page.getByLabel('Per page').selectOption('25');
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.waitForURL(/offset=25/);
    await page.getByText(/^26–\d+ of/).waitFor();
    await w.screenshot('queue-phone');
    w.assertNoConsoleErrors();
    await w.close();
  });

  it('keeps the layout usable at desktop width with the shortcut list open', async () => {
    const w = await openPage(browser, { baseURL: app.baseUrl, viewport: DESKTOP });
    const { page } = w;
    await page.goto('/queue');
    await page.getByRole('button', { name: 'Approve Artist 00060 — Record number 00060' }).waitFor();
    await page.locator('body').press('?');
    await page.getByRole('term').filter({ hasText: 'j / k' }).waitFor();
    await page.locator('body').press('/');
    assert.equal(await page.locator(':focus').getAttribute('aria-label'), 'Search queue');
    await w.screenshot('queue-shortcuts-desktop');
    w.assertNoConsoleErrors();
    await w.close();
  });
});
