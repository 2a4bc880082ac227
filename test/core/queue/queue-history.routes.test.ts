import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { QueueItem } from '../../../core/queue/queue-item.schema.js';
import { api, eventually } from '../../helpers/api-client.js';
import { startApp, type StartedApp } from '../../helpers/start-app.js';
import { readDatabase } from '../../helpers/read-stored.js';
import { writeAlbum } from '../../helpers/write-album.js';
import { add, addOne, MBID_A, MBID_B, pending, startQueueApp, wishlist, type Bulk, type Page, type Problem } from './queue-test-app.js';

const byStatus = (app: StartedApp, status: string, query = '') => api<Page<QueueItem>>(app.baseUrl, 'GET', `/api/v1/queue?status=${status}${query}`);

interface DuplicateAnswer {
  items: QueueItem[];
  duplicates: number;
  skipped: { index: number; artist: string; album?: string; duplicate_of: { in: string; id: string; status: string } }[];
}

async function syncLibrary(app: StartedApp): Promise<void> {
  const sync = await api<{ job: { id: string } }>(app.baseUrl, 'POST', '/api/v1/library/sync');
  await eventually(async () => ((await api<{ status: string }>(app.baseUrl, 'GET', `/api/v1/jobs/${sync.body.job.id}`)).body.status === 'completed' ? true : undefined));
}

describe('GET /api/v1/queue?status=', () => {
  it('lists decided items newest decision first, paged, as numbered in the database', async (t) => {
    const { app, clock } = await startQueueApp(t);
    const items: QueueItem[] = [];
    for (let i = 0; i < 7; i++) items.push(await addOne(app, { artist: `Band ${i}`, album: 'Record' }));
    for (const item of items) {
      clock.advance(1000);
      const decision = items.indexOf(item) % 2 === 0 ? 'reject' : 'approve';
      assert.equal((await api(app.baseUrl, 'POST', `/api/v1/queue/${item.id}/${decision}`)).status, 200);
    }
    const rejected = await byStatus(app, 'rejected', '&limit=2');
    assert.deepEqual([rejected.body.total, rejected.body.items.map((i) => i.artist)], [4, ['Band 6', 'Band 4']]);
    const next = await byStatus(app, 'rejected', '&limit=2&offset=2');
    assert.deepEqual(next.body.items.map((i) => [i.artist, i.status]), [['Band 2', 'rejected'], ['Band 0', 'rejected']]);
    const approved = await byStatus(app, 'approved');
    assert.deepEqual(approved.body.items.map((i) => i.artist), ['Band 5', 'Band 3', 'Band 1']);
    assert.ok(approved.body.items.every((i) => i.decided_at), 'decided items carry when');
    assert.equal((await byStatus(app, 'pending')).body.total, 0);
    // Each decision is numbered in the order it was made: the order the lists above follow.
    const decided = readDatabase(app.dataDir, (db) => db.prepare('SELECT id FROM queue_items WHERE decided_seq IS NOT NULL ORDER BY decided_seq').pluck().all());
    assert.deepEqual(decided, items.map((item) => item.id));
  });

  it('pages decided items by the cursor each page gives, unmoved by decisions made meanwhile, to a last page without one', async (t) => {
    const { app, clock } = await startQueueApp(t);
    const items: QueueItem[] = [];
    for (let i = 0; i < 5; i++) items.push(await addOne(app, { artist: `Band ${i}`, album: 'Record' }));
    for (const item of items.slice(0, 4)) {
      clock.advance(1000);
      assert.equal((await api(app.baseUrl, 'POST', `/api/v1/queue/${item.id}/approve`)).status, 200);
    }
    const first = await byStatus(app, 'approved', '&limit=2');
    assert.deepEqual(first.body.items.map((i) => i.artist), ['Band 3', 'Band 2']);
    assert.match(first.body.next_before ?? '', /^[1-9][0-9]*$/);
    // A decision between two pages shifts every offset by one; the cursor still continues where the first page ended.
    assert.equal((await api(app.baseUrl, 'POST', `/api/v1/queue/${items[4]!.id}/approve`)).status, 200);
    const second = await byStatus(app, 'approved', `&limit=2&before=${first.body.next_before}`);
    assert.deepEqual([second.body.total, second.body.items.map((i) => i.artist)], [5, ['Band 1', 'Band 0']]);
    assert.equal(second.body.next_before, undefined, 'the oldest decision ends the history');
    // Offset pages give a cursor too, so a client may start either way.
    assert.equal((await byStatus(app, 'approved', '&limit=4')).body.next_before !== undefined, true);
    assert.equal((await byStatus(app, 'approved', '&limit=5')).body.next_before, undefined);
  });

  it('answers 400 naming the field for a cursor that is malformed, on pending items, or combined with an offset', async (t) => {
    const { app } = await startQueueApp(t);
    for (const [query, field] of [['status=approved&before=abc', 'before'], ['status=approved&before=0', 'before'], ['status=approved&before=1e3', 'before'], ['status=approved&before=99999999999999999999', 'before'], ['status=pending&before=5', 'before'], ['status=rejected&before=5&offset=1', 'offset']] as const) {
      const res = await api<Problem>(app.baseUrl, 'GET', `/api/v1/queue?${query}`);
      assert.equal(res.status, 400, query);
      assert.ok(res.body.errors?.some((e) => e.path.includes(field)), `${query}: ${JSON.stringify(res.body)}`);
    }
  });

  it('answers 400 naming the field for an unknown status', async (t) => {
    const { app } = await startQueueApp(t);
    const res = await api<Problem>(app.baseUrl, 'GET', '/api/v1/queue?status=maybe');
    assert.equal(res.status, 400);
    assert.ok(res.body.errors?.some((e) => e.path.includes('status')), JSON.stringify(res.body));
  });
});

