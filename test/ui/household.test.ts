import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { api } from '../helpers/api-client.js';
import { startMetadataApp, type MetadataSetup } from '../core/metadata/metadata-test-app.js';
import { launchChromium } from './launch-chromium.js';
import { DESKTOP, openPage, PHONE, type WatchedPage } from './watched-page.js';

const ADMIN = 'dj';
const ADMIN_PASSWORD = 'correct horse battery staple';
const REQUESTER = 'robin';
const REQUESTER_PASSWORD = 'robin likes records';
const ADMIN_BASIC = { authorization: `Basic ${Buffer.from(`${ADMIN}:${ADMIN_PASSWORD}`).toString('base64')}` };

interface Result {
  mbid: string;
  artist: string;
  title: string;
}

const label = (r: Result) => `${r.artist} — ${r.title}`;

async function signIn(page: Page, user: string, password: string): Promise<void> {
  await page.goto('/');
  await page.getByLabel('Username').fill(user);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** The Main navigation's tabs, as their text reads. */
async function navTabs(page: Page): Promise<string[]> {
  const links = page.getByRole('navigation', { name: 'Main' }).getByRole('link');
  await links.first().waitFor();
  return (await links.allInnerTexts()).map((text) => text.replace(/\s+/g, ' ').trim());
}

const overflow = (page: Page) => page.evaluate('document.documentElement.scrollWidth - window.innerWidth');

/**
 * A household in basic mode: the admin of config.yaml and a local requester made through the API, each signed in
 * once in a browser of their own (fresh contexts cost seconds; the tests resize them to a phone instead). The
 * requester asks for an album with a note and follows it; the admin sees the count in the nav and declines it with
 * a reason; the requester's page (which polls: requesters have no event stream) shows the decline and the reason.
 */
describe('household: requests in the browser (issue #31)', () => {
  let browser: Browser;
  let setup: MetadataSetup;
  let albums: Result[];
  let requester: WatchedPage;
  let admin: WatchedPage;
  const closers: (() => Promise<unknown>)[] = [];

  before(async () => {
    setup = await startMetadataApp(
      { after: (fn) => closers.push(fn) },
      { config: { ui: { auth: { enabled: true, type: 'basic', username: ADMIN, password: ADMIN_PASSWORD } } } },
    );
    // Side by side: the account's scrypt hash, the search and Chromium's start each take a second or two.
    const [created, found, launched] = await Promise.all([
      api(setup.app.baseUrl, 'POST', '/api/v1/users', { name: REQUESTER, password: REQUESTER_PASSWORD, role: 'requester' }, ADMIN_BASIC),
      api<{ items: Result[] }>(setup.app.baseUrl, 'GET', `/api/v1/search?q=${encodeURIComponent(setup.album.title)}`, undefined, ADMIN_BASIC),
      launchChromium(),
    ]);
    browser = launched;
    assert.equal(created.status, 201, JSON.stringify(created.body));
    // Results whose artist and title no other result shares, so each Request button's name is unique.
    albums = found.body.items.filter((r) => found.body.items.filter((o) => label(o) === label(r)).length === 1);
    assert.ok(albums.length >= 2, `two distinct results for "${setup.album.title}", got ${albums.length}`);
    [requester, admin] = await Promise.all([openPage(browser, { baseURL: setup.app.baseUrl }), openPage(browser, { baseURL: setup.app.baseUrl })]);
    // A fake clock that runs at real speed until a test moves it: the requester's 10-second poll without the wait.
    await requester.page.clock.install();
    await Promise.all([signIn(requester.page, REQUESTER, REQUESTER_PASSWORD), signIn(admin.page, ADMIN, ADMIN_PASSWORD)]);
  });
  after(async () => {
    await browser?.close();
    for (const close of closers.reverse()) await close();
  });

  it('lands a requester on My requests, with no tab of the pages their role does not reach', async () => {
    const rp = requester.page;
    await rp.waitForURL((url) => url.pathname === '/my-requests');
    await rp.getByRole('heading', { name: /My requests/, level: 1 }).waitFor();
    assert.deepEqual(await navTabs(rp), ['My requests'], 'no dashboard, queue, wishlist, downloads, sources, webhooks or users');
    assert.equal(await rp.getByTestId('user-name').innerText(), `${REQUESTER} · requester`);
    // An old bookmark: the page says the role does not include it, and calls none of its API (a 403 would be logged).
    await rp.goto('/queue');
    await rp.getByTestId('not-allowed').waitFor();
    await rp.getByRole('link', { name: 'Go to your requests' }).click();
    await rp.waitForURL((url) => url.pathname === '/my-requests');
    requester.assertNoConsoleErrors();
  });

  for (const [name, viewport, index] of [['desktop', DESKTOP, 0], ['phone', PHONE, 1]] as const) {
    it(`a requester asks for an album with a note, an admin declines it with a reason, the requester reads why (${name})`, async () => {
      const album = albums[index];
      assert.ok(album);
      const note = `for the road trip (${name})`;
      const reason = `we have the remaster already (${name})`;
      const rp = requester.page;
      const ap = admin.page;
      await Promise.all([rp.setViewportSize(viewport), ap.setViewportSize(viewport)]);

      await rp.getByRole('button', { name: 'Request an album' }).click();
      const dialog = rp.getByRole('dialog', { name: 'Request an album' });
      await dialog.getByRole('searchbox', { name: 'Search MusicBrainz' }).fill(setup.album.title);
      const row = dialog.locator(`li[data-mbid="${album.mbid}"]`);
      await row.waitFor();
      assert.equal(await dialog.getByRole('button', { name: `Add ${label(album)} to the wishlist` }).count(), 0, 'a requester cannot add to the wishlist');
      await dialog.getByLabel(/Note for the admin/).fill(note);
      await row.getByRole('button', { name: `Request ${label(album)}` }).click();
      assert.equal(await row.getByTestId('request-answer').innerText(), 'Requested — waiting for an admin');
      assert.equal(await row.getByRole('button', { name: `Request ${label(album)}` }).isDisabled(), true);
      await requester.screenshot(`household-request-dialog-${name}`);
      await rp.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });

      const mine = rp.locator('li.request').filter({ hasText: album.artist }).filter({ hasText: album.title });
      await mine.and(rp.locator('[data-status="requested"]')).waitFor();
      assert.equal(await mine.locator('[aria-current="step"]').innerText(), 'Requested');
      await mine.getByText(`Your note: ${note}`).waitFor();
      await mine.getByRole('button', { name: `Cancel the request for ${label(album)}` }).waitFor();
      assert.equal(await overflow(rp), 0, 'My requests is no wider than the screen');

      // The admin's page has been open all along (the dashboard, then Requests): the count arrives by the event stream.
      const requestsTab = ap.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /^Requests/ });
      assert.equal(await requestsTab.getByTestId('requests-pending').innerText(), '1');
      assert.equal(await requestsTab.getAttribute('aria-current'), name === 'desktop' ? null : 'page');
      const tabs = await navTabs(ap);
      for (const tab of ['Dashboard', 'Queue', 'Wishlist', 'Users']) assert.ok(tabs.includes(tab), `the admin's nav has ${tab}: ${tabs.join(', ')}`);
      await requestsTab.click();
      const waiting = ap.locator('li.request').filter({ hasText: album.artist }).filter({ hasText: album.title });
      assert.equal(await waiting.getByTestId('requested-by').innerText(), REQUESTER);
      await waiting.getByText(`Note: ${note}`).waitFor();
      await waiting.getByRole('button', { name: `Decline ${label(album)}` }).click();
      await waiting.getByLabel(/Why\?/).fill(reason);
      await admin.screenshot(`household-decline-${name}`);
      await waiting.getByRole('button', { name: 'Decline request' }).click();
      await ap.getByText(`Declined ${label(album)}; ${REQUESTER} can read why`).waitFor();
      await waiting.waitFor({ state: 'detached' });
      await ap.getByRole('table', { name: 'History' }).locator('tr[data-status="declined"]').filter({ hasText: album.artist }).waitFor();
      await requestsTab.getByTestId('requests-pending').waitFor({ state: 'detached' });
      assert.equal(await overflow(ap), 0, 'Requests is no wider than the screen');

      // The requester's page asks again within 10 s; the clock moves it there at once.
      await rp.clock.fastForward(10_000);
      await mine.and(rp.locator('[data-status="declined"]')).waitFor();
      await mine.getByText('Declined', { exact: true }).waitFor();
      assert.match(await mine.innerText(), new RegExp(reason.replace(/[()]/g, '\\$&')));
      assert.equal(await mine.getByRole('button', { name: /Cancel the request/ }).count(), 0, 'a declined request cannot be cancelled');
      await requester.screenshot(`household-declined-${name}`);

      requester.assertNoConsoleErrors();
      admin.assertNoConsoleErrors();
    });
  }

  it('lets the admin make an API key for the requester, shown once, that works with its scope', async () => {
    const { page } = admin;
    await page.setViewportSize(DESKTOP);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users', exact: true }).click();
    const row = page.locator(`tr[data-user="${REQUESTER}"]`);
    await row.getByText('requester', { exact: true }).waitFor();
    const form = page.getByRole('form', { name: 'New API key' });
    await form.getByLabel('Name', { exact: true }).fill('robins-phone');
    await form.getByLabel('User', { exact: true }).selectOption(REQUESTER);
    await form.getByRole('checkbox', { name: /^read/ }).uncheck();
    await form.getByRole('checkbox', { name: /^request/ }).check();
    await form.getByRole('button', { name: 'Create key' }).click();
    const secret = await page.getByTestId('new-api-key-secret').innerText();
    await page.locator('tr[data-key="robins-phone"]').getByText('request', { exact: true }).waitFor();
    await admin.screenshot('household-users-desktop');

    const asKey = await api<{ items: unknown[] }>(setup.app.baseUrl, 'GET', '/api/v1/requests', undefined, { 'x-api-key': secret });
    assert.equal(asKey.status, 200, 'the key reads its user\'s requests');
    assert.equal(asKey.body.items.length, 2);
    const queue = await api(setup.app.baseUrl, 'GET', '/api/v1/queue/pending', undefined, { 'x-api-key': secret });
    assert.equal(queue.status, 403, 'the key has no read scope');
    await page.getByRole('button', { name: 'Done' }).click();
    assert.equal(await page.getByTestId('new-api-key').count(), 0, 'the key is not shown again');

    // Where the requester hears of their requests: the server names what is wrong (no channel is configured here).
    await row.getByRole('button', { name: `Edit ${REQUESTER}` }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel(/^Channel/).fill('phone');
    await dialog.getByLabel(/ntfy topic/).fill('robin-topic');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.getByRole('alert').getByText(/no notifications are configured/).waitFor();
    await dialog.getByRole('button', { name: 'Close' }).click();

    // Without a password: the profile of someone the forward-auth proxy signs in.
    const newUser = page.getByRole('form', { name: 'New user' });
    await newUser.getByLabel('Name', { exact: true }).fill('pat');
    await newUser.getByRole('combobox').selectOption('viewer');
    await newUser.getByRole('button', { name: 'Create user' }).click();
    await page.locator('tr[data-user="pat"]').getByText('viewer', { exact: true }).waitFor();
    // The browser logs the refused save (400) itself; the page showed it as the alert above.
    admin.assertNoConsoleErrors([/status of 400 .*\/api\/v1\/users\/robin/]);
  });
});
