import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '@crateflow/sdk';
import { createLogger } from '../../../core/logging/create-logger.js';
import { EventBus } from '../../../core/events/event-bus.js';
import { LoadedPlugins } from '../../../core/plugins/plugin-host.js';
import { CORE_COLLECTIONS, emptyCoreData, type CoreData } from '../../../core/storage/core-data.js';
import { CoreStore } from '../../../core/storage/core-store.js';
import { IndexFile } from '../../../core/storage/index-file.js';
import { JsonDocument } from '../../../core/storage/json-document.js';
import { RecordArchive } from '../../../core/storage/record-archive.js';

interface Rec {
  id: string;
  note: string;
}
const isRec = (value: unknown): value is Rec => typeof value === 'object' && value !== null && typeof Reflect.get(value, 'id') === 'string';
const rec = (id: string): Rec => ({ id, note: `tab\there, newline\nthere, ${id}` });

async function tempDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'crateflow-archive-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Jobs j0..j(n-1): kinds sync/poll alternating, every third failed. */
function stageJobs(archive: RecordArchive, n: number, from = 0): void {
  for (let i = from; i < from + n; i++) archive.stage('jobs', rec(`j${i}`), { kind: i % 2 ? 'poll' : 'sync', status: i % 3 ? 'completed' : 'failed' });
}

const ids = (records: Rec[]) => records.map((r) => r.id);

