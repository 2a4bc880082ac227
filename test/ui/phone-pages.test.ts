import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startApp, type StartedApp } from '../helpers/start-app.js';
import { launchChromium } from './launch-chromium.js';
import { seedQueue } from './seed-queue.js';
import { ARTIFACTS_DIR, openPage, PHONE } from './watched-page.js';

const PAGES = [
  { path: '/', link: 'Dashboard', heading: 'Dashboard' },
  { path: '/queue', link: 'Queue', heading: 'Queue' },
  { path: '/wishlist', link: 'Wishlist', heading: 'Wishlist' },
  { path: '/downloads', link: 'Downloads', heading: 'Downloads' },
  { path: '/library', link: 'Library', heading: 'Library' },
  { path: '/webhooks', link: 'Webhooks', heading: 'Webhooks' },
] as const;
const TOUCH_PX = 44;

/** Everything a finger may tap on the page that is narrower or lower than a fingertip, by its accessible name. */
async function smallTargets(page: Page): Promise<string[]> {
  // A script string: it runs in the page, where the DOM types this file is not compiled with exist.
  const found: unknown = await page.evaluate(`(() => {
    const small = [];
    for (const el of document.querySelectorAll('main a[href], main button, main select, main input:not([type=checkbox]):not([type=radio]), header a[href], header button')) {
      const box = el.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) continue; // not shown
      if (el.closest('.table') && el.tagName === 'A') continue; // a link inside a table's text is read, not tapped
      if (box.height < ${TOUCH_PX - 0.5}) small.push((el.getAttribute('aria-label') || el.textContent || el.tagName).trim() + ' ' + Math.round(box.width) + 'x' + Math.round(box.height));
    }
    return small;
  })()`);
  return Array.isArray(found) ? found.map(String) : [];
}

describe('every page at phone size (390×844)', () => {
  let browser: Browser;
  let app: StartedApp;

  before(async () => {
    app = await startApp();
    await seedQueue(app.baseUrl, 12);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  for (const viewport of [{ width: 768, height: 1024 }, { width: 1024, height: 768 }]) {
    it(`shows every nav tab whole at ${viewport.width}×${viewport.height}`, async () => {
      const w = await openPage(browser, { baseURL: app.baseUrl, viewport });
      const { page } = w;
      await page.goto('/queue');
      await page.getByRole('heading', { name: 'Queue', level: 1 }).waitFor();
      for (const target of PAGES) {
        const box = await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: target.link, exact: true }).boundingBox();
        assert.ok(box && box.x >= 0 && box.x + box.width <= viewport.width, `${target.link} lies within the screen: ${JSON.stringify(box)}`);
      }
      assert.equal(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'), 0);
      await page.screenshot({ path: `${ARTIFACTS_DIR}nav-${viewport.width}x${viewport.height}.png` });
      w.assertNoConsoleErrors();
      await w.close();
    });
  }

  for (const scheme of ['light', 'dark'] as const) {
    it(`shows every nav tab whole and tappable, nothing wider than the screen, and 44 px targets (${scheme})`, async () => {
      const w = await openPage(browser, { baseURL: app.baseUrl, viewport: PHONE });
      const { page } = w;
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto('/');
      await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
      for (const target of PAGES) {
        const link = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: target.link, exact: true });
        const box = await link.boundingBox();
        assert.ok(box, `${target.link} is shown`);
        assert.ok(box.x >= 0 && box.y >= 0 && box.x + box.width <= PHONE.width && box.y + box.height <= PHONE.height, `${target.link} lies within the screen: ${JSON.stringify(box)}`);
        assert.ok(box.height >= TOUCH_PX && box.width >= TOUCH_PX, `${target.link} is at least 44 px: ${JSON.stringify(box)}`);
        // A real click at the link's centre: it fails if anything covers the link.
        await link.click({ trial: true });
        await link.click();
        await page.waitForURL((url) => url.pathname === target.path);
        await page.getByRole('heading', { name: target.heading, level: 1 }).waitFor();
        assert.equal(await link.getAttribute('aria-current'), 'page');
        const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
        assert.equal(overflow, 0, `${target.path} is no wider than the screen`);
        assert.deepEqual(await smallTargets(page), [], `${target.path}: touch targets under 44 px`);
        await page.screenshot({ path: `${ARTIFACTS_DIR}phone-${target.link.toLowerCase()}-${scheme}.png` });
      }
      w.assertNoConsoleErrors();
      await w.close();
    });
  }
});
