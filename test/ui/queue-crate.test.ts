import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Locator, Page } from 'playwright-core';
import { startFakeCoverArtArchive, type FakeCoverArtArchive } from '../fakes/fake-cover-art-archive.js';
import type { MbReleaseGroup } from '../fakes/musicbrainz-catalogue.js';
import { startApp, type StartedApp } from '../helpers/start-app.js';
import { launchChromium } from './launch-chromium.js';
import { NEW_RELEASE, OWNED, REJECTED, seedCrate, SIMILAR, WANTED } from './crate-seed.js';
import { ARTIFACTS_DIR, DESKTOP, openPage, PHONE, type WatchedPage } from './watched-page.js';

const card = (page: Page, album: string): Locator => page.locator('.album-card').filter({ has: page.getByText(album, { exact: true }) });
const cardAlbums = (page: Page): Promise<string[]> => page.locator('.album-card .card-title').allTextContents();

describe('queue page as a crate of cover cards', () => {
  let browser: Browser;
  let app: StartedApp;
  let coverArt: FakeCoverArtArchive;
  let groups: MbReleaseGroup[];
  const hasArt = (group: MbReleaseGroup) => coverArt.imageOf(group.id, '250') !== undefined;

  before(async () => {
    coverArt = await startFakeCoverArtArchive();
    // Covers need no MusicBrainz, which is not reachable here (startApp's default), so the seeded items stay as sent.
    app = await startApp({ config: { metadata: { coverartarchive: { url: coverArt.url } } } });
    groups = coverArt.catalogue.releaseGroups.filter((g) => g.credit.length > 0).slice(0, 30);
    await seedCrate(app, groups);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await coverArt?.close();
  });

  it('shows cards with covers by density, a placeholder where there is no cover, "% match", reasons and badges', async () => {
    const w = await openPage(browser, { baseURL: app.baseUrl, viewport: DESKTOP });
    const { page } = w;
    await page.goto('/queue?sort=artist&order=asc&limit=100');
    await page.getByTestId('crate-grid').waitFor();
    const withArt = groups.find(hasArt);
    const withoutArt = groups.find((g) => !hasArt(g));
    assert.ok(withArt && withoutArt, 'the catalogue has groups with and without covers');

    const img = card(page, withArt.title).locator('img.cover-art');
    await img.scrollIntoViewIfNeeded();
    assert.equal(await img.getAttribute('loading'), 'lazy');
    assert.equal(await img.getAttribute('src'), `/api/v1/covers/${withArt.id}?size=250&missing=empty`);
    assert.match((await img.getAttribute('srcset')) ?? '', /size=500&missing=empty 2x/);
    // The cover has loaded real pixels (polled in the page; a function, as the app's CSP refuses the eval a string needs).
    const id = await card(page, withArt.title).getAttribute('data-id');
    await page.waitForFunction(coverLoaded, id ?? '');
    const missing = card(page, withoutArt.title);
    await missing.scrollIntoViewIfNeeded();
    await missing.getByTestId('cover-placeholder').waitFor();
    assert.equal(await missing.locator('img').count(), 0, 'no broken image is left in the card');

    const first = card(page, withArt.title);
    assert.match((await first.getByTestId('match').textContent()) ?? '', /^\d{1,3}% match$/);
    const similar = page.getByText('Similar to Boards of Canada (+3)', { exact: true }).first();
    assert.equal(await similar.getAttribute('title'), SIMILAR.text);
    assert.equal(await page.getByText('New release', { exact: true }).first().getAttribute('title'), NEW_RELEASE.text);
    await page.getByText('ListenBrainz', { exact: true }).first().waitFor();

    await card(page, OWNED).getByText('In library', { exact: true }).waitFor();
    await card(page, WANTED).getByText('Already wanted', { exact: true }).waitFor();
    await card(page, REJECTED).getByText('Rejected before', { exact: true }).waitFor();
    assert.equal(await card(page, 'Record').count(), 0, 'sanity: a partial title matches no card');
    await crateShot(w, 'queue-crate-desktop');
    // A card without a cover shows its placeholder without a failed load in the console (missing=empty).
    w.assertNoConsoleErrors();
    await w.close();
  });

  it('switches to the list view (with the badges), keeps it after a reload, and switches back', async () => {
    const w = await openPage(browser, { baseURL: app.baseUrl, viewport: DESKTOP });
    const { page } = w;
    await page.goto('/queue');
    await page.getByTestId('crate-grid').waitFor();
    await page.getByRole('button', { name: 'List', exact: true }).click();
    await page.locator('table.queue-table').waitFor();
    await page.goto('/queue');
    await page.locator('table.queue-table tbody tr').first().waitFor();
    assert.equal(await page.getByTestId('crate-grid').count(), 0);
    await page.locator('tbody tr').filter({ hasText: OWNED }).getByText('In library', { exact: true }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'List', exact: true }).getAttribute('aria-pressed'), 'true');
    await w.screenshot('queue-list-desktop');
    await page.getByRole('button', { name: 'Covers', exact: true }).click();
    await page.getByTestId('crate-grid').waitFor();
    w.assertNoConsoleErrors([/status of 404/]);
    await w.close();
  });

  it('filters by source, hides owned albums and sorts by score, artist and year on the server', async () => {
    const w = await openPage(browser, { baseURL: app.baseUrl, viewport: DESKTOP });
    const { page } = w;
    await page.goto('/queue?limit=100');
    await page.getByTestId('crate-grid').waitFor();

    await page.getByLabel('Sort').selectOption('score:desc');
    await page.waitForURL(/sort=score/);
    const byScore = groups.map((g, i) => ({ title: g.title, score: ((i * 37) % 100) / 100 })).sort((a, b) => b.score - a.score);
    await page.locator('.album-card .card-title').first().filter({ hasText: byScore[0]?.title ?? '' }).waitFor();

    await page.getByLabel('Sort').selectOption('year:asc');
    await page.waitForURL(/sort=year&order=asc/);
    const oldest = [...groups].sort((a, b) => a.firstReleaseDate.slice(0, 4).localeCompare(b.firstReleaseDate.slice(0, 4)))[0];
    await page.locator('.album-card .card-facts').first().filter({ hasText: oldest?.firstReleaseDate.slice(0, 4) ?? '' }).waitFor();

    await page.getByLabel('Sort').selectOption('artist:asc');
    await page.waitForURL(/sort=artist&order=asc/);
    await page.getByLabel('Source').selectOption('manual');
    await page.waitForURL(/source=manual/);
    await page.getByText('1–3 of 3').waitFor();
    assert.deepEqual(await cardAlbums(page), [OWNED, REJECTED, WANTED]);
    await page.getByRole('button', { name: 'Hide owned' }).click();
    await page.waitForURL(/hide_owned=true/);
    await page.getByText('1–1 of 1').waitFor();
    assert.deepEqual(await cardAlbums(page), [REJECTED]);
    const options = await page.getByLabel('Source').locator('option').allTextContents();
    assert.deepEqual(options.slice(0, 1), ['All sources']);
    assert.ok(options.includes('ListenBrainz (15)') && options.includes('Last.fm (15)'), options.join(', '));
    w.assertNoConsoleErrors([/status of 404/]);
    await w.close();
  });

  it('approves with the keyboard and with a card button, and bulk-rejects a selection of cards', async () => {
    const w = await openPage(browser, { baseURL: app.baseUrl, viewport: DESKTOP });
    const { page } = w;
    await page.goto('/queue?sort=artist&order=asc&source=lastfm');
    await page.getByTestId('crate-grid').waitFor();
    const titles = await cardAlbums(page);
    const [a, b, c, d, e] = titles;
    assert.ok(a && b && c && d && e);
    // A click makes a card active; j moves to the next one, a approves it.
    await card(page, a).locator('.card-facts').click();
    await page.locator('body').press('j');
    await page.locator('.card-active').filter({ hasText: b }).waitFor();
    await page.locator('body').press('a');
    await page.getByText(new RegExp(`^Approved .* — ${escape(b)}`)).waitFor();
    await card(page, b).waitFor({ state: 'detached' });

    await page.getByRole('button', { name: new RegExp(`^Approve .* — ${escape(c)}$`) }).click();
    await card(page, c).waitFor({ state: 'detached' });

    await page.getByRole('checkbox', { name: new RegExp(`^Select .* — ${escape(d)}$`) }).check();
    await page.getByRole('checkbox', { name: new RegExp(`^Select .* — ${escape(e)}$`) }).check();
    assert.equal(await page.getByTestId('selection-count').textContent(), '2 selected');
    await page.getByRole('button', { name: 'Reject selected' }).click();
    await page.getByText('Rejected 2 items').waitFor();
    await card(page, e).waitFor({ state: 'detached' });
    w.assertNoConsoleErrors([/status of 404/]);
    await w.close();
  });

  it('lays cards out in two columns at 390×844 with 44 px touch targets and 4.5:1 text contrast, light and dark, and approves from a card', async () => {
    const w = await openPage(browser, { baseURL: app.baseUrl, viewport: PHONE });
    const { page } = w;
    await page.goto('/queue?sort=artist&order=asc');
    await page.getByTestId('crate-grid').waitFor();
    const boxes = await Promise.all([0, 1, 2].map((i) => page.locator('.album-card').nth(i).boundingBox()));
    const [one, two, three] = boxes;
    assert.ok(one && two && three);
    assert.equal(Math.round(one.y), Math.round(two.y), 'the first two cards share a row');
    assert.ok(three.y > one.y, 'the third card starts the second row');
    assert.ok(two.x + two.width <= PHONE.width, 'the second column fits the screen');
    const first = page.locator('.album-card').first();
    for (const target of [first.getByRole('button', { name: /^Approve / }), first.getByRole('button', { name: /^Reject / }), first.locator('.card-select'),
      page.getByRole('button', { name: 'List', exact: true }), page.getByLabel('Sort')]) {
      const box = await target.boundingBox();
      assert.ok(box && box.height >= 44 && box.width >= 44, `touch target ${JSON.stringify(box)}`);
    }
    assert.ok(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'), 'nothing is wider than the screen');
    await crateShot(w, 'queue-crate-phone');
    await viewportShot(page, 'queue-crate-phone-first-screen');
    assert.deepEqual(await page.evaluate(LOW_CONTRAST), [], 'texts under 4.5:1 contrast (light)');
    await page.emulateMedia({ colorScheme: 'dark' });
    assert.equal(await page.evaluate(`getComputedStyle(document.body).backgroundColor`), 'rgb(18, 20, 24)');
    assert.deepEqual(await page.evaluate(LOW_CONTRAST), [], 'texts under 4.5:1 contrast (dark)');
    await crateShot(w, 'queue-crate-phone-dark');
    await viewportShot(page, 'queue-crate-phone-dark-first-screen');
    await page.setViewportSize(DESKTOP);
    await crateShot(w, 'queue-crate-desktop-dark');
    await viewportShot(page, 'queue-crate-desktop-dark-first-screen');

    // Deciding at phone size: the card's own Approve button.
    await page.setViewportSize(PHONE);
    const fourth = page.locator('.album-card').nth(3);
    const title = (await fourth.locator('.card-title').textContent()) ?? '';
    await fourth.getByRole('button', { name: /^Approve / }).click();
    await page.getByText(new RegExp(`^Approved .* — ${escape(title)}`)).waitFor();
    await card(page, title).waitFor({ state: 'detached' });
    w.assertNoConsoleErrors([/status of 404/]);
    await w.close();
  });
});