describe('RecordArchive', () => {
  it('lists by any combination of filter fields, newest first, from memory before the flush and from the file after', async (t) => {
    const archive = await RecordArchive.open(join(await tempDir(t), 'archive.jsonl'), 0);
    t.after(() => archive.close());
    stageJobs(archive, 7);
    archive.stage('downloads', rec('j1'), { state: 'completed' }); // the same id in another collection
    const answers = async () => ({
      all: ids(await archive.page('jobs', {}, 0, 10, isRec)),
      sync: ids(await archive.page('jobs', { kind: 'sync' }, 1, 2, isRec)),
      failed: ids(await archive.page('jobs', { status: 'failed' }, 0, 10, isRec)),
      both: ids(await archive.page('jobs', { status: 'failed', kind: 'poll' }, 0, 10, isRec)),
      counts: [archive.count('jobs'), archive.count('jobs', { kind: 'poll' }), archive.count('downloads', { state: 'completed' }), archive.count('downloads', { state: 'failed' })],
      byId: [(await archive.get('jobs', 'j1', isRec))?.note, (await archive.get('downloads', 'j1', isRec))?.id, await archive.get('jobs', 'nope', isRec)],
    });
    const staged = await answers();
    assert.deepEqual(staged, {
      all: ['j6', 'j5', 'j4', 'j3', 'j2', 'j1', 'j0'],
      sync: ['j4', 'j2'],
      failed: ['j6', 'j3', 'j0'],
      both: ['j3'],
      counts: [7, 3, 1, 0],
      byId: ['tab\there, newline\nthere, j1', 'j1', undefined],
    });
    await archive.flush();
    assert.deepEqual(await answers(), staged);
  });

  it('cuts off lines past the acknowledged length at open, and refuses a file shorter than acknowledged', async (t) => {
    const path = join(await tempDir(t), 'archive.jsonl');
    const archive = await RecordArchive.open(path, 0);
    stageJobs(archive, 3);
    await archive.flush();
    const acknowledged = archive.bytes;
    stageJobs(archive, 2, 3);
    await archive.flush(); // written, but no commit recorded it: a crash before the core log append
    await archive.close();

    const reopened = await RecordArchive.open(path, acknowledged);
    assert.equal((await stat(path)).size, acknowledged);
    assert.deepEqual([reopened.count('jobs'), await reopened.get('jobs', 'j3', isRec)], [3, undefined]);
    await reopened.close();
    await assert.rejects(RecordArchive.open(path, acknowledged + 1), /archive\.jsonl: holds \d+ bytes but \d+ were acknowledged; restore/);
  });

  it('saves its index at shutdown and starts from it, with the same answers as a full read', async (t) => {
    const path = join(await tempDir(t), 'archive.jsonl');
    const archive = await RecordArchive.open(path, 0);
    stageJobs(archive, 500);
    await archive.flush();
    const saved = archive.bytes;
    await archive.close(saved);
    assert.ok((await stat(`${path}.idx`)).size > 0, 'the index is saved beside the file');
    const more = await RecordArchive.open(path, saved);
    more.stage('downloads', rec('late'), { state: 'completed' });
    await more.flush();
    const acknowledged = more.bytes;
    await more.close(); // no acknowledged length: the saved index stays the one of `saved`

    // A damaged first line proves the lines the index covers are not read again (a full read refuses it).
    const text = await readFile(path, 'utf8');
    await writeFile(path, `X${text.slice(1)}`);
    const answers = async (a: RecordArchive) => ({
      page: ids(await a.page('jobs', { kind: 'poll', status: 'failed' }, 3, 4, isRec)),
      counts: [a.count('jobs'), a.count('jobs', { status: 'failed' }), a.count('downloads')],
      late: (await a.get('downloads', 'late', isRec))?.id,
      old: (await a.get('jobs', 'j499', isRec))?.id,
    });
    const fromIndex = await RecordArchive.open(path, acknowledged);
    const indexed = await answers(fromIndex);
    await fromIndex.close();
    await assert.rejects(
      (async () => {
        await rm(`${path}.idx`);
        await RecordArchive.open(path, acknowledged);
      })(),
      /archive\.jsonl: line 1 is not an archived record/,
      'a full read names the damaged line',
    );
    await writeFile(path, text);
    const read = await RecordArchive.open(path, acknowledged);
    t.after(() => read.close());
    assert.deepEqual(indexed, await answers(read));
    assert.deepEqual(indexed, { page: ['j477', 'j471', 'j465', 'j459'], counts: [500, 167, 1], late: 'late', old: 'j499' });
  });

  it('saves the index of what it holds at shutdown even while an earlier save is still being written', async (t) => {
    const path = join(await tempDir(t), 'archive.jsonl');
    const archive = await RecordArchive.open(path, 0);
    const big = (id: string) => ({ id, note: 'x'.repeat(1000) });
    for (let i = 0; i < 5000; i++) archive.stage('downloads', big(`a${i}`), { state: 'completed' });
    await archive.flush();
    archive.committed(archive.bytes); // past 4 MiB since the last save: one starts in the background
    archive.stage('downloads', big('last'), { state: 'completed' });
    await archive.flush();
    const final = archive.bytes;
    await archive.close(final);
    const saved = await new IndexFile<{ covered: number }>(`${path}.idx`).read();
    assert.equal(saved?.meta.covered, final, 'the saved index describes the whole file');
  });

  it('goes back to the last acknowledged state with the core document when a commit fails after its lines were flushed', async (t) => {
    const dir = await tempDir(t);
    const doc = await JsonDocument.open<CoreData>(join(dir, 'crateflow.json'), emptyCoreData, { collections: [...CORE_COLLECTIONS] });
    const plugins = new LoadedPlugins([], undefined, undefined, undefined, []);
    const events = new EventBus(doc, plugins, systemClock(), createLogger('silent'), () => crypto.randomUUID(), 1000);
    const store = await CoreStore.open(doc, events, dir);
    const job = { id: 'kept', kind: 'sync', status: 'completed' as const, trigger: 'manual' as const, started_at: '2026-01-01T00:00:00.000Z', summary: {} };
    await store.mutate((data) => void (data.jobs.kept = job, data.jobs.moved = { ...job, id: 'moved' }));
    await store.mutate((data, _emit, { archive }) => {
      archive.stage('jobs', job, { kind: job.kind, status: job.status });
      delete data.jobs.kept;
    });
    const acknowledged = store.data.archive_bytes;
    assert.ok(acknowledged > 0);

    // The change-log append fails after the archive's lines are on disk (as a full disk would make it).
    let failing = true;
    doc.beforeWrite(async () => {
      if (failing) throw new Error('no space left on device');
    });
    await assert.rejects(
      store.mutate((data, _emit, { archive }) => {
        archive.stage('jobs', { ...job, id: 'moved' }, { kind: job.kind, status: job.status });
        delete data.jobs.moved;
      }),
      /could not be saved/,
    );
    failing = false;
    assert.equal(store.data.archive_bytes, acknowledged);
    assert.equal((await stat(join(dir, 'archive.jsonl'))).size, acknowledged, 'the refused lines are cut off');
    assert.deepEqual([store.archive.count('jobs'), await store.archive.get('jobs', 'moved', isRec), store.data.jobs.moved?.id], [1, undefined, 'moved']);
    await store.close();

    const reopened = await JsonDocument.open<CoreData>(join(dir, 'crateflow.json'), emptyCoreData, { collections: [...CORE_COLLECTIONS] });
    const again = await CoreStore.open(reopened, events, dir);
    t.after(() => again.close());
    assert.deepEqual(ids(await again.archive.page('jobs', {}, 0, 10, isRec)), ['kept']);
    assert.deepEqual(Object.keys(again.data.jobs), ['moved']);
  });
});
