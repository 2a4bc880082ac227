// The import of data dirs written by earlier versions: the fixture of the last version before credits matched as
// sets of artists, a one-object snapshot of versions before the history file, and the data dirs the services of
// commits 6a41c8b and c086ec1 wrote (test/fixtures/write-old-data-dir.mjs: their scenario is the expected counts).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DownloadsTable } from '../../../core/downloads/downloads-table.js';
import { EventLogTable } from '../../../core/events/event-log-table.js';
import { JobsTable } from '../../../core/jobs/jobs-table.js';
import { LibraryTable } from '../../../core/library/library-table.js';
import { SqlPluginStorage } from '../../../core/plugins/sql-plugin-storage.js';
import { QueueTable } from '../../../core/queue/queue-table.js';
import { WishlistTable } from '../../../core/wishlist/wishlist-table.js';
import { copyOfFixture, duplicateOf, filesOf, heldBy, openAndImport, tempDir } from './old-data-dir.js';

const NEW_FILES = ['crateflow.db', 'crateflow.db-shm', 'crateflow.db-wal', 'crateflow.lock', 'pre-sqlite'];

describe('importing a data dir of an earlier version', () => {
  it('imports the fixture written before credit sets with its counts, matches its albums by today\'s keys in any credit order, and moves every old file unchanged', async (t) => {
    const dir = await copyOfFixture(t, 'data-dir-before-credit-sets');
    const before = await filesOf(dir);
    const opened = await openAndImport(t, dir);
    // 1 pending (Bon Iver feat. Sufjan Stevens); 2 rejected and 3 approved in the history; Ride handed off (its W
    // line ended by an L), Slowdive and Watch the Throne waiting; Ride's download; one library sync job; 11 recent
    // events; one album; the blackhole's request and the filesystem library's root.
    const expected = {
      pending: 1, approved: 3, rejected: 2, wishlist: 1, waiting: 2, downloads: 1, archived_downloads: 0, jobs: 1, archived_jobs: 0,
      events: 11, undelivered: 0, library_albums: 1, sources: 0, plugin_entries: 2,
    };
    assert.deepEqual(opened.result?.counts, expected);
    assert.deepEqual(heldBy(opened.store), expected);
    assert.ok(opened.log.some((line) => line.msg === 'imported the data of an earlier version' && line.pending === 1 && line.approved === 3));

    const asked = [
      { artist: 'Autechre & Boards of Canada', album: 'Split Signals' },
      { artist: 'JAY\u2010Z & Kanye West', album: 'Watch the Throne' },
      { artist: 'Angelo De Augustine & Sufjan Stevens', album: 'A Beginner\u2019s Mind' },
      { artist: 'Sufjan Stevens & Bon Iver', album: 'Some Collab' },
      { artist: 'LOW', album: 'Double Negative (Deluxe Edition)' },
    ];
    const expectedDuplicates = [['queue', 'rejected'], ['wishlist', 'wanted'], ['library', 'in_library'], ['queue', 'pending'], ['queue', 'rejected']];
    assert.deepEqual(asked.map((album) => duplicateOf(opened.store, album)), expectedDuplicates);

    const queue = new QueueTable(opened.store);
    assert.deepEqual(queue.decidedPage('approved', { offset: 0 }, 10).items.map((item) => item.album), ['Watch the Throne', 'Souvlaki', 'Nowhere'], 'latest decision first');
    assert.deepEqual(queue.decidedPage('rejected', { offset: 0 }, 10).items.map((item) => item.album), ['Double Negative', 'Split Signals']);
    const wishlist = new WishlistTable(opened.store).page(0, 10);
    assert.deepEqual(wishlist.items.map((item) => [item.album, item.status]), [['Nowhere', 'downloading'], ['Watch the Throne', 'wanted'], ['Souvlaki', 'wanted']]);
    assert.deepEqual(new EventLogTable(opened.store).recent(2).map((event) => event.data.album), ['Watch the Throne', 'Souvlaki']);
    assert.equal(new LibraryTable(opened.store).syncedAt, '2026-11-27T21:13:55.841Z');
    assert.deepEqual([...new SqlPluginStorage(opened.store, 'library-filesystem').entries()], [['seen_root', '/tmp/gen27/music']]);

    assert.deepEqual((await readdir(dir)).sort(), NEW_FILES);
    assert.deepEqual(await filesOf(join(dir, 'pre-sqlite')), before, 'every old file moved, byte for byte');

    // The next start finds nothing to import, and the database keeps what it has.
    await opened.close();
    const again = await openAndImport(t, dir);
    assert.equal(again.result, undefined);
    assert.deepEqual(heldBy(again.store), expected);
    assert.deepEqual(asked.map((album) => duplicateOf(again.store, album)), expectedDuplicates);
  });

  it('moves decided items, finished downloads of gone albums and the recent events of a one-object snapshot where the last version kept them', async (t) => {
    const dir = join(await tempDir(t, 'crateflow-pre-sqlite-legacy-'), 'data');
    await mkdir(dir);
    const item = (id: string, artist: string, status: string, decided_at?: string) => ({
      id, artist, album: 'Album', type: 'album', source: 'api', status, added_at: '2026-01-01T00:00:00.000Z', ...(decided_at ? { decided_at } : {}),
    });
    const download = (id: string, wishlist_id: string, state: string) => ({
      id, wishlist_id, artist: 'Low', album: 'Album', client: 'download-blackhole', state, progress: state === 'completed' ? 1 : 0.5, attempts: 1,
      created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z', ...(state === 'completed' ? { download_path: `/music/${id}` } : {}),
    });
    const event = { id: 'ev1', type: 'queue_rejected', timestamp: '2026-01-02T00:00:00.000Z', data: { artist: 'Ride' } };
    await writeFile(join(dir, 'crateflow.json'), JSON.stringify({
      schema_version: 1,
      queue: {
        q1: item('q1', 'Low', 'pending'),
        // Decided in the other order than listed: the later decision is the newer one.
        q3: item('q3', 'Slowdive', 'approved', '2026-01-03T00:00:00.000Z'),
        q2: item('q2', 'Ride', 'rejected', '2026-01-02T00:00:00.000Z'),
        q4: item('q4', 'Lush', 'approved', '2026-01-01T12:00:00.000Z'),
      },
      wishlist: {
        w1: { id: 'w1', artist: 'Low', album: 'Album', type: 'album', status: 'downloading', added_at: '2026-01-01T00:00:00.000Z' },
        w2: { id: 'w2', artist: 'Lush', album: 'Album', type: 'album', status: 'wanted', added_at: '2026-01-01T12:00:00.000Z' },
      },
      downloads: { d2: download('d2', 'gone', 'completed'), d1: download('d1', 'w1', 'downloading'), d3: download('d3', 'gone-too', 'failed') },
      jobs: {}, journal: {},
      recent_events: [event],
    }));
    const opened = await openAndImport(t, dir);
    assert.deepEqual(opened.result?.counts, {
      pending: 1, approved: 2, rejected: 1, wishlist: 1, waiting: 1, downloads: 1, archived_downloads: 1, jobs: 0, archived_jobs: 0,
      events: 1, undelivered: 0, library_albums: 0, sources: 0, plugin_entries: 0,
    });
    const queue = new QueueTable(opened.store);
    assert.deepEqual(queue.pendingIdsOldestFirst(), ['q1']);
    assert.deepEqual(queue.decidedPage('rejected', { offset: 0 }, 10).items.map((i) => i.id), ['q2']);
    assert.deepEqual(queue.decidedPage('approved', { offset: 0 }, 10).items.map((i) => i.id), ['q3', 'q4']);
    assert.deepEqual(new EventLogTable(opened.store).recent(20).map((e) => e.id), ['ev1']);
    assert.deepEqual(duplicateOf(opened.store, { artist: 'Ride', album: 'Album' }), ['queue', 'rejected']);
    const downloads = new DownloadsTable(opened.store).page({ offset: 0, limit: 10 });
    assert.deepEqual([downloads.total, downloads.items.map((d) => d.id)], [2, ['d1', 'd2']]);
    assert.equal(downloads.items[1]?.download_path, '/music/d2');
    assert.ok(new DownloadsTable(opened.store).isArchived('d2'));
    assert.equal(new WishlistTable(opened.store).isWaiting('w2'), true, 'a wanted item without a download waits');
    assert.deepEqual(await readdir(join(dir, 'pre-sqlite')), ['crateflow.json']);
  });

  it('imports the data dir the service of commit 6a41c8b wrote (one-object snapshots and change logs, everything in the document)', async (t) => {
    const dir = await copyOfFixture(t, 'data-dir-6a41c8b');
    const before = await filesOf(dir);
    const opened = await openAndImport(t, dir);
    // The scenario: 7 items, Split Signals, Double Negative and Heaven or Las Vegas rejected (no restore then), Nowhere,
    // Souvlaki and Watch the Throne approved; after a restart Mojave 3 and Lush added, Lush approved. One download slot:
    // Nowhere is downloading, the other four approved albums and the two added by hand wait. 9 queue_added, 3 rejected,
    // 4 approved events, the last approval not yet taken by the webhooks sink when the service was killed.
    const expected = {
      pending: 2, approved: 4, rejected: 3, wishlist: 1, waiting: 5, downloads: 1, archived_downloads: 0, jobs: 1, archived_jobs: 0,
      events: 16, undelivered: 1, library_albums: 2, sources: 0, plugin_entries: 13,
    };
    assert.deepEqual(opened.result?.counts, expected);
    assert.deepEqual(heldBy(opened.store), expected);
    assert.deepEqual(new QueueTable(opened.store).decidedPage('approved', { offset: 0 }, 10).items.map((i) => i.album), ['Spooky', 'Watch the Throne', 'Souvlaki', 'Nowhere']);
    assert.deepEqual(new EventLogTable(opened.store).undelivered().map(({ sink, event }) => [sink, event.type, event.data.album]), [['webhooks', 'queue_approved', 'Spooky']]);
    assert.deepEqual(duplicateOf(opened.store, { artist: 'Angelo De Augustine & Sufjan Stevens', album: 'A Beginner\u2019s Mind' }), ['library', 'in_library']);
    assert.deepEqual(duplicateOf(opened.store, { artist: 'Low', album: 'Whatever', mbid: '0b6c8b4b-76e1-4e0b-9c8a-6e1d7e1d5a01' }), ['queue', 'rejected'], 'by mbid, any case');
    assert.deepEqual(new JobsTable(opened.store).latest('library_sync')?.status, 'completed');
    assert.deepEqual(await filesOf(join(dir, 'pre-sqlite')), before);
    assert.deepEqual((await readdir(dir)).sort(), NEW_FILES);
  });

  it('imports the data dir the service of commit c086ec1 wrote (snapshot lines, history, waiting list, albums file, change logs)', async (t) => {
    const dir = await copyOfFixture(t, 'data-dir-c086ec1');
    const before = await filesOf(dir);
    const opened = await openAndImport(t, dir);
    // The same scenario; this version restores Heaven or Las Vegas to pending (an R line in the history).
    const expected = {
      pending: 3, approved: 4, rejected: 2, wishlist: 1, waiting: 5, downloads: 1, archived_downloads: 0, jobs: 1, archived_jobs: 0,
      events: 17, undelivered: 1, library_albums: 2, sources: 0, plugin_entries: 14,
    };
    assert.deepEqual(opened.result?.counts, expected);
    assert.deepEqual(heldBy(opened.store), expected);
    const queue = new QueueTable(opened.store);
    assert.equal(queue.statusOf(queue.findPending({ artist: 'Cocteau Twins', album: 'Heaven or Las Vegas' }) ?? ''), 'pending');
    assert.equal(queue.findDecided({ artist: 'Cocteau Twins', album: 'Heaven or Las Vegas' }), undefined, 'the restore withdrew the decision');
    assert.deepEqual(new WishlistTable(opened.store).page(0, 10).items.map((i) => i.album), [
      'Nowhere', 'Spooky', 'On Fire', 'So Tonight That I Might See', 'Watch the Throne', 'Souvlaki',
    ], 'handed off first, then waiting ones latest first');
    assert.deepEqual(new EventLogTable(opened.store).undelivered().map(({ sink, event }) => [sink, event.data.album]), [['webhooks', 'Spooky']]);
    assert.deepEqual(await filesOf(join(dir, 'pre-sqlite')), before);
    assert.deepEqual((await readdir(dir)).sort(), NEW_FILES);
  });
});
