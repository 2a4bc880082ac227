import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { api } from '../helpers/api-client.js';
import { startApp } from '../helpers/start-app.js';

const item = (id: string, artist: string, status: string, decided_at?: string) => ({
  id, artist, album: 'Album', type: 'album', source: 'api', status, added_at: '2026-01-01T00:00:00.000Z', ...(decided_at ? { decided_at } : {}),
});

const download = (id: string, wishlist_id: string, state: string) => ({
  id, wishlist_id, artist: 'Low', album: 'Album', client: 'download-blackhole', state, progress: state === 'completed' ? 1 : 0.5, attempts: 1,
  created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z', ...(state === 'completed' ? { download_path: `/music/${id}` } : {}),
});

describe('a data dir written by an earlier version', () => {
  it('moves decided queue items to the history, finished downloads of gone albums to the archive, and keeps the recent events, from a one-object snapshot', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'crateflow-old-data-'));
    await mkdir(dir, { recursive: true });
    const event = { id: 'ev1', type: 'queue_rejected', timestamp: '2026-01-02T00:00:00.000Z', data: { artist: 'Ride' } };
    await writeFile(join(dir, 'crateflow.json'), JSON.stringify({
      schema_version: 1,
      queue: {
        q1: item('q1', 'Low', 'pending'),
        q2: item('q2', 'Ride', 'rejected', '2026-01-02T00:00:00.000Z'),
        q3: item('q3', 'Slowdive', 'approved', '2026-01-03T00:00:00.000Z'),
      },
      wishlist: { w1: { id: 'w1', artist: 'Low', album: 'Album', type: 'album', status: 'downloading', added_at: '2026-01-01T00:00:00.000Z' } },
      // Versions before the archive kept the newest 1,000 finished downloads of albums a library sync removed.
      downloads: { d2: download('d2', 'gone', 'completed'), d1: download('d1', 'w1', 'downloading') },
      jobs: {}, journal: {},
      recent_events: [event],
    }));
    const app = await startApp({ config: { storage: { dir } } });
    try {
      assert.deepEqual((await api<{ items: { id: string }[] }>(app.baseUrl, 'GET', '/api/v1/queue/pending')).body.items.map((i) => i.id), ['q1']);
      assert.deepEqual((await api<{ items: { id: string }[] }>(app.baseUrl, 'GET', '/api/v1/queue?status=rejected')).body.items.map((i) => i.id), ['q2']);
      assert.deepEqual((await api<{ items: { id: string }[] }>(app.baseUrl, 'GET', '/api/v1/queue?status=approved')).body.items.map((i) => i.id), ['q3']);
      const stats = await api<{ recent_events: { id: string }[] }>(app.baseUrl, 'GET', '/api/v1/stats');
      assert.deepEqual(stats.body.recent_events.map((e) => e.id), ['ev1']);
      assert.equal((await api<{ duplicates: number }>(app.baseUrl, 'POST', '/api/v1/queue', { artist: 'Ride', album: 'Album' })).body.duplicates, 1);
      const downloads = await api<{ items: { id: string; download_path?: string }[]; total: number }>(app.baseUrl, 'GET', '/api/v1/downloads');
      assert.deepEqual([downloads.body.total, downloads.body.items.map((d) => d.id)], [2, ['d1', 'd2']]);
      assert.equal(downloads.body.items[1]?.download_path, '/music/d2');
    } finally {
      await app.close();
    }
    const snapshot = await readFile(join(dir, 'crateflow.json'), 'utf8');
    assert.match(snapshot, /^\{"crateflow_snapshot":2\}\n/, 'the snapshot is rewritten one record a line');
    assert.doesNotMatch(snapshot, /recent_events/);
    assert.doesNotMatch(snapshot, /"d2"/, 'the finished download left the core document');
    assert.match(await readFile(join(dir, 'archive.jsonl'), 'utf8'), /^downloads\td2\tstate=completed\t\{"id":"d2"/);
  });
});
