// What the core remembers of each discovery source between runs, in the source_state table.
import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SourceStateTable } from '../../../core/sources/source-state-table.js';
import { ServiceUnavailableError } from '../../../core/errors/service-unavailable-error.js';
import { Store } from '../../../core/storage/store.js';

async function dataDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'crateflow-source-state-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** The store of `dir`, closed after the test unless closed before. */
async function openStore(t: TestContext, dir: string): Promise<{ store: Store; close(): Promise<void> }> {
  const store = await Store.open(dir, { exclusive: true });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await store.close();
  };
  t.after(close);
  return { store, close };
}

describe('SourceStateTable', () => {
  it('records a run started, then completed or failed, keeping what the other steps wrote', async (t) => {
    const { store } = await openStore(t, await dataDir(t));
    const state = new SourceStateTable(store);
    assert.deepEqual(state.get('new-releases'), {}, 'a source never run');
    await state.started('new-releases', 'job-1');
    assert.deepEqual(state.get('new-releases'), { last_job: 'job-1', unfinished: true });
    await state.completed('new-releases', '2026-03-01T10:00:00.000Z');
    assert.deepEqual(state.get('new-releases'), { last_job: 'job-1', unfinished: false, last_completed_at: '2026-03-01T10:00:00.000Z' });
    await state.started('new-releases', 'job-2');
    await state.failed('new-releases');
    assert.deepEqual(state.get('new-releases'), { last_job: 'job-2', unfinished: false, last_completed_at: '2026-03-01T10:00:00.000Z' });
    assert.deepEqual(state.get('similar-artists'), {}, 'sources are apart');
  });

  it('keeps every source across a restart, a run cut short still marked unfinished', async (t) => {
    const dir = await dataDir(t);
    const first = await openStore(t, dir);
    const state = new SourceStateTable(first.store);
    await state.started('a', 'job-a');
    await state.completed('a', '2026-03-01T10:00:00.000Z');
    await state.started('b', 'job-b');
    await first.close();

    const { store } = await openStore(t, dir);
    const again = new SourceStateTable(store);
    assert.deepEqual(again.get('a'), { last_job: 'job-a', unfinished: false, last_completed_at: '2026-03-01T10:00:00.000Z' });
    assert.deepEqual(again.get('b'), { last_job: 'job-b', unfinished: true });
  });

  it('applies updates not awaited one by one in the order they were made', async (t) => {
    const { store } = await openStore(t, await dataDir(t));
    const state = new SourceStateTable(store);
    await Promise.all([state.started('a', 'job-1'), state.completed('a', '2026-03-01T10:00:00.000Z'), state.started('a', 'job-2'), state.started('b', 'job-3')]);
    assert.deepEqual(state.get('a'), { last_job: 'job-2', unfinished: true, last_completed_at: '2026-03-01T10:00:00.000Z' });
    assert.deepEqual(state.get('b'), { last_job: 'job-3', unfinished: true });
  });

  it('rejects an update the database refuses (full) and keeps the record as it was', async (t) => {
    const { store } = await openStore(t, await dataDir(t));
    const state = new SourceStateTable(store);
    await state.started('a', 'job-1');
    const pages = Number(store.db.pragma('page_count', { simple: true }));
    store.db.pragma(`max_page_count = ${pages}`);
    // The name alone outgrows the last page, so SQLite must grow the file and is refused.
    const long = 'x'.repeat(100_000);
    await assert.rejects(Promise.all([state.completed('a', '2026-03-01T10:00:00.000Z'), state.started(long, 'job-2')]), ServiceUnavailableError);
    assert.deepEqual(state.get('a'), { last_job: 'job-1', unfinished: true });
    assert.deepEqual(state.get(long), {});
    store.db.pragma('max_page_count = 1073741823');
    await state.completed('a', '2026-03-01T10:00:00.000Z');
    assert.deepEqual(state.get('a'), { last_job: 'job-1', unfinished: false, last_completed_at: '2026-03-01T10:00:00.000Z' }, 'saved once there is room');
  });
});
