// The import of a data dir of 100,000 queue items, in the files the last version before the database wrote
// (test/helpers/write-large-old-data-dir.ts), left as a SIGKILL left them: snapshots with change logs to replay, a
// torn last commit, line files longer than acknowledged. Every count matches what was written, and the time it took
// is printed (measured, never asserted: a loaded machine is slower).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { LibraryTable } from '../../../core/library/library-table.js';
import { QueueTable } from '../../../core/queue/queue-table.js';
import { SqlPluginStorage } from '../../../core/plugins/sql-plugin-storage.js';
import { SourceStateTable } from '../../../core/sources/source-state-table.js';
import { writeLargeOldDataDir } from '../../helpers/write-large-old-data-dir.js';
import { duplicateOf, heldBy, openAndImport, tempDir } from './old-data-dir.js';

const ITEMS = 100_000;

describe('importing a large data dir of an earlier version', () => {
  it(`imports ${ITEMS.toLocaleString('en')} queue items with their wishlist, downloads, jobs, events, library, sources and plugin entries from a service killed mid-commit, every count matching`, async (t) => {
    const dir = join(await tempDir(t, 'crateflow-pre-sqlite-large-'), 'data');
    await mkdir(dir);
    let started = performance.now();
    const written = await writeLargeOldDataDir(dir, ITEMS, { end: 'killed' });
    const writeMs = performance.now() - started;

    started = performance.now();
    const opened = await openAndImport(t, dir);
    const importMs = performance.now() - started;
    t.diagnostic(`old data dir written in ${Math.round(writeMs)} ms; imported in ${Math.round(importMs)} ms (${JSON.stringify(written)})`);
    console.log(`# ${ITEMS} items: old dir written in ${Math.round(writeMs)} ms, imported in ${Math.round(importMs)} ms`);

    assert.deepEqual(opened.result?.counts, written);
    assert.deepEqual(heldBy(opened.store), written);
    assert.equal(written.pending + written.approved + written.rejected, ITEMS);

    const queue = new QueueTable(opened.store);
    // The last item decided twice stands with its later decision; a restored one is pending and matched as such; the
    // approval the torn commit held never happened.
    assert.equal(queue.statusOf('01q000000000000099501'), 'rejected');
    assert.equal(queue.findDecided({ artist: 'Artist 4501', album: 'Album 99501' })?.status, 'rejected');
    assert.deepEqual(duplicateOf(opened.store, { artist: 'Artist 4003', album: 'Album 99003' }), ['queue', 'pending']);
    assert.deepEqual(duplicateOf(opened.store, { artist: 'Artist 4998', album: 'Album 99998' }), ['wishlist', 'wanted']);
    assert.deepEqual(duplicateOf(opened.store, { artist: 'Artist 4990', album: 'Album 99990' }), ['queue', 'pending']);
    assert.deepEqual(duplicateOf(opened.store, { artist: 'x', mbid: '0000000a-0000-4000-8000-000000099502' }), ['wishlist', 'wanted'], 'by mbid, any case');
    assert.deepEqual(duplicateOf(opened.store, { artist: 'owned 7', album: 'OWNED ALBUM 9007' }), ['library', 'in_library']);
    assert.equal(new LibraryTable(opened.store).owns({ artist: 'x', mbid: '00000000-0000-4000-8000-000000009008' }), true);
    // The latest decision first: the decisions were numbered in the order of the history file.
    assert.equal(queue.decidedPage('approved', { offset: 0 }, 1).items[0]?.id, '01q000000000000099998');
    assert.deepEqual(new SourceStateTable(opened.store).get('similar'), { unfinished: true });
    assert.deepEqual([...new SqlPluginStorage(opened.store, 'webhooks').entries('delivery/99')].map(([key]) => key), ['delivery/99', 'delivery/990', 'delivery/991', 'delivery/992', 'delivery/993', 'delivery/994', 'delivery/995', 'delivery/996', 'delivery/997', 'delivery/998', 'delivery/999']);
    assert.deepEqual((await readdir(dir)).filter((name) => !name.startsWith('crateflow.db') && name !== 'crateflow.lock'), ['pre-sqlite'], 'every old file moved');
    assert.ok((await readdir(join(dir, 'pre-sqlite'))).includes('queue-history.jsonl'));
  });
});