/**
 * A full-page screenshot of the crate: covers off screen are lazy (not fetched), so the viewport is made as tall as
 * the page for the shot, and the page is scrolled to the top so the sticky bar sits there.
 */
async function crateShot(w: WatchedPage, name: string): Promise<void> {
  const { page } = w;
  const size = page.viewportSize() ?? DESKTOP;
  await page.evaluate('window.scrollTo(0, 0)');
  const height = await page.evaluate('document.documentElement.scrollHeight');
  await page.setViewportSize({ width: size.width, height: Number(height) });
  await w.screenshot(name);
  await page.setViewportSize(size);
}

// A script string (it runs in the page): the WCAG contrast ratio of each card text's colour against the first
// opaque background behind it, for the texts of the first three cards (which carry every badge).
const LOW_CONTRAST = `(() => {
  const rgb = (css) => (css.match(/[\\d.]+/g) || []).map(Number);
  const luminance = ([r, g, b]) => {
    const lin = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  };
  const background = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] === 1)) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const low = [];
  const cards = [...document.querySelectorAll('.album-card')].slice(0, 3);
  for (const el of cards.flatMap((card) => [...card.querySelectorAll('.card-artist, .card-title, .card-facts, .badge, .reason-chip, .btn')])) {
    const [a, b] = [luminance(rgb(getComputedStyle(el).color).slice(0, 3)), luminance(background(el))];
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    if (ratio < 4.5) low.push(el.className + ' "' + el.textContent.trim() + '" ' + ratio.toFixed(2));
  }
  return low;
})()`;

/** What a person sees first on the phone (a full-page shot of a long list is too tall to judge). */
const viewportShot = (page: Page, name: string) => page.screenshot({ path: `${ARTIFACTS_DIR}${name}.png` });

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Runs in the page: whether the card's cover image has decoded pixels. The project compiles without the DOM types,
 * hence the narrow view of `document`.
 */
function coverLoaded(cardId: string): boolean {
  const doc = (globalThis as unknown as { document: { querySelector(s: string): { complete: boolean; naturalWidth: number } | null } }).document;
  const img = doc.querySelector(`.album-card[data-id="${cardId}"] img.cover-art`);
  return !!img && img.complete && img.naturalWidth > 0;
}
