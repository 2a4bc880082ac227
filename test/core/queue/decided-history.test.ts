import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { DecidedHistory } from '../../../core/queue/decided-history.js';
import type { QueueItem } from '../../../core/queue/queue-item.schema.js';

const decided = (id: string, artist: string, status: 'approved' | 'rejected'): QueueItem & { status: 'approved' | 'rejected' } => ({
  id, artist, album: 'Tab\there, newline\nthere', type: 'album', source: 'api', status, added_at: '2026-01-01T00:00:00.000Z', decided_at: '2026-01-02T00:00:00.000Z',
});

async function fresh(): Promise<{ path: string; history: DecidedHistory }> {
  const path = join(await mkdtemp(join(tmpdir(), 'crateflow-history-')), 'queue-history.jsonl');
  return { path, history: await DecidedHistory.open(path, 0) };
}

describe('DecidedHistory', () => {
  it('serves a decision staged but not yet flushed from memory, never a half-written line from the file', async () => {
    const { history } = await fresh();
    history.stageDecided(decided('a1', 'Low', 'rejected'));
    const page = await history.page('rejected', 0, 10);
    assert.deepEqual(page.items.map((i) => [i.id, i.album]), [['a1', 'Tab\there, newline\nthere']]);
    await history.flush();
    assert.deepEqual((await history.get('a1'))?.artist, 'Low');
    await history.close();
  });

  it('cuts off lines past the acknowledged length at open, and rebuilds restores and re-decisions', async () => {
    const { path, history } = await fresh();
    history.stageDecided(decided('a1', 'Low', 'rejected'));
    history.stageDecided(decided('a2', 'Ride', 'approved'));
    history.stageRestored(decided('a1', 'Low', 'rejected'));
    history.stageDecided(decided('a1', 'Low', 'approved'));
    await history.flush();
    const acknowledged = history.bytes;
    history.stageDecided(decided('a3', 'Never', 'rejected'));
    await history.flush(); // written, but no commit recorded its length: a crash before the core log append
    await history.close();
    assert.ok((await stat(path)).size > acknowledged);

    const reopened = await DecidedHistory.open(path, acknowledged);
    assert.equal((await stat(path)).size, acknowledged);
    assert.deepEqual((await reopened.page('approved', 0, 10)).items.map((i) => i.id), ['a1', 'a2']);
    assert.equal(reopened.count('rejected'), 0);
    assert.equal(reopened.statusOf('a3'), undefined);
    assert.deepEqual(reopened.find({ artist: 'ride', album: 'Tab here, newline there' })?.id, 'a2');
    await reopened.close();
  });

  it('refuses to open a history shorter than what was acknowledged, naming the file', async () => {
    const { path, history } = await fresh();
    await history.close();
    await writeFile(path, (await readFile(path, 'utf8')) + 'D\tx\trejected\t\t\t{}\n');
    await assert.rejects(DecidedHistory.open(path, 10_000), /queue-history\.jsonl: holds \d+ bytes but 10000 were acknowledged; restore/);
  });

  it('keeps only the key fields of the lines it reads in memory, not the records after them', async () => {
    const { path, history } = await fresh();
    // 2,000 decisions whose records carry 16 KB each (a long description): 32 MB that must stay on disk.
    const filler = 'x'.repeat(16 * 1024);
    for (let i = 0; i < 2000; i++) history.stageDecided({ ...decided(`m${i}`, `Artist ${i}`, 'rejected'), album: `Album ${i}`, reasons: filler } as never);
    await history.flush();
    const acknowledged = history.bytes;
    await history.close();

    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    gc();
    const before = process.memoryUsage().heapUsed;
    const reopened = await DecidedHistory.open(path, acknowledged);
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    assert.equal(reopened.count('rejected'), 2000);
    assert.equal(reopened.find({ artist: 'Artist 1999', album: 'Album 1999' })?.id, 'm1999');
    assert.ok(grown < 8 * 1024 * 1024, `the index of 2,000 lines took ${(grown / 1048576).toFixed(1)} MiB of heap (a slice of each line keeps its record alive)`);
    await reopened.close();
  });

  it('matches the name keys of lines written by earlier versions (artist and album joined by U+241F)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'crateflow-history-old-'));
    const path = join(dir, 'queue-history.jsonl');
    const record = (id: string, artist: string, album: string) => JSON.stringify({ ...decided(id, artist, 'rejected'), album });
    const lines = [
      `D\to1\trejected\t\tlow\u241fdouble negative\t${record('o1', 'Low', 'Double Negative')}\n`,
      `D\to2\trejected\t\tsigur ros\u241fagaetis byrjun\t${record('o2', 'Sigur Rós', 'Ágætis byrjun')}\n`,
    ].join('');
    await writeFile(path, lines);
    const history = await DecidedHistory.open(path, Buffer.byteLength(lines));
    assert.equal(history.find({ artist: 'LOW', album: 'Double Negative (Deluxe Edition)' })?.id, 'o1');
    assert.equal(history.find({ artist: 'Sigur Ros', album: 'Agaetis Byrjun' })?.id, 'o2');
    // A new decision writes the key in today's form, and both kinds of line are read back together.
    history.stageDecided(decided('n1', 'Ride', 'rejected'));
    await history.flush();
    const bytes = history.bytes;
    await history.close();
    const reopened = await DecidedHistory.open(path, bytes);
    assert.deepEqual(['o1', 'n1'].map((id) => reopened.statusOf(id)), ['rejected', 'rejected']);
    assert.equal(reopened.find({ artist: 'ride', album: 'Tab here, newline there' })?.id, 'n1');
    assert.equal(reopened.find({ artist: 'Low', album: 'Double Negative' })?.id, 'o1');
    await reopened.close();
  });

  it('saves its index at shutdown and starts from it, reading only the lines after it, with the same answers', async () => {
    const { path, history } = await fresh();
    for (let i = 0; i < 300; i++) history.stageDecided({ ...decided(`s${i}`, `Artist ${i}`, i % 3 === 0 ? 'approved' : 'rejected'), album: `Album ${i}`, mbid: `5ca1ab1e-0000-4000-8000-${String(i).padStart(12, '0')}` });
    for (let i = 0; i < 300; i += 7) history.stageRestored(decided(`s${i}`, `Artist ${i}`, 'rejected'));
    await history.flush();
    const saved = history.bytes;
    await history.close(saved);
    assert.ok((await stat(`${path}.idx`)).size > 0, 'the index is saved beside the file');

    // Lines written after the save (a crash before the next save): the next start reads just those.
    const more = await DecidedHistory.open(path, saved);
    more.stageDecided(decided('late', 'Slowdive', 'approved'));
    more.stageRestored({ ...decided('s1', 'Artist 1', 'rejected'), album: 'Album 1', mbid: '5ca1ab1e-0000-4000-8000-000000000001' });
    await more.flush();
    const acknowledged = more.bytes;
    await more.close(); // no acknowledged length given: the saved index stays the one of `saved`

    // A damaged first line proves the lines the index covers are not read again (a full read refuses it).
    const text = await readFile(path, 'utf8');
    await writeFile(path, `X${text.slice(1)}`);
    const fromIndex = await DecidedHistory.open(path, acknowledged);
    const answers = async (h: DecidedHistory) => ({
      approved: (await h.page('approved', 0, 500)).items.map((i) => i.id),
      rejected: (await h.page('rejected', 5, 20)).items.map((i) => i.id),
      counts: [h.count('approved'), h.count('rejected')],
      statuses: ['s0', 's1', 's2', 's3', 's7', 's299', 'late', 'none'].map((id) => h.statusOf(id)),
      byName: h.find({ artist: 'artist 12', album: 'ALBUM 12' }),
      byMbid: h.find({ artist: 'x', album: 'y', mbid: '5ca1ab1e-0000-4000-8000-000000000002' }),
      restored: [h.find({ artist: 'Artist 14', album: 'Album 14' }), h.find({ artist: 'Artist 1', album: 'Album 1' })],
      item: (await h.get('s299'))?.album,
    });
    const indexed = await answers(fromIndex);
    await fromIndex.close(acknowledged);
    await writeFile(path, text);
    await rm(`${path}.idx`);
    const read = await DecidedHistory.open(path, acknowledged);
    assert.deepEqual(indexed, await answers(read));
    assert.deepEqual(indexed.statuses, [undefined, undefined, 'rejected', 'approved', undefined, 'rejected', 'approved', undefined]);
    assert.deepEqual(indexed.byMbid, { id: 's2', status: 'rejected' });
    assert.deepEqual(indexed.restored, [undefined, undefined]);
    await read.close();
  });

  it('trusts no saved index that describes unacknowledged lines or another file', async () => {
    const { path, history } = await fresh();
    history.stageDecided(decided('a1', 'Low', 'rejected'));
    await history.flush();
    const acknowledged = history.bytes;
    history.stageDecided(decided('a2', 'Ride', 'rejected'));
    await history.flush();
    await history.close(history.bytes); // saved over a2, whose commit (say) failed

    const reopened = await DecidedHistory.open(path, acknowledged);
    assert.equal(reopened.statusOf('a2'), undefined, 'a2 was never acknowledged');
    assert.equal(reopened.statusOf('a1'), 'rejected');
    reopened.stageDecided(decided('b1', 'Slowdive', 'approved'));
    await reopened.flush();
    const bytes = reopened.bytes;
    await reopened.close(bytes);

    // The file is swapped for another history (a restore from a backup) of the same length: the tail tells.
    const other = (await readFile(path, 'utf8')).replace(/b1/g, 'c1');
    await writeFile(path, other);
    const swapped = await DecidedHistory.open(path, bytes);
    assert.equal(swapped.statusOf('c1'), 'approved');
    assert.equal(swapped.statusOf('b1'), undefined);
    await swapped.close();
  });
});
