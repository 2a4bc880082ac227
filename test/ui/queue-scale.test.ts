import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startApp, type StartedApp } from '../helpers/start-app.js';
import { launchChromium } from './launch-chromium.js';
import { seedQueue } from './seed-queue.js';
import { ARTIFACTS_DIR, DESKTOP, clickUntilShown, openPage } from './watched-page.js';

const ITEMS = 5000;
// Targets of issue #20 on a quiet machine: first meaningful render ≤ 1 s, a page turn ≤ 200 ms, no long task over
// 100 ms. They are printed beside the figures, not asserted: on a loaded machine (another test file, a second
// `npm test` beside this one) a wall-clock bound breaks for reasons that are not the page's (issue #27: a 1,557 ms
// long task beside a second suite). The test asserts what the page does; the figures are what to watch.
const TARGET = { firstRender: 1000, pageTurn: 200, longTask: 100 };

// A script string: it runs in the page, where the DOM types this file is not compiled with exist. It records,
// with the Performance API's clock (0 = navigation start), when each pager range was first shown (the range
// renders in the same commit as the page's items) and when the last key was pressed, plus every long task.
const PROBES = `
  window.__longTasks = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) window.__longTasks.push([entry.startTime, entry.duration]);
  }).observe({ type: 'longtask', buffered: true });
  window.__shown = {};
  window.__lastInput = 0;
  document.addEventListener('keydown', () => { window.__lastInput = performance.now(); }, true);
  document.addEventListener('click', () => { window.__lastInput = performance.now(); }, true);
  new MutationObserver(() => {
    const range = document.querySelector('.pager-range');
    const text = range && range.textContent;
    if (text && !(text in window.__shown)) window.__shown[text] = performance.now();
  }).observe(document, { subtree: true, childList: true, characterData: true });
`;

interface Figures {
  firstRender: number;
  turns: number[];
  /** [start, duration] in ms on the page's clock. */
  longTasks: [number, number][];
}

const inPage = async (page: Page, expression: string): Promise<number> => Number(await page.evaluate(expression));
/** How long after the last key or click the pager first showed `range`. */
const sinceInput = (page: Page, range: string) => inPage(page, `window.__shown[${JSON.stringify(range)}] - window.__lastInput`);

/**
 * Scrolls the pager below the cards into view and returns how far it moved over the next 20 animation frames. It
 * once moved by up to 174 px there (cards off screen were laid out at an estimated height and re-laid out as they
 * came into view), so a click aimed at it landed where it had been.
 */
const PAGER_DRIFT = `new Promise((resolve) => {
  const pager = document.querySelector('.pager');
  pager.scrollIntoView({ block: 'end' });
  const tops = [];
  const frame = () => {
    tops.push(pager.getBoundingClientRect().top);
    if (tops.length < 20) requestAnimationFrame(frame);
    else resolve(Math.max(...tops) - Math.min(...tops));
  };
  requestAnimationFrame(frame);
})`;

/** Loads the queue's first page of 100 in `layout`, turns pages and sorts, and reads the page's own clock. */
async function measure(page: Page, layout: 'list' | 'grid', rowSelector: string): Promise<Figures> {
  await page.addInitScript(PROBES);
  await page.goto(`/queue?limit=100&view=${layout}`);
  await page.getByTestId('queue-total').filter({ hasText: '5,000 pending' }).waitFor();
  await page.locator(rowSelector).nth(99).waitFor();
  const firstRender = await inPage(page, `window.__shown['1–100 of 5,000']`);

  const turns: number[] = [];
  for (let i = 1; i <= 5; i++) {
    const range = `${i * 100 + 1}–${(i + 1) * 100} of 5,000`;
    await page.locator('body').press('n');
    await page.getByText(range).waitFor();
    turns.push(await sinceInput(page, range));
  }
  await clickUntilShown(page.getByRole('button', { name: 'Last page' }), page.getByText('4,901–5,000 of 5,000'));
  turns.push(await sinceInput(page, '4,901–5,000 of 5,000'));

  await page.getByLabel('Sort').selectOption('score:desc');
  await page.waitForURL(/sort=score/);
  await page.getByText('1–100 of 5,000').waitFor();
  await page.locator(rowSelector).nth(99).waitFor();

  const reported: unknown = await page.evaluate('window.__longTasks');
  const longTasks = Array.isArray(reported) ? reported.map((t): [number, number] => (Array.isArray(t) ? [Number(t[0]), Number(t[1])] : [0, Number(t)])) : [];
  return { firstRender, turns, longTasks };
}

