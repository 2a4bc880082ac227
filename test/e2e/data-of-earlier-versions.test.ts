import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LibraryAlbumsFile, type FileIdentity } from '../../core/library/library-albums-file.js';
import { NAME_TABLE } from '../../core/library/library-index.js';
import { IndexFile } from '../../core/storage/index-file.js';
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

// A data dir the last version before credits matched as sets of artists wrote (commit c086ec1, issue #27): a library
// sync of a folder `Sufjan Stevens & Angelo De Augustine/A Beginner's Mind`, then "Boards of Canada & Autechre —
// Split Signals" and "Low — Double Negative" rejected, "Kanye West, JAY-Z — Watch the Throne" approved (it waits in
// wishlist-waiting.jsonl: the one download slot held "Ride — Nowhere"), "Bon Iver feat. Sufjan Stevens — Some
// Collab" pending. Its lines hold name keys of the earlier rules, and its .idx files hashes of them.
const BEFORE_CREDIT_SETS = fileURLToPath(new URL('../fixtures/data-dir-before-credit-sets', import.meta.url));

interface Skipped {
  index: number;
  duplicate_of: { in: string; status: string };
}

describe('a data dir written before credits matched as sets of artists', () => {
  it('matches its decided, waiting, pending and library albums by today\'s keys, in any credit order, and saves its indexes again', async () => {
    const root = await mkdtemp(join(tmpdir(), 'crateflow-old-keys-'));
    const dir = join(root, 'data');
    await cp(BEFORE_CREDIT_SETS, dir, { recursive: true });
    // The catalogue's index is trusted only for the very file it was saved beside (same inode and time): saved again
    // for the copy, it stands for the index an upgrade in place finds, which holds hashes of the earlier keys.
    const libraryIndex = new IndexFile<FileIdentity>(join(dir, 'library-albums.jsonl.idx'));
    const saved = await libraryIndex.read();
    const identity = await new LibraryAlbumsFile(join(dir, 'library-albums.jsonl')).identity();
    assert.ok(saved && identity && !Object.keys(saved.arrays).some((name) => name.startsWith(NAME_TABLE)));
    await libraryIndex.write(identity, saved.arrays);
    const before = await Promise.all(['queue-history.jsonl', 'wishlist-waiting.jsonl', 'library-albums.jsonl'].map((file) => readFile(join(dir, file), 'utf8')));

    const config = { storage: { dir }, library: { path: join(root, 'music'), sync_interval: '1d' }, download_client: { max_active: 1 } };
    const ask = async (baseUrl: string) => {
      const res = await api<{ items: { artist: string }[]; duplicates: number; skipped: Skipped[] }>(baseUrl, 'POST', '/api/v1/queue', [
        { artist: 'Autechre & Boards of Canada', album: 'Split Signals' },
        { artist: 'JAY\u2010Z & Kanye West', album: 'Watch the Throne' },
        { artist: 'Angelo De Augustine & Sufjan Stevens', album: 'A Beginner\u2019s Mind' },
        { artist: 'Sufjan Stevens & Bon Iver', album: 'Some Collab' },
        { artist: 'LOW', album: 'Double Negative (Deluxe Edition)' },
      ]);
      return res.body.skipped.map((s) => [s.index, s.duplicate_of.in, s.duplicate_of.status]);
    };
    const expected = [[0, 'queue', 'rejected'], [1, 'wishlist', 'wanted'], [2, 'library', 'in_library'], [3, 'queue', 'pending'], [4, 'queue', 'rejected']];
    const first = await startApp({ config });
    try {
      assert.deepEqual(await ask(first.baseUrl), expected);
    } finally {
      await first.close();
    }
    // The lines are kept as written; the indexes beside them now hold today's keys, and a start reads them.
    const after = await Promise.all(['queue-history.jsonl', 'wishlist-waiting.jsonl', 'library-albums.jsonl'].map((file) => readFile(join(dir, file), 'utf8')));
    assert.deepEqual(after, before);
    for (const file of ['queue-history.jsonl.idx', 'wishlist-waiting.jsonl.idx', 'library-albums.jsonl.idx']) {
      const index = await new IndexFile(join(dir, file)).read();
      assert.ok(index && `${NAME_TABLE}High` in index.arrays, `${file} is saved with today's keys`);
    }
    const second = await startApp({ config });
    try {
      assert.deepEqual(await ask(second.baseUrl), expected);
    } finally {
      await second.close();
      await rm(root, { recursive: true, force: true });
    }
  });
});
