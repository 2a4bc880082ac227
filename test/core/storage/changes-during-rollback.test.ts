// Changes made while a failed write is being undone. The rollback reads the document back from disk, which takes
// a while on a large document; meanwhile other writers go on (the event bus marks deliveries, requests mutate).
// Found by the full-disk resilience test: an add made in that window was answered 201 but never stored.
import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { systemClock } from '@crateflow/sdk';
import { createLogger } from '../../../core/logging/create-logger.js';
import { EventBus } from '../../../core/events/event-bus.js';
import type { Job } from '../../../core/jobs/job.schema.js';
import { LoadedPlugins } from '../../../core/plugins/plugin-host.js';
import { CORE_COLLECTIONS, emptyCoreData, type CoreData } from '../../../core/storage/core-data.js';
import { CoreStore } from '../../../core/storage/core-store.js';
import { DiscardedChangeError, JsonDocument } from '../../../core/storage/json-document.js';

// Enough records that reading the document back spans many turns of the event loop.
const RECORDS = 5000;

interface Items {
  items: Record<string, { n: number; pad: string }>;
}

async function tempDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'crateflow-rollback-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Makes the next write fail as a full disk would (before its change-log append). */
function failNextWrite<T extends object>(doc: JsonDocument<T>): void {
  let armed = true;
  doc.beforeWrite(async () => {
    if (!armed) return;
    armed = false;
    throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
  });
}

/** Waits until a rollback of `doc` is under way. */
async function untilRollingBack<T extends object>(doc: JsonDocument<T>): Promise<void> {
  for (let turns = 0; !doc.rollingBack; turns++) {
    assert.ok(turns < 10_000, 'no rollback started');
    await nextTurn();
  }
}

const job = (id: string): Job => ({ id, kind: 'sync', status: 'completed', trigger: 'manual', started_at: '2026-01-01T00:00:00.000Z', summary: {} });

describe('changes made while a failed write is undone', () => {
  it('a document refuses a commit whose change went into the data being thrown away, instead of acknowledging it as a deletion', async (t) => {
    const path = join(await tempDir(t), 'doc.json');
    const open = () => JsonDocument.open<Items>(path, () => ({ items: {} }), { collections: ['items'] });
    const doc = await open();
    for (let n = 0; n < RECORDS; n++) doc.data.items[`r${n}`] = { n, pad: 'p'.repeat(100) };
    await doc.commit(); // nothing touched: a snapshot
    failNextWrite(doc);

    doc.data.items.refused = { n: -1, pad: '' };
    doc.touch('items', 'refused');
    const failing = doc.commit();
    const thrownAway = doc.data;
    await untilRollingBack(doc);
    assert.equal(doc.data, thrownAway, 'the data is still being read back');
    doc.data.items.during = { n: -2, pad: '' };
    doc.touch('items', 'during');
    const during = doc.commit();

    await assert.rejects(failing, /could not write/);
    await assert.rejects(during, DiscardedChangeError);
    assert.equal(doc.data.items.during, undefined, 'not served');
    assert.equal(doc.data.items.refused, undefined);
    doc.data.items.after = { n: -3, pad: '' };
    doc.touch('items', 'after');
    await doc.commit();
    await doc.close();

    const reopened = await open();
    t.after(() => reopened.close());
    assert.deepEqual([reopened.data.items.refused, reopened.data.items.during, reopened.data.items.after?.n], [undefined, undefined, -3]);
    assert.equal(Object.keys(reopened.data.items).length, RECORDS + 1);
  });

  it('the core store makes a mutation that arrives during a rollback on the data read back, and keeps it', async (t) => {
    const dir = await tempDir(t);
    const open = () => JsonDocument.open<CoreData>(join(dir, 'crateflow.json'), emptyCoreData, { collections: [...CORE_COLLECTIONS] });
    const doc = await open();
    const events = new EventBus(doc, new LoadedPlugins([], undefined, undefined, undefined, []), systemClock(), createLogger('silent'), () => crypto.randomUUID(), 1000);
    const store = await CoreStore.open(doc, events, dir);
    await store.mutate((data) => {
      for (let n = 0; n < RECORDS; n++) data.jobs[`j${n}`] = job(`j${n}`);
    });
    failNextWrite(doc);

    const failing = store.mutate((data) => void (data.jobs.refused = job('refused')));
    await untilRollingBack(doc);
    const during = store.mutate((data, _emit, { archive }) => {
      // Staged while the archive is cut back would have landed at a stale offset.
      archive.stage('jobs', job('archived'), { kind: 'sync', status: 'completed' });
      data.jobs.during = job('during');
    });

    await assert.rejects(failing, /could not be saved/);
    await during;
    assert.equal(store.data.jobs.during?.id, 'during', 'served');
    assert.equal(store.data.jobs.refused, undefined);
    await store.close();
    await doc.close();

    const reopened = await open();
    const again = await CoreStore.open(reopened, events, dir);
    t.after(async () => {
      await again.close();
      await reopened.close();
    });
    assert.deepEqual([again.data.jobs.during?.id, again.data.jobs.refused, Object.keys(again.data.jobs).length], ['during', undefined, RECORDS + 1]);
    assert.equal((await again.archive.get('jobs', 'archived', (v): v is Job => typeof v === 'object'))?.id, 'archived');
  });
});