describe('POST /api/v1/queue/:id/restore', () => {
  it('puts a rejected item back into the pending queue, announces it again and lists it no longer as rejected', async (t) => {
    const { app, events } = await startQueueApp(t);
    const item = await addOne(app, { artist: 'Low', album: 'Things We Lost in the Fire', mbid: MBID_A });
    await api(app.baseUrl, 'POST', `/api/v1/queue/${item.id}/reject`);
    const restored = await api<{ item: QueueItem }>(app.baseUrl, 'POST', `/api/v1/queue/${item.id}/restore`);
    assert.equal(restored.status, 200);
    assert.equal(restored.body.item.status, 'pending');
    assert.equal(restored.body.item.decided_at, undefined);
    assert.deepEqual((await pending(app)).body.items.map((i) => i.id), [item.id]);
    assert.equal((await byStatus(app, 'rejected')).body.total, 0);
    assert.equal(events.dataOf('queue_added').length, 2, 'a restored item is announced as added again');
    // And it can be decided again, by mbid too (the index knows it is pending again).
    const approved = await api<Bulk>(app.baseUrl, 'POST', '/api/v1/queue/approve', { mbids: [MBID_A] });
    assert.equal(approved.body.count, 1);
    assert.deepEqual((await byStatus(app, 'approved')).body.items.map((i) => i.id), [item.id]);
  });

  it('answers 409 for an approved or pending item and 404 for an unknown one', async (t) => {
    const { app } = await startQueueApp(t);
    const kept = await addOne(app, { artist: 'Ride', album: 'Nowhere' });
    const approved = await addOne(app, { artist: 'Slowdive', album: 'Souvlaki' });
    await api(app.baseUrl, 'POST', `/api/v1/queue/${approved.id}/approve`);
    const notRejected = await api<Problem & { current_status: string }>(app.baseUrl, 'POST', `/api/v1/queue/${approved.id}/restore`);
    assert.deepEqual([notRejected.status, notRejected.body.current_status], [409, 'approved']);
    const stillPending = await api<Problem & { current_status: string }>(app.baseUrl, 'POST', `/api/v1/queue/${kept.id}/restore`);
    assert.equal(stillPending.status, 409);
    assert.equal((await api(app.baseUrl, 'POST', '/api/v1/queue/nosuchitem0000/restore')).status, 404);
  });

  it('keeps decisions and restores across a restart', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'crateflow-history-'));
    const first = await startApp({ config: { storage: { dir } } });
    const gone = await addOne(first, { artist: 'Codeine', album: 'Frigid Stars' });
    const back = await addOne(first, { artist: 'Bedhead', album: 'WhatFunLifeWas' });
    await api(first.baseUrl, 'POST', '/api/v1/queue/reject', { ids: [gone.id, back.id] });
    await api(first.baseUrl, 'POST', `/api/v1/queue/${back.id}/restore`);
    await first.close();
    const second = await startApp({ config: { storage: { dir } } });
    try {
      assert.deepEqual((await byStatus(second, 'rejected')).body.items.map((i) => i.id), [gone.id]);
      assert.deepEqual((await pending(second)).body.items.map((i) => i.id), [back.id]);
      const again = await add(second, { artist: 'Codeine', album: 'Frigid Stars' });
      assert.equal(again.body.duplicates, 1, 'a rejected album is still known after a restart');
    } finally {
      await second.close();
    }
  });
});