function report(label: string, f: Figures): void {
  const longest = Math.max(0, ...f.longTasks.map(([, duration]) => duration));
  const met = (value: number, target: number) => (value <= target ? 'met' : 'MISSED');
  console.log(
    `queue ${label} with ${ITEMS} items: first render ${Math.round(f.firstRender)} ms (target ${TARGET.firstRender}: ${met(f.firstRender, TARGET.firstRender)}); ` +
      `page turns ${f.turns.map(Math.round).join(', ')} ms (target ${TARGET.pageTurn}: ${met(Math.max(...f.turns), TARGET.pageTurn)}); ` +
      `long tasks ${f.longTasks.length}, longest ${Math.round(longest)} ms (target ${TARGET.longTask}: ${met(longest, TARGET.longTask)}); ` +
      `long tasks at ${f.longTasks.map(([start, duration]) => `${Math.round(start)}+${Math.round(duration)}`).join(', ')} ms`,
  );
  // What must hold however loaded the machine: the first page and every page turn were seen and timed.
  assert.ok(f.firstRender > 0, 'the first page was rendered');
  assert.ok(f.turns.length > 0 && f.turns.every(Number.isFinite), `page turns ${f.turns.join(', ')}`);
}

describe('queue page with 5,000 pending items', () => {
  let browser: Browser;
  let app: StartedApp;

  before(async () => {
    app = await startApp();
    await seedQueue(app.baseUrl, ITEMS, { coverEvery: 1 });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  it('renders the first page of the table, pages, sorts and searches without blocking the main thread', async () => {
    const w = await openPage(browser, { baseURL: app.baseUrl });
    const { page } = w;
    const figures = await measure(page, 'list', 'tbody tr');
    const q0 = Date.now();
    await page.getByRole('searchbox', { name: 'Search queue' }).fill('04321');
    await page.getByText('1–1 of 1').waitFor();
    const searchMs = Date.now() - q0; // includes the 300 ms typing pause
    console.log(`queue table: search ${searchMs} ms`);
    await w.screenshot('queue-5000-desktop');
    report('table', figures);
    w.assertNoConsoleErrors();
    await w.close();
  });

  it('renders the first page of cover cards and pages through them within the targets', async () => {
    const w = await openPage(browser, { baseURL: app.baseUrl });
    const { page } = w;
    const figures = await measure(page, 'grid', '.album-card');
    // Covers are lazy: only those near the screen were fetched, not a hundred.
    const loaded = await inPage(page, `[...document.querySelectorAll('img.cover-art')].filter((img) => img.complete && img.naturalWidth > 0).length`);
    assert.ok(loaded > 0, 'covers are shown');
    assert.equal(await inPage(page, PAGER_DRIFT), 0, 'the pager below the cards stays where it was scrolled to (desktop)');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.evaluate('window.scrollTo(0, 0)');
    assert.equal(await inPage(page, PAGER_DRIFT), 0, 'the pager below the cards stays where it was scrolled to (phone)');
    await page.setViewportSize(DESKTOP);
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: `${ARTIFACTS_DIR}queue-5000-grid-desktop.png` });
    report('grid', figures);
    w.assertNoConsoleErrors();
    await w.close();
  });
});
