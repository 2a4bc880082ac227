// start-app first: it loads reflect-metadata for the container the app builds.
import { startApp, type StartedApp } from '../../helpers/start-app.js';
import assert from 'node:assert/strict';
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { RecordingLogger } from '@crateflow/sdk/testing';
import type { Job } from '../../../core/jobs/job.schema.js';
import { startFakeJellyfin } from '../../fakes/fake-jellyfin.js';
import { startFakeSubsonic } from '../../fakes/fake-subsonic.js';
import { generateAlbums } from '../../fakes/generate-albums.js';
import { api, eventually } from '../../helpers/api-client.js';
import { writeAlbum } from '../../helpers/write-album.js';

const ALBUMS = generateAlbums(30);

interface Started {
  app: StartedApp;
  log: RecordingLogger;
  /** The folder the filesystem library reads (the test default). */
  music: string;
}

async function start(t: TestContext, library: Record<string, unknown> = {}): Promise<Started> {
  const log = new RecordingLogger();
  const app = await startApp({ log, config: { library: { sync_interval: '1d', ...library } } });
  t.after(() => app.close());
  return { app, log, music: join(app.dataDir, '..', 'music') };
}

async function sync(app: StartedApp): Promise<Job> {
  const started = await api<{ job: Job }>(app.baseUrl, 'POST', '/api/v1/library/sync');
  assert.equal(started.status, 202);
  return eventually(async () => {
    const res = await api<Job>(app.baseUrl, 'GET', `/api/v1/jobs/${started.body.job.id}`);
    return res.body.status === 'running' ? undefined : res.body;
  }, 10_000, 'the sync job');
}

const libraryTotal = async (app: StartedApp) => (await api<{ total: number }>(app.baseUrl, 'GET', '/api/v1/library')).body.total;

async function pluginHealth(app: StartedApp, name: string): Promise<{ healthy: boolean; last_error?: string } | undefined> {
  const plugins = await api<{ items: { name: string; healthy: boolean; last_error?: string }[] }>(app.baseUrl, 'GET', '/api/v1/plugins');
  return plugins.body.items.find((p) => p.name === name);
}

/**
 * Asserts the sync failed with `reason`, logged it and kept `albums` albums. The plugin view shows `health`:
 * the backend's own health probe when it has one to report (a folder that is gone or empty), else the sync's
 * error as `last_error` beside a server that answers its ping.
 */
async function assertKept(s: Started, job: Job, plugin: string, albums: number, reason: RegExp, health: { healthy: boolean; last_error: RegExp }): Promise<void> {
  assert.equal(job.status, 'failed');
  assert.match(job.error ?? '', reason);
  assert.equal(await libraryTotal(s.app), albums, 'the last library is kept');
  assert.ok(s.log.entries.some((e) => e.level === 'error' && /previous catalogue is kept/.test(e.msg) && reason.test(errorText(e.fields['err']))), 'the reason is logged');
  const shown = await pluginHealth(s.app, plugin);
  assert.equal(shown?.healthy, health.healthy);
  assert.match(shown?.last_error ?? '', health.last_error);
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

describe('a library sync never empties a library it has seen', () => {
  it('fails when the filesystem library folder is gone (an unmounted NAS), keeps the library and the wishlist, and recovers once it is back', async (t) => {
    const s = await start(t);
    await writeAlbum(join(s.music, 'Low', 'Double Negative'));
    await writeAlbum(join(s.music, 'Ride', 'Nowhere'));
    assert.equal((await sync(s.app)).status, 'completed');
    assert.equal((await api(s.app.baseUrl, 'POST', '/api/v1/wishlist', { artist: 'Slowdive', album: 'Souvlaki' })).status, 201);

    await rename(s.music, `${s.music}.unmounted`);
    const gone = /library folder .*music is gone, though the last sync found albums in it/;
    await assertKept(s, await sync(s.app), 'library-filesystem', 2, gone, { healthy: false, last_error: /cannot read .*music: ENOENT/ });
    assert.equal((await api<{ total: number }>(s.app.baseUrl, 'GET', '/api/v1/wishlist')).body.total, 1);

    await rename(`${s.music}.unmounted`, s.music);
    const back = await sync(s.app);
    assert.equal(back.status, 'completed', back.error);
    assert.equal((await pluginHealth(s.app, 'library-filesystem'))?.healthy, true);
  });

  it('fails when the filesystem library folder is still there but empty (a mount point without its drive)', async (t) => {
    const s = await start(t);
    await writeAlbum(join(s.music, 'Low', 'Double Negative'));
    assert.equal((await sync(s.app)).status, 'completed');
    await rm(join(s.music, 'Low'), { recursive: true });
    await assertKept(s, await sync(s.app), 'library-filesystem', 1, /answered no albums, but the last sync found 1/, { healthy: false, last_error: /music is empty, though albums were found in it before/ });
  });

  it('treats a missing folder before any album was seen as an empty library, not a failure', async (t) => {
    const s = await start(t);
    const job = await sync(s.app);
    assert.equal(job.status, 'completed', job.error);
    assert.deepEqual(job.summary, { albums: 0, removed: 0, skipped: 0 });
  });

  it('keeps the last library when Subsonic answers an empty one after a full one', async (t) => {
    const subsonic = await startFakeSubsonic({ username: 'crate', password: 'secret', albums: ALBUMS });
    t.after(() => subsonic.close());
    const s = await start(t, { type: 'subsonic', url: subsonic.url, username: 'crate', password: 'secret' });
    assert.equal((await sync(s.app)).status, 'completed');
    subsonic.setAlbums([]);
    const empty = /answered no albums, but the last sync found 30/;
    await assertKept(s, await sync(s.app), 'library-subsonic', ALBUMS.length, empty, { healthy: true, last_error: empty });
  });

  it('keeps the last library when Jellyfin answers an empty one after a full one', async (t) => {
    const jellyfin = await startFakeJellyfin({ apiKey: 'k'.repeat(32), albums: ALBUMS });
    t.after(() => jellyfin.close());
    const s = await start(t, { type: 'jellyfin', url: jellyfin.url, api_key: 'k'.repeat(32) });
    assert.equal((await sync(s.app)).status, 'completed');
    jellyfin.setAlbums([]);
    const empty = /answered no albums, but the last sync found 30/;
    await assertKept(s, await sync(s.app), 'library-jellyfin', ALBUMS.length, empty, { healthy: true, last_error: empty });
  });
});
