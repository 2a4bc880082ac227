import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { CredentialsError, RetryLaterError } from '@crateflow/sdk';
import slskd from '@crateflow/download-slskd';
import { isJsonObject } from '../../fakes/is-json-object.js';
import { createPluginTestContext } from '../../helpers/plugin-test-context.js';
import { albumFiles, pollUntil, pollUntilDone, WANTED } from './slskd-fixtures.js';
import { batchFolder, batchUsers, posted, setup } from './slskd-setup.js';

const FOLDER = 'Double Negative (2018)';

describe('download-slskd plugin', () => {
  it('searches, downloads the best folder into its own batch destination and reports that folder with rising progress', async (t) => {
    const { fake, client, downloadsDir } = await setup(t, [
      { username: 'mp3 fan', files: albumFiles('@@mp3\\Music\\Low', FOLDER, 'mp3') },
      { username: 'flac fan', files: albumFiles('@@flac\\Share\\Low', FOLDER, 'flac') },
    ]);
    const { ref } = await client.request(WANTED);
    const updates = await pollUntilDone(client, ref);
    const last = updates.at(-1);
    assert.deepEqual(last, { state: 'completed', progress: 1, download_path: batchFolder(downloadsDir, ref) });
    assert.equal(updates[0]?.state, 'searching');
    const progress = updates.filter((u) => u.state === 'downloading').map((u) => u.progress);
    assert.ok(progress.some((p) => p > 0 && p < 1), `expected partial progress, saw ${progress.join(', ')}`);
    assert.deepEqual(progress, [...progress].sort((a, b) => a - b));
    assert.deepEqual((await readdir(batchFolder(downloadsDir, ref))).filter((f) => f.endsWith('.flac')).length, 11);

    const [search] = posted(fake, '/searches');
    assert.ok(isJsonObject(search));
    assert.equal(search['searchText'], 'Low Double Negative');
    assert.equal(search['searchTimeout'], 15000, 'searchTimeout is sent in milliseconds (slskd passes it on as ms)');
    const [batch] = posted(fake, '/transfers/downloads/batches');
    assert.ok(isJsonObject(batch));
    assert.equal(batch['username'], 'flac fan');
    assert.deepEqual(batch['options'], { destination: `Low - Double Negative [${ref}]` });
    assert.ok(fake.received.every((r) => r.headers['x-api-key'] === fake.apiKey));
  });

  it('answers failed with retry_after_ms after every query template found nothing, instead of searching in a loop', async (t) => {
    const { fake, client } = await setup(t, [{ username: 'someone', files: albumFiles('@@x\\Music\\Other', 'Something Else', 'flac') }], {
      config: { retry_after_no_results_ms: 7_200_000 },
    });
    const { ref } = await client.request(WANTED);
    const last = (await pollUntilDone(client, ref)).at(-1);
    assert.equal(last?.state, 'failed');
    assert.equal(last?.retry_after_ms, 7_200_000);
    assert.match(last?.error ?? '', /no usable slskd search results for "Low Double Negative" or "Double Negative"/);
    assert.equal(posted(fake, '/searches').length, 2);
    const again = await client.status(ref, WANTED);
    assert.deepEqual(again, last, 'a finished download answers the same outcome without new searches');
    assert.equal(posted(fake, '/searches').length, 2);
  });

  it('moves on to the next best candidate when the best user is offline', async (t) => {
    const { client, downloadsDir } = await setup(t, [
      { username: 'gone', behaviour: 'offline', files: albumFiles('@@gone\\Music\\Low', FOLDER, 'flac') },
      { username: 'steady', files: albumFiles('@@steady\\Music\\Low', 'Double Negative [MP3]', 'mp3') },
    ]);
    const { ref } = await client.request(WANTED);
    const last = (await pollUntilDone(client, ref)).at(-1);
    assert.deepEqual(last, { state: 'completed', progress: 1, download_path: batchFolder(downloadsDir, ref) });
  });

  it('moves on to the next best candidate when a user rejects the transfers', async (t) => {
    const { fake, client, downloadsDir } = await setup(t, [
      { username: 'grumpy', behaviour: 'reject', files: albumFiles('@@g\\Music\\Low', FOLDER, 'flac') },
      { username: 'kind', files: albumFiles('@@k\\Music\\Low', 'Low - Double Negative', 'flac', 11, { size: 20_000 }) },
    ]);
    const { ref } = await client.request(WANTED);
    const last = (await pollUntilDone(client, ref)).at(-1);
    assert.deepEqual(last, { state: 'completed', progress: 1, download_path: batchFolder(downloadsDir, ref) });
    assert.deepEqual(batchUsers(fake), ['grumpy', 'kind']);
  });

  it('retries the files that failed once and completes when the retry succeeds', async (t) => {
    // A partial peer without marked files fails every second file of each enqueue request; a retry of one file succeeds.
    const { fake, client, downloadsDir } = await setup(t, [{ username: 'flaky', behaviour: 'partial', files: albumFiles('@@f\\Music\\Low', FOLDER, 'flac', 2) }]);
    const { ref } = await client.request(WANTED);
    const last = (await pollUntilDone(client, ref)).at(-1);
    assert.deepEqual(last, { state: 'completed', progress: 1, download_path: batchFolder(downloadsDir, ref) });
    const enqueues = posted(fake, '/transfers/downloads/batches');
    assert.equal(enqueues.length, 2);
    const retry = enqueues[1];
    assert.ok(isJsonObject(retry) && Array.isArray(retry['files']) && retry['files'].length === 1, 'only the failed file is enqueued again');
    assert.deepEqual(retry['options'], { destination: `Low - Double Negative [${ref}]` }, 'into the same folder');
  });

  it('falls back to the next candidate when files fail again after a retry, and fails clearly when none is left', async (t) => {
    const broken = albumFiles('@@b\\Music\\Low', FOLDER, 'flac').map((file, i) => (i === 3 ? { ...file, fails: true } : file));
    const { client } = await setup(t, [{ username: 'broken', behaviour: 'partial', files: broken }], { config: { retry_after_all_failed_ms: 60_000 } });
    const { ref } = await client.request(WANTED);
    const last = (await pollUntilDone(client, ref)).at(-1);
    assert.equal(last?.state, 'failed');
    assert.equal(last?.retry_after_ms, 60_000);
    assert.match(last?.error ?? '', /every slskd candidate failed: broken \(Double Negative \(2018\)\): 1 of 11 files failed again after a retry \(Completed, Errored: Remote connection closed\)/);
  });

  it('throws RetryLaterError while slskd is unreachable and resumes the download when slskd is back', async (t) => {
    const { fake, client, downloadsDir } = await setup(t, [{ username: 'steady', files: albumFiles('@@s\\Music\\Low', FOLDER, 'flac') }]);
    const { ref } = await client.request(WANTED);
    const downloading = await pollUntil(client, ref, 'downloading');
    assert.equal(downloading.progress, 0);
    const restarting = fake.restart(400);
    await delay(50);
    await assert.rejects(client.status(ref, WANTED), (err: unknown) => err instanceof RetryLaterError && /slskd at .* is unreachable/.test(err.message));
    await restarting;
    const last = (await pollUntilDone(client, ref)).at(-1);
    assert.deepEqual(last, { state: 'completed', progress: 1, download_path: batchFolder(downloadsDir, ref) });
    assert.equal(posted(fake, '/transfers/downloads/').length, 1, 'the transfers reappear after the restart; nothing is enqueued twice');
  });

  it('resumes from plugin storage after a Crateflow restart mid-download', async (t) => {
    const { fake, client, recreate, downloadsDir } = await setup(t, [{ username: 'steady', files: albumFiles('@@s\\Music\\Low', FOLDER, 'flac') }]);
    const { ref } = await client.request(WANTED);
    await pollUntil(client, ref, 'downloading');
    await client.status(ref, WANTED);
    const restarted = await recreate();
    const last = (await pollUntilDone(restarted, ref)).at(-1);
    assert.deepEqual(last, { state: 'completed', progress: 1, download_path: batchFolder(downloadsDir, ref) });
    assert.equal(posted(fake, '/searches').length, 1);
    assert.equal(posted(fake, '/transfers/downloads/').length, 1);
  });

  it('throws CredentialsError on a 401, logs it at start() without stopping startup, and reports the API key in health', async (t) => {
    const { fake, downloadsDir } = await setup(t, []);
    const harness = createPluginTestContext(slskd, { url: fake.url, api_key: 'wrong-key', downloads_dir: downloadsDir });
    t.after(() => harness.close());
    const client = await slskd.create(harness.context);
    const { ref } = await client.request(WANTED);
    await assert.rejects(client.status(ref, WANTED), (err: unknown) => err instanceof CredentialsError && /rejected the API key \(HTTP 401\)/.test(err.message));
    await client.start?.();
    assert.ok(harness.context.log.at('error').some((l) => /refused the connection check/.test(l.msg)));
    const health = await client.health?.();
    assert.equal(health?.ok, false);
    assert.match(health?.message ?? '', /API key/);
  });

  it('throws RetryLaterError on 429 and on 409 (not logged in), and starts the search on a later poll', async (t) => {
    const { fake, client } = await setup(t, [{ username: 'steady', files: albumFiles('@@s\\Music\\Low', FOLDER, 'flac') }]);
    const { ref } = await client.request(WANTED);
    fake.state.rejectNextSearches = 1;
    await assert.rejects(client.status(ref, WANTED), (err: unknown) => err instanceof RetryLaterError && /busy.*429/.test(err.message));
    fake.state.connected = false;
    await assert.rejects(client.status(ref, WANTED), (err: unknown) => err instanceof RetryLaterError && /409/.test(err.message));
    const health = await client.health?.();
    assert.deepEqual(health?.ok, false);
    assert.match(health?.message ?? '', /not logged in to the Soulseek network \(state: Disconnected\)/);
    fake.state.connected = true;
    assert.equal((await pollUntilDone(client, ref)).at(-1)?.state, 'completed');
    assert.deepEqual(await client.health?.(), { ok: true });
  });

  it('stops a search that runs longer than search.max_wait_ms and uses what it found', async (t) => {
    const { fake, client, harness } = await setup(t, [{ username: 'steady', files: albumFiles('@@s\\Music\\Low', FOLDER, 'flac') }], {
      fake: { searchCompletion: { afterPolls: 1000 } },
      config: { search: { max_wait_ms: 60_000 } },
    });
    const { ref } = await client.request(WANTED);
    assert.equal((await client.status(ref, WANTED)).state, 'searching');
    assert.equal((await client.status(ref, WANTED)).state, 'searching');
    harness.context.clock.advance(61_000);
    assert.equal((await client.status(ref, WANTED)).state, 'searching');
    assert.ok(fake.received.some((r) => r.method === 'PUT' && r.path.startsWith('/api/v0/searches/')));
    assert.equal((await pollUntilDone(client, ref)).at(-1)?.state, 'completed');
  });

  it('talks to slskd under its url_base', async (t) => {
    const { fake, downloadsDir } = await setup(t, [{ username: 'steady', files: albumFiles('@@s\\Music\\Low', FOLDER, 'flac') }], { fake: { urlBase: '/slskd' } });
    const origin = new URL(fake.url).origin;
    const based = createPluginTestContext(slskd, { url: origin, url_base: '/slskd/', api_key: fake.apiKey, downloads_dir: downloadsDir });
    t.after(() => based.close());
    const client = await slskd.create(based.context);
    const { ref } = await client.request(WANTED);
    assert.equal((await pollUntilDone(client, ref)).at(-1)?.state, 'completed');
    assert.ok(fake.received.filter((r) => r.path.includes('/api/')).every((r) => r.path.startsWith('/slskd/api/v0/')));
  });

  it('cancels unfinished transfers and forgets the download', async (t) => {
    const { fake, client, storage } = await setup(t, [{ username: 'steady', files: albumFiles('@@s\\Music\\Low', FOLDER, 'flac') }]);
    const { ref } = await client.request(WANTED);
    await pollUntil(client, ref, 'downloading');
    await client.cancel?.(ref);
    assert.equal(fake.received.filter((r) => r.method === 'DELETE' && r.path.includes('/transfers/downloads/steady/')).length, 11);
    assert.deepEqual(Object.keys(storage.snapshot()), ['pacing/last_search_at'], 'only the search spacing outlives a download');
  });
});
