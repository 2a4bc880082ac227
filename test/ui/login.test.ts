import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startApp, type StartedApp } from '../helpers/start-app.js';
import { api } from '../helpers/api-client.js';
import { launchChromium } from './launch-chromium.js';
import { seedQueue } from './seed-queue.js';
import { clickUntilShown, openPage, PHONE } from './watched-page.js';

const USER = 'dj';
const PASSWORD = 'correct horse battery staple';
const BASIC = { authorization: `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}` };
const basicAuth = { ui: { auth: { enabled: true, type: 'basic', username: USER, password: PASSWORD } } };
// Chromium reports the answers to deliberately wrong logins as failed resource loads; nothing else may fail.
const WRONG_LOGIN = /Failed to load resource: the server responded with a status of (401|429)/;

describe('login (basic mode)', () => {
  let browser: Browser;
  let app: StartedApp;

  before(async () => {
    app = await startApp({ config: basicAuth });
    await seedQueue(app.baseUrl, 80, { headers: BASIC });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  it('redirects a page request to /login, shows a wrong password inline, then lands on the page asked for', async () => {
    const w = await openPage(browser, { baseURL: app.baseUrl });
    const { page } = w;
    const response = await page.goto('/queue?sort=artist');
    assert.equal(response?.request().redirectedFrom()?.url(), `${app.baseUrl}/queue?sort=artist`);
    assert.match(page.url(), /\/login\?next=%2Fqueue%3Fsort%3Dartist$/);
    await w.screenshot('login-desktop');

    await page.getByLabel('Username').fill(USER);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Wrong username or password.' }).waitFor();
    await w.screenshot('login-error-desktop');

    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${app.baseUrl}/queue?sort=artist`);
    await page.getByRole('heading', { name: /Queue/ }).waitFor();
    assert.equal(await page.getByTestId('user-name').innerText(), `${USER} · admin`);
    w.assertNoConsoleErrors([WRONG_LOGIN]);
    await w.close();
  });

  it('returns to the login form when the session ends, and back to the same page after signing in', async () => {
    const w = await openPage(browser, { baseURL: app.baseUrl });
    const { page } = w;
    await page.goto('/login');
    await page.getByLabel('Username').fill(USER);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Queue', exact: true }).click();
    await page.getByText(/^1–\d+ of/).waitFor(); // the first page has loaded before paging on
    // Shown once the second page has loaded (its buttons are enabled again).
    await clickUntilShown(page.getByRole('button', { name: 'Next page' }), page.getByText(/^51–\d+ of/));
    await page.waitForURL(/offset=50/);

    // The session ends on the server (as when it expires); the browser still holds the cookie.
    const cookie = (await w.context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const ended = await api(app.baseUrl, 'POST', '/api/v1/auth/logout', undefined, { cookie, origin: app.baseUrl });
    assert.equal(ended.status, 204);

    await page.getByRole('button', { name: 'Previous page' }).click();
    await page.waitForURL(/\/login\?next=/);
    await page.getByText('Your session has ended. Sign in again to continue.').waitFor();
    await page.getByLabel('Username').fill(USER);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname === '/queue');
    await page.getByRole('heading', { name: /Queue/ }).waitFor();
    w.assertNoConsoleErrors([/status of 401/]);
    await w.close();
  });

  it('signs out from the header at phone width', async () => {
    const w = await openPage(browser, { baseURL: app.baseUrl, viewport: PHONE });
    const { page } = w;
    await page.goto('/');
    await page.getByLabel('Username').fill(USER);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await page.getByTestId('count-pending').waitFor();
    await w.screenshot('dashboard-phone');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/login$/);
    const again = await page.goto('/wishlist');
    assert.match(page.url(), /\/login\?next=%2Fwishlist$/);
    assert.equal(again?.status(), 200);
    w.assertNoConsoleErrors();
    await w.close();
  });

  it('says how long to wait after too many failed sign-ins', async () => {
    // Its own server: a locked-out address is locked out of every page, which would disturb the other tests.
    const locked = await startApp({ config: basicAuth });
    try {
      for (let i = 0; i < 10; i++) {
        const res = await api(locked.baseUrl, 'POST', '/api/v1/auth/login', { username: USER, password: `wrong ${i}` }, { origin: locked.baseUrl });
        assert.equal(res.status, 401);
      }
      const w = await openPage(browser, { baseURL: locked.baseUrl });
      const { page } = w;
      await page.goto('/login');
      await page.getByLabel('Username').fill(USER);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').filter({ hasText: /Too many failed sign-in attempts\. Try again in \d+ (seconds|minutes)\./ }).waitFor();
      await w.screenshot('login-rate-limited-desktop');
      w.assertNoConsoleErrors([WRONG_LOGIN]);
      await w.close();
    } finally {
      await locked.close();
    }
  });
});
