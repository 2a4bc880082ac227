import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { systemClock } from '@crateflow/sdk';
import type { Browser, Page } from 'playwright-core';
import { startFakeDeezerCdn, type FakeDeezerCdn } from '../fakes/fake-deezer-cdn.js';
import { startFakeDeezer, type FakeDeezer } from '../fakes/fake-deezer.js';
import { startApp, type StartedApp } from '../helpers/start-app.js';
import { launchChromium } from './launch-chromium.js';
import { seedQueue } from './seed-queue.js';
import { DESKTOP, openPage, PHONE, type WatchedPage } from './watched-page.js';

/**
 * The preview player in Chromium: a real MP3 (the Deezer CDN fake's, over loopback HTTP) really plays — its time
 * advances — and goes on playing across a page turn and a route change; `p` toggles it; the next track, "no preview
 * found" and a provider that is down read clearly.
 *
 * The player's behaviour is driven by answers of `GET /api/v1/previews` made in the browser (a track list per
 * album, none, a 503), with the MP3 bytes from the CDN fake served same-origin; the last test plays through the
 * whole real path instead: the endpoint, the Deezer plugin against the Deezer fake, and the CDN fake's origin
 * admitted by the app's own CSP (`media-src`).
 */
describe('preview player', () => {
  let browser: Browser;
  let app: StartedApp;
  let cdn: FakeDeezerCdn;

  before(async () => {
    app = await startApp();
    cdn = await startFakeDeezerCdn(systemClock());
    await seedQueue(app.baseUrl, 30, { prefix: 'Band' });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await cdn?.close();
    await app?.close();
  });

  /** Answers /previews: two tracks for every album, none for Band 00003, and 503 for Band 00004. */
  async function stubPreviews(page: Page): Promise<void> {
    await page.route('**/api/v1/previews?*', (route) => {
      const artist = new URL(route.request().url()).searchParams.get('artist') ?? '';
      if (artist === 'Band 00004') {
        const problem = { type: 'about:blank', title: 'Service Unavailable', status: 503, detail: 'Deezer cannot be reached' };
        return route.fulfill({ status: 503, contentType: 'application/problem+json', body: JSON.stringify(problem) });
      }
      const n = Number(artist.slice(-5));
      const tracks = artist === 'Band 00003' ? [] : [1, 2].map((position) => ({
        title: `Song ${position} of ${artist}`, artist, position, duration_s: 30, source: 'deezer',
        preview_url: `/preview-test/${n * 10 + position}.mp3`,
      }));
      return route.fulfill({ contentType: 'application/json', body: JSON.stringify({ tracks, source: 'deezer' }) });
    });
    await page.route('**/preview-test/*.mp3', async (route) => {
      const id = Number(/(\d+)\.mp3$/.exec(route.request().url())?.[1]);
      const response = await route.fetch({ url: cdn.sign(id) });
      await route.fulfill({ response });
    });
  }

  async function audioState(page: Page): Promise<AudioSeen> {
    const seen = await (await page.waitForFunction(readAudio, {})).jsonValue();
    if (!seen) throw new Error('the page has no preview <audio> element');
    return seen;
  }

  /** Waits until the player's time is past `seconds` and it is playing: time really advances. */
  const playsPast = (page: Page, seconds: number) => page.waitForFunction(readAudio, { minTime: seconds, playing: true });

  const pausedNow = (page: Page) => page.waitForFunction(readAudio, { playing: false });

  const playsFile = (page: Page, file: string) => page.waitForFunction(readAudio, { srcEnd: file, playing: true });

  async function open(viewport: { width: number; height: number }): Promise<WatchedPage> {
    const w = await openPage(browser, { baseURL: app.baseUrl, viewport });
    await stubPreviews(w.page);
    return w;
  }

  for (const [name, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
    it(`plays a preview, keeps playing across a page turn and a route change, and p toggles it (${name})`, async () => {
      const w = await open(viewport);
      const { page } = w;
      await page.goto('/queue?sort=artist&order=asc&limit=25');
      await page.getByRole('button', { name: 'Play preview of Band 00001 — Record number 00001' }).click();
      const player = page.getByRole('region', { name: 'Preview player' });
      await player.getByTestId('preview-track').filter({ hasText: 'Song 1 of Band 00001' }).waitFor();
      await playsPast(page, 0.3);
      assert.match((await audioState(page)).src, /\/preview-test\/11\.mp3$/);
      await page.getByRole('button', { name: 'Pause preview of Band 00001 — Record number 00001' }).waitFor();
      await w.screenshot(`preview-playing-${name}`);

      // A page turn re-renders the queue, not the shell: the same track plays on.
      const before = (await audioState(page)).time;
      await page.getByRole('button', { name: 'Next page' }).click();
      await page.getByText('26–30 of 30').waitFor();
      await playsPast(page, before + 0.3);
      assert.match((await audioState(page)).src, /\/preview-test\/11\.mp3$/);

      // So does a route change within the app.
      const onQueue = (await audioState(page)).time;
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Wishlist' }).click();
      await page.getByRole('heading', { name: /^Wishlist/ }).waitFor();
      await playsPast(page, onQueue + 0.3);
      await page.goBack();
      await page.getByText('26–30 of 30').waitFor();

      // Next track, by the player's button.
      await player.getByRole('button', { name: 'Next track' }).click();
      await player.getByTestId('preview-track').filter({ hasText: 'Song 2 of Band 00001' }).waitFor();
      await playsFile(page, '/12.mp3');
      await playsPast(page, 0.2);

      // `p` plays the active item of the page (the first row, Band 00026), then pauses and resumes it.
      await page.locator('body').press('p');
      await player.getByTestId('preview-track').filter({ hasText: 'Song 1 of Band 00026' }).waitFor();
      await playsPast(page, 0.2);
      await page.locator('body').press('p');
      await pausedNow(page);
      await player.getByRole('button', { name: 'Play preview', exact: true }).waitFor();
      const paused = (await audioState(page)).time;
      await page.locator('body').press('p');
      await playsPast(page, paused + 0.2);
      await w.screenshot(`preview-keyboard-${name}`);
      w.assertNoConsoleErrors();
      await w.close();
    });
  }

  it('says when an album has no preview, and when the provider is unavailable (503)', async () => {
    const w = await open(DESKTOP);
    const { page } = w;
    await page.goto('/queue?sort=artist&order=asc&limit=25');
    const player = page.getByRole('region', { name: 'Preview player' });
    await page.getByRole('button', { name: 'Play preview of Band 00003 — Record number 00003' }).click();
    await player.getByText('No preview found for Band 00003 — Record number 00003').waitFor();
    assert.equal(await player.getByRole('button', { name: 'Next track' }).isDisabled(), true);
    await w.screenshot('preview-none-desktop');
    await page.getByRole('button', { name: 'Play preview of Band 00004 — Record number 00004' }).click();
    await player.getByText('Previews are unavailable right now: Deezer cannot be reached').waitFor();
    await w.screenshot('preview-unavailable-desktop');
    await player.getByRole('button', { name: 'Close the preview player' }).click();
    await player.waitFor({ state: 'hidden' });
    // The 503 is the stub's deliberate answer, which the browser logs as a failed resource.
    w.assertNoConsoleErrors([/503/]);
    await w.close();
  });
});

describe('preview player, end to end', () => {
  let browser: Browser;
  let app: StartedApp;
  let deezer: FakeDeezer;

  before(async () => {
    deezer = await startFakeDeezer({ quota: false });
    // The provider's CDN is the fake's: the app's CSP admits exactly that origin for media.
    app = await startApp({ config: { previews: { type: 'deezer', url: deezer.url, preview_origins: [deezer.cdnUrl] } } });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await deezer?.close();
  });

  it('finds an album on Deezer through /api/v1/previews and plays its preview from the CDN under the app\'s own CSP', async () => {
    const album = deezer.albums.find((candidate) => !candidate.title.includes('"') && candidate.tracks.some((track) => track.previewable));
    assert.ok(album, 'the Deezer fake has an album with a preview');
    const added = await fetch(`${app.baseUrl}/api/v1/queue`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ artist: album.artist.name, album: album.title, source: 'manual' }),
    });
    assert.equal(added.status, 201);
    const w = await openPage(browser, { baseURL: app.baseUrl, viewport: DESKTOP });
    const { page } = w;
    await page.goto('/queue');
    await page.getByRole('button', { name: `Play preview of ${album.artist.name} — ${album.title}` }).click();
    const first = album.tracks.find((track) => track.previewable);
    await page.getByRole('region', { name: 'Preview player' }).getByTestId('preview-track').filter({ hasText: first?.title ?? '' }).waitFor();
    const seen = await (await page.waitForFunction(readAudio, { minTime: 0.3, playing: true })).jsonValue();
    assert.ok(seen && seen.src.startsWith(`${deezer.cdnUrl}/`), `played from the CDN (${seen ? seen.src : 'no audio'})`);
    await w.screenshot('preview-end-to-end-desktop');
    w.assertNoConsoleErrors();
    await w.close();
  });
});

interface AudioWanted {
  minTime?: number;
  playing?: boolean;
  srcEnd?: string;
}

interface AudioSeen {
  time: number;
  paused: boolean;
  src: string;
}

/**
 * Runs in the page (as a function: the app's CSP refuses the eval a string predicate needs): the player's <audio>
 * state once it matches `wanted`, else false so Playwright polls again. The project compiles without the DOM
 * types, hence the narrow view of `document`.
 */
function readAudio(wanted: AudioWanted): AudioSeen | false {
  const doc = (globalThis as unknown as { document: { querySelector(s: string): { currentTime: number; paused: boolean; getAttribute(n: string): string | null } | null } }).document;
  const audio = doc.querySelector('[data-testid="preview-audio"]');
  if (!audio) return false;
  const seen = { time: audio.currentTime, paused: audio.paused, src: audio.getAttribute('src') ?? '' };
  if (wanted.minTime !== undefined && !(seen.time > wanted.minTime)) return false;
  if (wanted.playing !== undefined && seen.paused === wanted.playing) return false;
  if (wanted.srcEnd !== undefined && !seen.src.endsWith(wanted.srcEnd)) return false;
  return seen;
}
