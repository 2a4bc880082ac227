import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { Store } from '../../../core/storage/store.js';
import { QueueTable } from '../../../core/queue/queue-table.js';
import type { QueueItem } from '../../../core/queue/queue-item.schema.js';

async function open(t: TestContext, dir?: string): Promise<{ store: Store; table: QueueTable; dir: string }> {
  const home = dir ?? (await mkdtemp(join(tmpdir(), 'crateflow-queue-table-')));
  const store = await Store.open(home, { exclusive: true });
  t.after(async () => {
    if (store.db.open) await store.close();
    if (dir === undefined) await rm(home, { recursive: true, force: true });
  });
  return { store, table: new QueueTable(store), dir: home };
}

let serial = 0;
function item(fields: Partial<QueueItem> & Pick<QueueItem, 'artist'>): QueueItem {
  serial++;
  return { id: `01J${String(serial).padStart(8, '0')}`, type: 'album', source: 'test', status: 'pending', added_at: `2026-11-01T00:00:${String(serial % 60).padStart(2, '0')}.000Z`, ...fields };
}

const ids = (page: { items: QueueItem[] }) => page.items.map((i) => i.album);

describe('QueueTable', () => {
  it('pages pending items by every sort, both ways, ties broken by id in the same direction', async (t) => {
    const { store, table } = await open(t);
    const items = [
      item({ artist: 'Beck', album: 'Sea Change', score: 2, year: 2002, added_at: '2026-11-01T00:00:01.000Z' }),
      item({ artist: 'ólafur Arnalds', album: 'Re:member', year: 2018, added_at: '2026-11-01T00:00:02.000Z' }),
      item({ artist: 'Autechre', album: 'Amber', score: 9, added_at: '2026-11-01T00:00:03.000Z' }),
      item({ artist: 'beck', album: 'Odelay', score: 2, year: 1996, added_at: '2026-11-01T00:00:03.000Z' }),
    ];
    await store.change(() => items.forEach((i) => table.insert(i)));
    const page = (sort: 'added_at' | 'score' | 'artist' | 'year', order: 'asc' | 'desc') => ids(table.pendingPage({ sort, order }, 0, 10));
    assert.deepEqual(page('added_at', 'desc'), ['Odelay', 'Amber', 'Re:member', 'Sea Change'], 'same time: the later id first');
    assert.deepEqual(page('added_at', 'asc'), ['Sea Change', 'Re:member', 'Amber', 'Odelay']);
    assert.deepEqual(page('score', 'desc'), ['Amber', 'Odelay', 'Sea Change', 'Re:member'], 'a missing score lowest');
    assert.deepEqual(page('artist', 'asc'), ['Amber', 'Odelay', 'Sea Change', 'Re:member'], 'case and accents do not count; then the album');
    assert.deepEqual(page('year', 'asc'), ['Amber', 'Odelay', 'Sea Change', 'Re:member'], 'a missing year as 0');
    assert.equal(table.pendingPage({ sort: 'added_at', order: 'desc' }, 1, 2).total, 4);
    assert.deepEqual(ids(table.pendingPage({ sort: 'added_at', order: 'desc' }, 1, 2)), ['Amber', 'Re:member']);
  });

  it('filters by source and by word prefixes (with LIKE wildcards taken literally), counting what matches', async (t) => {
    const { store, table } = await open(t);
    await store.change(() => {
      table.insert(item({ artist: 'Low', album: 'Things We Lost in the Fire', source: 'listenbrainz' }));
      table.insert(item({ artist: 'Slowdive', album: 'Souvlaki', source: 'lastfm' }));
      table.insert(item({ artist: '100% Silk', album: 'Under_score', source: 'lastfm' }));
    });
    const search = (q: string, source?: string) => table.pendingPage({ sort: 'added_at', order: 'asc', q, ...(source ? { source } : {}) }, 0, 10);
    assert.deepEqual(ids(search('low')), ['Things We Lost in the Fire'], '"low" finds Low, not Slowdive');
    assert.deepEqual(ids(search('lo fire')), ['Things We Lost in the Fire']);
    assert.equal(search('%').total, 0, 'a % is a character, not a wildcard');
    assert.equal(search('_').total, 0);
    assert.deepEqual(ids(table.pendingPage({ sort: 'added_at', order: 'asc', source: 'lastfm' }, 0, 10)), ['Souvlaki', 'Under_score']);
    assert.equal(table.pendingPage({ sort: 'added_at', order: 'asc', source: 'lastfm' }, 0, 1).total, 2);
    assert.deepEqual(table.pendingSources(), [{ name: 'lastfm', pending: 2 }, { name: 'listenbrainz', pending: 1 }]);
  });

  it('refuses a decision on an item that is not pending, or one that changes more than its status and record', async (t) => {
    const { store, table } = await open(t);
    const pending = item({ artist: 'Stereolab', album: 'Dots and Loops', mbid: 'bbbbbbbb-0000-0000-0000-000000000002' });
    await store.change(() => table.insert(pending));
    const decidedAt = '2026-11-02T00:00:00.000Z';
    await assert.rejects(store.change(() => table.decide({ ...pending, album: 'Emperor Tomato Ketchup', status: 'approved', decided_at: decidedAt })), /changes more than status and record/);
    await assert.rejects(store.change(() => table.decide({ ...pending, mbid: undefined, status: 'approved', decided_at: decidedAt })), /changes more than status and record/);
    assert.deepEqual(table.get(pending.id), pending, 'left as it was');
    await store.change(() => table.decide({ ...pending, status: 'approved', decided_at: decidedAt }));
    await assert.rejects(store.change(() => table.decide({ ...pending, status: 'rejected', decided_at: decidedAt })), /is not pending/);
    assert.equal(table.statusOf(pending.id), 'approved');
  });

  it('numbers decisions, pages them latest first, finds the latest decision on an album, and restores', async (t) => {
    const { store, table } = await open(t);
    const first = item({ artist: 'Boards of Canada & Autechre', album: 'Split Signals', mbid: 'AAAAAAAA-0000-0000-0000-000000000001' });
    const second = item({ artist: 'Can', album: 'Tago Mago' });
    await store.change(() => [first, second].forEach((i) => table.insert(i)));
    await store.change(() => table.decide({ ...second, status: 'rejected', decided_at: '2026-11-02T00:00:00.000Z' }));
    await store.change(() => table.decide({ ...first, status: 'approved', decided_at: '2026-11-02T00:00:01.000Z' }));
    assert.equal(table.count('pending'), 0);
    assert.deepEqual(table.decidedPage('approved', { offset: 0 }, 10).items.map((i) => i.id), [first.id]);
    assert.deepEqual(table.findDecided({ artist: 'x', mbid: 'aaaaaaaa-0000-0000-0000-000000000001' }), { id: first.id, status: 'approved' }, 'by mbid, any case');
    assert.deepEqual(table.findDecided({ artist: 'Autechre and Boards of Canada', album: 'split signals' }), { id: first.id, status: 'approved' }, 'by name, credit as a set');
    await store.change(() => table.restore({ ...second, status: 'pending', rejected_before: true }));
    assert.equal(table.statusOf(second.id), 'pending');
    assert.equal(table.findPending({ artist: 'CAN', album: 'Tago Mago' }), second.id);
    assert.equal(table.findDecided({ artist: 'Can', album: 'Tago Mago' }), undefined);
    assert.equal(table.get(second.id)?.rejected_before, true);
  });

  it('keeps everything across a restart, and a change that throws leaves no row and no count', async (t) => {
    const { store, table, dir } = await open(t);
    const kept = item({ artist: 'Talk Talk', album: 'Spirit of Eden' });
    await store.change(() => table.insert(kept));
    await assert.rejects(store.change(() => {
      table.insert(item({ artist: 'Undone', album: 'Never' }));
      throw new Error('refused');
    }));
    assert.equal(table.count('pending'), 1);
    await store.close();
    const again = await open(t, dir);
    assert.deepEqual(again.table.get(kept.id), kept);
    assert.equal(again.table.count('pending'), 1);
    await again.store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves a first and a deep page of 100,000 pending items and the latest decisions (figures printed)', async (t) => {
    const { store, table } = await open(t);
    const started = performance.now();
    await store.change(() => {
      for (let i = 0; i < 100_000; i++) table.insert(item({ artist: `Artist ${i % 5000}`, album: `Album ${i}`, score: i % 97, source: i % 2 ? 'a' : 'b' }));
    });
    const filled = performance.now();
    const first = table.pendingPage({ sort: 'added_at', order: 'desc' }, 0, 50);
    const firstAt = performance.now();
    const byArtist = table.pendingPage({ sort: 'artist', order: 'asc' }, 0, 50);
    const artistAt = performance.now();
    const deep = table.pendingPage({ sort: 'score', order: 'desc' }, 90_000, 50);
    const deepAt = performance.now();
    assert.equal(first.total, 100_000);
    assert.equal(first.items.length, 50);
    assert.equal(byArtist.items[0]?.artist, 'Artist 0');
    assert.equal(deep.items.length, 50);
    t.diagnostic(`100,000 inserts ${(filled - started).toFixed(0)} ms; first page ${(firstAt - filled).toFixed(1)} ms; by artist ${(artistAt - firstAt).toFixed(1)} ms; page at 90,000 by score ${(deepAt - artistAt).toFixed(1)} ms`);
  });
});
