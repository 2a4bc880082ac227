import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../ui/launch-chromium.js';
import { startFakeCoverArtArchive } from './fake-cover-art-archive.js';
import { startFakeDeezer } from './fake-deezer.js';
import { isJsonObject } from './is-json-object.js';

/** The generated media must be real: a browser decodes the fake covers and plays the fake previews. */
describe('media served by the fakes, in Chromium', () => {
  let browser: Browser;
  before(async () => {
    browser = await launchChromium();
  });
  after(() => browser.close());

  it('plays a Deezer preview from the signed CDN URL: 30 s long, and time moves while it plays', async (t) => {
    const deezer = await startFakeDeezer();
    t.after(() => deezer.close());
    const body: unknown = await (await fetch(`${deezer.url}/album/${deezer.albums[0]?.id ?? 0}/tracks`)).json();
    const data = isJsonObject(body) && Array.isArray(body['data']) ? body['data'].filter(isJsonObject) : [];
    const preview = String(data.find((track) => track['preview'] !== '')?.['preview']);
    const page = await browser.newPage();
    t.after(() => page.close());
    // Browser code as a string: the project compiles without the DOM types.
    const played: unknown = await page.evaluate(`(async () => {
      const audio = new Audio(${JSON.stringify(preview)});
      audio.muted = true; // muted media may start without a user gesture
      await new Promise((resolve, reject) => {
        audio.onloadedmetadata = resolve;
        audio.onerror = () => reject(new Error('media error ' + (audio.error && audio.error.code)));
      });
      await audio.play();
      await new Promise((resolve) => setTimeout(resolve, 400));
      return [audio.duration, audio.currentTime];
    })()`);
    assert.ok(Array.isArray(played));
    const [duration, currentTime] = played.map(Number);
    assert.ok(Math.abs((duration ?? 0) - 30) < 0.1, `duration ${String(duration)}`);
    assert.ok((currentTime ?? 0) > 0.1, `played ${String(currentTime)} s`);
  });

  it('shows a Cover Art Archive front-250 through its redirects as a 250 × 250 image', async (t) => {
    const caa = await startFakeCoverArtArchive();
    t.after(() => caa.close());
    const group = caa.catalogue.releaseGroups.find((item) => caa.imageOf(item.id, '250'));
    const page = await browser.newPage();
    t.after(() => page.close());
    const size: unknown = await page.evaluate(`(async () => {
      const image = new Image();
      image.src = ${JSON.stringify(`${caa.url}/release-group/${group?.id ?? ''}/front-250`)};
      await image.decode();
      return [image.naturalWidth, image.naturalHeight];
    })()`);
    assert.deepEqual(size, [250, 250]);
  });
});
