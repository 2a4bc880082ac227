import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startApp, type StartedApp } from '../helpers/start-app.js';
import { api, eventually } from '../helpers/api-client.js';
import { startFakeWebhookReceiver, type FakeWebhookReceiver } from '../fakes/fake-webhook-receiver.js';
import { launchChromium } from './launch-chromium.js';
import { openPage, PHONE } from './watched-page.js';

describe('webhooks page', () => {
  let browser: Browser;
  let app: StartedApp;
  let receiver: FakeWebhookReceiver;

  before(async () => {
    receiver = await startFakeWebhookReceiver((request) => (request.query.get('to') === 'broken' ? { status: 500 } : {}));
    app = await startApp({
      config: {
        webhooks: [
          { name: 'home-assistant', url: `${receiver.url}?to=ha`, secret: 'ha-secret-never-shown', events: ['queue_approved', 'download_completed'] },
          { name: 'broken', url: `${receiver.url}?to=broken`, events: ['queue_rejected'], timeout_ms: 2000 },
        ],
      },
    });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await receiver?.close();
  });

  it('lists each webhook with events, target and signing, never the secret', async () => {
    const w = await openPage(browser, { baseURL: app.baseUrl });
    const { page } = w;
    await page.goto('/webhooks');
    const card = page.getByRole('article', { name: 'home-assistant' });
    await card.waitFor();
    const text = await card.innerText();
    assert.match(text, /queue_approved/);
    assert.match(text, /download_completed/);
    assert.match(text, /Yes \(secret set\)/);
    // The target shows scheme, host and port; a path or query (which may hold a token) is cut to a hint.
    assert.match(text, /http:\/\/127\.0\.0\.1:\d+\/…/);
    assert.doesNotMatch(text, /to=ha/);
    assert.doesNotMatch(await page.content(), /ha-secret-never-shown/);
    w.assertNoConsoleErrors();
    await w.close();
  });

  it('Test sends one sample delivery and shows success, status code and duration; a failing target shows its status', async () => {
    const w = await openPage(browser, { baseURL: app.baseUrl });
    const { page } = w;
    await page.goto('/webhooks');
    const before = receiver.received.length;
    await page.getByRole('button', { name: 'Test home-assistant' }).click();
    const result = page.getByRole('status', { name: 'Result for home-assistant' });
    await result.getByText('Delivered').waitFor();
    // The duration reads "840 ms", or "1.3 s" from a second on (a loaded machine gets there).
    assert.match(await result.innerText(), /HTTP 200 · (\d+ ms|\d+\.\d s)/);
    assert.equal(receiver.received.length, before + 1);
    const sent = receiver.received[before];
    assert.equal(sent?.headers['x-webhook-event'], 'download_completed');
    assert.ok(sent?.headers['x-webhook-signature']);

    await page.getByRole('button', { name: 'Test broken' }).click();
    const failed = page.getByRole('status', { name: 'Result for broken' });
    await failed.getByText('Failed').waitFor();
    assert.match(await failed.innerText(), /HTTP 500/);
    w.assertNoConsoleErrors();
    await w.close();
  });

  it('Dry Run shows the payload and headers, signature included, and sends nothing', async () => {
    const w = await openPage(browser, { baseURL: app.baseUrl });
    const { page } = w;
    await page.goto('/webhooks');
    const before = receiver.received.length;
    await page.getByRole('button', { name: 'Dry run home-assistant' }).click();
    const result = page.getByRole('status', { name: 'Result for home-assistant' });
    await result.getByText('nothing was sent').waitFor();
    const text = await result.innerText();
    assert.match(text, /X-Webhook-Signature/i);
    assert.match(text, /"event": "download_completed"/);
    assert.match(text, /"download_path"/);
    assert.equal(receiver.received.length, before);
    await w.screenshot('webhooks-desktop');
    w.assertNoConsoleErrors();
    await w.close();
  });

  it('shows the delivery log and redelivers a delivery with the same delivery id', async () => {
    const added = await api<{ items: { id: string }[] }>(app.baseUrl, 'POST', '/api/v1/queue', { artist: 'Stereolab', album: 'Dots and Loops' });
    const id = added.body.items[0]?.id ?? '';
    assert.equal((await api(app.baseUrl, 'POST', `/api/v1/queue/${id}/approve`)).status, 200);
    const approvedSent = () => receiver.received.filter((r) => r.headers['x-webhook-event'] === 'queue_approved');
    await eventually(() => (approvedSent().length > 0 ? true : undefined), 5000, 'the queue_approved delivery');

    const w = await openPage(browser, { baseURL: app.baseUrl, viewport: PHONE });
    const { page } = w;
    await page.goto('/webhooks');
    const redeliver = page.getByRole('button', { name: 'Redeliver queue_approved to home-assistant' });
    await redeliver.waitFor();
    const originals = approvedSent();
    assert.equal(originals.length, 1);
    const count = receiver.received.length;
    await redeliver.click();
    await page.getByText('Redelivering queue_approved to home-assistant').waitFor();
    const again = await receiver.waitFor(count + 1);
    const last = again[again.length - 1];
    assert.equal(last?.headers['x-webhook-delivery'], originals[0]?.headers['x-webhook-delivery']);
    await page.getByText('2 attempts').waitFor();
    await w.screenshot('webhooks-phone');
    w.assertNoConsoleErrors();
    await w.close();
  });
});
