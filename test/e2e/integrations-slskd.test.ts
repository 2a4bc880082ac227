import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import type { DomainEvent } from '@crateflow/sdk';
import { EventBus } from '../../core/events/event-bus.js';
import { startFakeSlskd, type FakeSlskd, type FakeSlskdPeer } from '../fakes/fake-slskd.js';
import { startFakeSubsonic, type FakeSubsonic } from '../fakes/fake-subsonic.js';
import { api, eventually } from '../helpers/api-client.js';
import { startApp, type StartedApp } from '../helpers/start-app.js';

const FOLDER = 'Double Negative (2018)';
const TRACKS = ['Quorum', 'Dancing and Blood', 'Fly', 'Tempest', 'Always Up'];
const PEERS: FakeSlskdPeer[] = [
  { username: 'steady peer', files: TRACKS.map((title, i) => ({ filename: `@@s\\Music\\Low\\${FOLDER}\\0${i + 1} - ${title}.flac`, size: 40_000 + i })) },
];

interface Download {
  state: string;
  progress: number;
  error?: string;
  download_path?: string;
}

interface Rig {
  app: StartedApp;
  slskd: FakeSlskd;
  downloadsDir: string;
  events: DomainEvent[];
}

async function startRig(t: TestContext, options: { apiKey?: string; subsonic?: FakeSubsonic } = {}): Promise<Rig> {
  const downloadsDir = await mkdtemp(join(tmpdir(), 'crateflow-slskd-e2e-'));
  const slskd = await startFakeSlskd({ downloadsDir, peers: PEERS });
  const library = options.subsonic
    ? { type: 'subsonic', url: options.subsonic.url, username: 'crate', password: 'secret', sync_interval: '1d', refresh_after_download: true }
    : { sync_interval: '1d' };
  const app = await startApp({
    config: {
      download_client: { type: 'slskd', url: slskd.url, api_key: options.apiKey ?? slskd.apiKey, downloads_dir: downloadsDir, poll_interval: '100ms' },
      library,
    },
  });
  const events: DomainEvent[] = [];
  app.crateflow.container.resolve(EventBus).subscribe((event) => events.push(event));
  t.after(async () => {
    await app.close();
    await slskd.close();
    await rm(downloadsDir, { recursive: true, force: true });
  });
  return { app, slskd, downloadsDir, events };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

async function approve(app: StartedApp): Promise<void> {
  const added = await api<{ items: { id: string }[] }>(app.baseUrl, 'POST', '/api/v1/queue', { artist: 'Low', album: 'Double Negative', source: 'e2e' });
  assert.equal(added.status, 201);
  const approved = await api(app.baseUrl, 'POST', `/api/v1/queue/${added.body.items[0]?.id ?? ''}/approve`);
  assert.equal(approved.status, 200);
}

async function onlyDownload(app: StartedApp): Promise<Download | undefined> {
  return (await api<{ items: Download[] }>(app.baseUrl, 'GET', '/api/v1/downloads')).body.items[0];
}

/** The job log entry a failed download poll leaves (written once the poll round has ended). */
async function failedPollJob(app: StartedApp): Promise<{ status: string; error?: string }> {
  return eventually(async () => {
    const jobs = await api<{ items: { status: string; error?: string }[] }>(app.baseUrl, 'GET', '/api/v1/jobs?kind=download_poll&status=failed');
    return jobs.body.items[0];
  }, 5000, 'a failed download_poll job');
}

describe('approval to download_completed through slskd', () => {
  it('searches, downloads and completes an approved album with the local folder as download_path, then asks Subsonic to scan', async (t) => {
    const subsonic = await startFakeSubsonic({ username: 'crate', password: 'secret', albums: [] });
    t.after(() => subsonic.close());
    const { app, slskd, downloadsDir, events } = await startRig(t, { subsonic });
    await approve(app);

    const completed = await eventually(() => events.find((e) => e.type === 'download_completed'), 10_000, 'download_completed');
    const path = String(completed.data['download_path']);
    assert.deepEqual(completed.data, { artist: 'Low', album: 'Double Negative', download_path: path });
    assert.match(path, new RegExp(`^${escapeRegExp(downloadsDir)}/Low - Double Negative \\[[^\\]]+\\]$`), 'slskd 0.26 puts the album in its own batch destination');
    assert.equal((await readdir(path)).length, TRACKS.length);
    const download = await onlyDownload(app);
    assert.equal(download?.state, 'completed');
    assert.equal(download?.progress, 1);
    assert.ok(slskd.received.some((r) => r.method === 'POST' && r.path === '/api/v0/transfers/downloads/batches' && r.text.includes('"username":"steady peer"')));
    await eventually(() => subsonic.received.find((r) => r.path === '/rest/startScan'), 5000, 'startScan after the download');

    const plugins = await api<{ items: { name: string; kind: string; healthy: boolean; last_ok_at?: string }[] }>(app.baseUrl, 'GET', '/api/v1/plugins');
    const client = plugins.body.items.find((p) => p.name === 'download-slskd');
    assert.equal(client?.kind, 'download-client');
    assert.equal(client?.healthy, true);
    assert.ok(client?.last_ok_at);
  });

  it('keeps the download while slskd is down, with the reason in its error and the job log, and completes once slskd is back', async (t) => {
    const { app, slskd, events } = await startRig(t);
    await approve(app);
    await eventually(async () => ((await onlyDownload(app))?.state === 'downloading' ? true : undefined), 10_000, 'the download to start');
    const restarting = slskd.restart(1500);

    const failing = await eventually(async () => {
      const download = await onlyDownload(app);
      return download?.error && /unreachable/.test(download.error) ? download : undefined;
    }, 5000, 'the unreachable error on the download');
    assert.equal(failing.state, 'downloading');
    const job = await failedPollJob(app);
    assert.match(job.error ?? '', /slskd at .* is unreachable/);
    const health = await api<{ status: string }>(app.baseUrl, 'GET', '/health');
    assert.equal(health.body.status, 'degraded');

    await restarting;
    await eventually(() => events.find((e) => e.type === 'download_completed'), 10_000, 'download_completed after the restart');
    const download = await onlyDownload(app);
    assert.equal(download?.state, 'completed');
    assert.equal(download?.error, undefined);
  });

  it('records a rejected API key in the download error and the job log and keeps the download queued', async (t) => {
    const { app } = await startRig(t, { apiKey: 'not-the-right-key' });
    await approve(app);
    const download = await eventually(async () => {
      const found = await onlyDownload(app);
      return found?.error ? found : undefined;
    }, 5000, 'an error on the download');
    assert.match(download.error ?? '', /rejected the API key \(HTTP 401\)/);
    assert.equal(download.state, 'queued');
    const job = await failedPollJob(app);
    assert.match(job.error ?? '', /download_client\.api_key/);
  });
});