describe('POST /api/v1/queue duplicates', () => {
  it('answers what each duplicate matched: a pending, a rejected or an approved queue item, a wishlist item or an owned album', async (t) => {
    const { app } = await startQueueApp(t);
    const waiting = await addOne(app, { artist: 'Low', album: 'Secret Name', mbid: MBID_A });
    const rejected = await addOne(app, { artist: 'Ride', album: 'Carnival of Light' });
    await api(app.baseUrl, 'POST', `/api/v1/queue/${rejected.id}/reject`);
    const direct = await api<{ id: string }>(app.baseUrl, 'POST', '/api/v1/wishlist', { artist: 'Slowdive', album: 'Pygmalion' });
    await writeAlbum(join(app.dataDir, '..', 'music', 'Mogwai', 'Young Team'));
    await syncLibrary(app);
    const res = await api<DuplicateAnswer>(app.baseUrl, 'POST', '/api/v1/queue', [
      { artist: 'Someone Else', album: 'Anything', mbid: MBID_A },
      { artist: 'ride', album: 'Carnival Of Light' },
      { artist: 'Slowdive', album: 'Pygmalion' },
      { artist: 'Mogwai', album: 'Young Team' },
      { artist: 'New', album: 'Album', mbid: MBID_B },
    ]);
    assert.equal(res.status, 201);
    assert.equal(res.body.duplicates, 4);
    assert.deepEqual(res.body.items.map((i) => i.artist), ['New']);
    assert.deepEqual(
      res.body.skipped.map((s) => [s.index, s.duplicate_of.in, s.duplicate_of.id, s.duplicate_of.status]),
      [
        [0, 'queue', waiting.id, 'pending'],
        [1, 'queue', rejected.id, 'rejected'],
        [2, 'wishlist', direct.body.id, 'wanted'],
        [3, 'library', 'Mogwai — Young Team', 'in_library'],
      ],
    );
  });
});

describe('approving an album the library already has', () => {
  it('approves it without a second download and says so', async (t) => {
    const { app } = await startQueueApp(t);
    const owned = await addOne(app, { artist: 'Broadcast', album: 'Tender Buttons' });
    const wanted = await addOne(app, { artist: 'Stereolab', album: 'Dots and Loops' });
    await writeAlbum(join(app.dataDir, '..', 'music', 'Broadcast', 'Tender Buttons'));
    await syncLibrary(app);
    const bulk = await api<Bulk & { in_library?: number }>(app.baseUrl, 'POST', '/api/v1/queue/approve', { ids: [owned.id, wanted.id] });
    assert.deepEqual([bulk.body.count, bulk.body.in_library], [2, 1]);
    assert.match(bulk.body.message, /1 already in the library/);
    assert.deepEqual((await wishlist(app)).body.items.map((w) => w.artist), ['Stereolab']);
    const decided = await byStatus(app, 'approved');
    assert.deepEqual(decided.body.items.map((i) => [i.artist, i.in_library]), [['Stereolab', undefined], ['Broadcast', true]]);
  });
});

describe('storage.max_items', () => {
  it('answers 507 problem+json past the bound, keeps what it holds, and starts again at the bound', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'crateflow-bound-'));
    const app = await startApp({ config: { storage: { dir, max_items: 100 } } });
    const batch = Array.from({ length: 100 }, (_, i) => ({ artist: `Artist ${i}`, album: 'x'.repeat(500), title: 't'.repeat(500), source: 's'.repeat(100) }));
    assert.equal((await add(app, batch)).status, 201);
    const full = await api<Problem & { limit: number }>(app.baseUrl, 'POST', '/api/v1/queue', { artist: 'One more' });
    assert.equal(full.status, 507);
    assert.equal(full.headers.get('content-type'), 'application/problem+json');
    assert.match(full.body.detail, /storage\.max_items/);
    assert.equal(full.body.limit, 100);
    // Deciding makes room: decided items are history and do not count.
    assert.equal((await api(app.baseUrl, 'POST', '/api/v1/queue/reject', { ids: (await pending(app, '?limit=10')).body.items.map((i) => i.id) })).status, 200);
    assert.equal((await add(app, { artist: 'One more' })).status, 201);
    await app.close();
    const again = await startApp({ config: { storage: { dir, max_items: 100 } } });
    try {
      assert.equal((await pending(again)).body.total, 91);
      assert.equal((await byStatus(again, 'rejected')).body.total, 10);
    } finally {
      await again.close();
    }
  });
});
