import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DomainEvent } from '@crateflow/sdk';
import { EventBus } from '../../core/events/event-bus.js';
import { api, eventually } from '../helpers/api-client.js';
import { startApp, type StartedApp } from '../helpers/start-app.js';

describe('a candidate travelling from the queue to the library (blackhole + filesystem)', () => {
  let app: StartedApp;
  let root: string;
  const events: DomainEvent[] = [];

  before(async () => {
    app = await startApp({ config: { download_client: { poll_interval: '50ms', quiet_period_ms: 100 }, library: { sync_interval: '1d' } } });
    root = join(app.dataDir, '..');
    app.crateflow.container.resolve(EventBus).subscribe((event) => events.push(event));
  });
  after(() => app.close());

  it('queues, approves, downloads and completes, then a sync removes it from the wishlist', async () => {
    const added = await api<{ items: { id: string }[]; duplicates: number }>(app.baseUrl, 'POST', '/api/v1/queue', {
      artist: 'Sigur Rós', album: 'Ágætis byrjun (Deluxe Edition)', mbid: '0e9b3b0a-6b3e-4a8f-9d3c-1c2b3a4d5e6f', source: 'test',
    });
    assert.equal(added.status, 201);
    assert.equal(added.body.items.length, 1);
    const id = added.body.items[0]?.id ?? '';
    assert.deepEqual(events.at(-1)?.data, { artist: 'Sigur Rós', album: 'Ágætis byrjun (Deluxe Edition)', mbid: '0e9b3b0a-6b3e-4a8f-9d3c-1c2b3a4d5e6f', id });

    const approved = await api<{ item: { status: string } }>(app.baseUrl, 'POST', `/api/v1/queue/${id}/approve`);
    assert.equal(approved.status, 200);
    assert.equal(approved.body.item.status, 'approved');
    assert.equal(events.at(-1)?.type, 'queue_approved');
    assert.deepEqual(events.at(-1)?.data, { artist: 'Sigur Rós', album: 'Ágætis byrjun (Deluxe Edition)', mbid: '0e9b3b0a-6b3e-4a8f-9d3c-1c2b3a4d5e6f', decided_via: 'api', in_library: false });

    // Liveness only: the hand-off is immediate, but a loaded machine may take its time.
    const requestFile = await eventually(async () => (await readdir(join(root, 'requests')).catch(() => [])).find((f) => f.endsWith('.json')), 60_000, 'a request file');
    const request = JSON.parse(await readFile(join(root, 'requests', requestFile), 'utf8'));
    assert.equal(request.artist, 'Sigur Rós');

    const folder = join(root, 'complete', 'sigur ros', 'Agaetis Byrjun');
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, '01 Svefn-g-englar.flac'), 'audio');

    const completed = await eventually(() => events.find((e) => e.type === 'download_completed'), 60_000, 'download_completed');
    assert.deepEqual(completed.data, { artist: 'Sigur Rós', album: 'Ágætis byrjun (Deluxe Edition)', mbid: '0e9b3b0a-6b3e-4a8f-9d3c-1c2b3a4d5e6f', download_path: folder });
    const wishlist = await api<{ items: { status: string; download_path?: string }[] }>(app.baseUrl, 'GET', '/api/v1/wishlist');
    assert.equal(wishlist.body.items[0]?.status, 'downloaded');
    assert.equal(wishlist.body.items[0]?.download_path, folder);
    const downloads = await api<{ items: { state: string; progress: number }[] }>(app.baseUrl, 'GET', '/api/v1/downloads');
    assert.deepEqual(downloads.body.items.map((d) => [d.state, d.progress]), [['completed', 1]]);

    const music = join(root, 'music', 'Sigur Rós', 'Ágætis byrjun');
    await mkdir(music, { recursive: true });
    await writeFile(join(music, '01.flac'), 'audio');
    const sync = await api<{ job: { id: string } }>(app.baseUrl, 'POST', '/api/v1/library/sync');
    assert.equal(sync.status, 202);
    const job = await eventually(async () => {
      const res = await api<{ status: string; summary: Record<string, number> }>(app.baseUrl, 'GET', `/api/v1/jobs/${sync.body.job.id}`);
      return res.body.status === 'running' ? undefined : res.body;
    });
    assert.equal(job.status, 'completed');
    assert.deepEqual(job.summary, { albums: 1, removed: 1, skipped: 0 });
    const removed = events.find((e) => e.type === 'wishlist_removed');
    assert.deepEqual(removed?.data, { artist: 'Sigur Rós', album: 'Ágætis byrjun (Deluxe Edition)', mbid: '0e9b3b0a-6b3e-4a8f-9d3c-1c2b3a4d5e6f' });
    assert.equal((await api<{ total: number }>(app.baseUrl, 'GET', '/api/v1/wishlist')).body.total, 0);
  });
});
