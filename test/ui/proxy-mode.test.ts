import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startApp, type StartedApp } from '../helpers/start-app.js';
import { startFakeWebhookReceiver, type FakeWebhookReceiver } from '../fakes/fake-webhook-receiver.js';
import { launchChromium } from './launch-chromium.js';
import { startIdentityProxy, type IdentityProxy } from './identity-proxy.js';
import { seedQueue } from './seed-queue.js';
import { openPage } from './watched-page.js';

const ALICE = { 'Remote-User': 'alice', 'Remote-Name': 'Alice Liddell', 'Remote-Groups': 'admins' };
const BOB = { 'Remote-User': 'bob', 'Remote-Groups': 'listeners' };
const CAROL = { 'Remote-User': 'carol', 'Remote-Name': 'Carol Danvers', 'Remote-Groups': 'family,guests' };
const LOGOUT_URL = 'https://auth.example.com/logout';

describe('proxy mode behind a forward-auth proxy', () => {
  let browser: Browser;
  let app: StartedApp;
  let proxy: IdentityProxy;
  let receiver: FakeWebhookReceiver;

  before(async () => {
    receiver = await startFakeWebhookReceiver();
    app = await startApp({
      config: {
        ui: {
          auth: {
            enabled: true,
            type: 'proxy',
            trusted_headers: ['Remote-User', 'Remote-Groups', 'Remote-Name'],
            roles: { admins: 'admin', listeners: 'viewer' },
            logout_url: LOGOUT_URL,
          },
        },
        webhooks: [{ name: 'home', url: receiver.url, events: ['queue_approved'] }],
      },
    });
    proxy = await startIdentityProxy(app.baseUrl, ALICE);
    await seedQueue(proxy.url, 5);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await proxy?.close();
    await app?.close();
    await receiver?.close();
  });

  it('goes straight to the dashboard and shows the display name from the proxy', async () => {
    proxy.identity = ALICE;
    const w = await openPage(browser, { baseURL: proxy.url });
    const { page } = w;
    await page.goto('/');
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/');
    assert.equal(await page.getByTestId('user-name').innerText(), 'Alice Liddell · admin');
    assert.equal(await page.getByRole('button', { name: 'Sign out' }).count(), 0, 'no session to end here: the link goes to the proxy');
    await page.getByTestId('count-pending').filter({ hasText: '5' }).waitFor();
    await page.getByText('Live', { exact: true }).waitFor();
    await w.screenshot('dashboard-proxy-desktop');
    w.assertNoConsoleErrors();
    await w.close();
  });

  it('hides decisions and disables webhook tests for a viewer', async () => {
    proxy.identity = BOB;
    const w = await openPage(browser, { baseURL: proxy.url });
    const { page } = w;
    await page.goto('/queue');
    await page.getByText('Artist 00001', { exact: true }).waitFor();
    assert.equal(await page.getByTestId('user-name').innerText(), 'bob · viewer');
    assert.equal(await page.getByRole('button', { name: /^Approve / }).count(), 0);
    assert.equal(await page.getByRole('checkbox').count(), 0);
    await page.locator('body').press('a'); // the shortcut does nothing for a viewer
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { name: 'home' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Test home' }).isDisabled(), true);
    assert.equal(await page.getByRole('button', { name: 'Dry run home' }).isDisabled(), true);
    await page.getByText('Testing and redelivering need the admin role').waitFor();
    await w.screenshot('webhooks-viewer-desktop');
    assert.equal(receiver.received.length, 0);
    w.assertNoConsoleErrors();
    await w.close();
  });

  it('tells a user whose groups map to no role who they are and what an admin must map, instead of errors and "Offline"', async () => {
    proxy.identity = CAROL;
    const w = await openPage(browser, { baseURL: proxy.url });
    const { page } = w;
    await page.goto('/queue');
    await page.getByTestId('no-role').waitFor();
    assert.equal(await page.getByTestId('no-role-user').innerText(), 'Carol Danvers (carol)');
    assert.equal(await page.getByTestId('no-role-groups').innerText(), 'family, guests');
    assert.match(await page.getByTestId('no-role-example').innerText(), /roles:\s+family: viewer/);
    assert.equal(await page.getByText('Offline').count(), 0);
    assert.equal(await page.getByRole('alert').count(), 0, 'no error notice');
    assert.equal(await page.getByRole('link', { name: 'Sign out' }).getAttribute('href'), LOGOUT_URL);
    await w.screenshot('no-role-desktop');
    w.assertNoConsoleErrors();
    await w.close();
  });

  it('offers a Sign out link to ui.auth.logout_url to a user with a role', async () => {
    proxy.identity = ALICE;
    const w = await openPage(browser, { baseURL: proxy.url });
    const { page } = w;
    await page.goto('/');
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'Sign out' }).getAttribute('href'), LOGOUT_URL);
    w.assertNoConsoleErrors();
    await w.close();
  });

  it('names the track in the dashboard\'s recent activity', async () => {
    proxy.identity = ALICE;
    const added = await fetch(`${proxy.url}/api/v1/wishlist`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ artist: 'Slowdive', title: 'Alison', type: 'track' }),
    });
    assert.equal(added.status, 201);
    const { id } = createdId(await added.json());
    assert.equal((await fetch(`${proxy.url}/api/v1/wishlist/${id}`, { method: 'DELETE' })).status, 204);
    const w = await openPage(browser, { baseURL: proxy.url });
    const { page } = w;
    await page.goto('/');
    await page.locator('.activity-what', { hasText: 'Slowdive — Alison' }).waitFor();
    w.assertNoConsoleErrors();
    await w.close();
  });
});

/** The `id` of a created item. */
function createdId(body: unknown): { id: string } {
  const id: unknown = typeof body === 'object' && body !== null ? Reflect.get(body, 'id') : undefined;
  assert.ok(typeof id === 'string', JSON.stringify(body));
  return { id };
}
