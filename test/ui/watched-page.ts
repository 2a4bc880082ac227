import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';

/** Screenshots land here (gitignored) so that a person can look at every page after a run. */
export const ARTIFACTS_DIR = fileURLToPath(new URL('../artifacts/ui/', import.meta.url));

export const DESKTOP = { width: 1280, height: 860 };
export const PHONE = { width: 390, height: 844 };

export interface WatchedPage {
  context: BrowserContext;
  page: Page;
  /** Console errors, uncaught exceptions and failed requests seen so far. */
  problems: string[];
  /** Fails the test on any console error, except messages matching `allowed` (e.g. a deliberate 401). */
  assertNoConsoleErrors(allowed?: RegExp[]): void;
  /** Saves a full-page screenshot as `<name>.png` under test/artifacts/ui/ and returns its path. */
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

export interface OpenPageOptions {
  baseURL: string;
  viewport?: { width: number; height: number };
  extraHTTPHeaders?: Record<string, string>;
}

/** A fresh browser context (own cookies) with one page whose console errors are recorded. */
export async function openPage(browser: Browser, options: OpenPageOptions): Promise<WatchedPage> {
  const context = await browser.newContext({
    baseURL: options.baseURL,
    viewport: options.viewport ?? DESKTOP,
    ...(options.extraHTTPHeaders ? { extraHTTPHeaders: options.extraHTTPHeaders } : {}),
    reducedMotion: 'reduce',
  });
  const page = await context.newPage();
  // A liveness bound, not a speed test: a niced run beside a full one starves Chromium for seconds at a time.
  page.setDefaultTimeout(30_000);
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  return {
    context,
    page,
    problems,
    assertNoConsoleErrors(allowed = []) {
      const unexpected = problems.filter((p) => !allowed.some((re) => re.test(p)));
      assert.deepEqual(unexpected, [], 'the page logged errors');
    },
    async screenshot(name) {
      await mkdir(ARTIFACTS_DIR, { recursive: true });
      const path = `${ARTIFACTS_DIR}${name}.png`;
      await page.screenshot({ path, fullPage: true });
      return path;
    },
    close: () => context.close(),
  };
}

/**
 * Makes API requests matching `pattern` answer 503 problem+json with `detail`, as the server does when its store
 * cannot be read, until the returned function is called.
 */
export async function failApi(page: Page, pattern: string, detail: string): Promise<() => Promise<void>> {
  const problem = { type: 'about:blank', title: 'Service Unavailable', status: 503, detail };
  await page.route(pattern, (route) => route.fulfill({ status: 503, contentType: 'application/problem+json', body: JSON.stringify(problem) }));
  return () => page.unroute(pattern);
}

/**
 * Clicks a pager button until `shown` appears (at most three clicks). Twice in CI a click on a pager button below
 * a grid of cover cards went nowhere: the pager moved as cards laid out at an estimated height came into view. The
 * estimate is gone (queue-scale.test.ts checks the pager stays put); the retry stays as a guard against any other
 * late layout shift, and `clicks` says when it was needed.
 */
export async function clickUntilShown(button: Locator, shown: Locator): Promise<{ clicks: number }> {
  for (let clicks = 1; ; clicks++) {
    await button.click();
    try {
      await shown.waitFor({ timeout: 3000 });
      if (clicks > 1) console.log(`# a pager click was lost: "${await shown.innerText()}" appeared after ${clicks} clicks`);
      return { clicks };
    } catch (err: unknown) {
      if (clicks >= 3) throw err;
    }
  }
}
