import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import type { DomainEvent } from '@crateflow/sdk';
import { Store } from '../../../core/storage/store.js';
import { EventLogTable, RECENT_EVENTS } from '../../../core/events/event-log-table.js';

async function open(t: TestContext, dir?: string): Promise<{ store: Store; table: EventLogTable; dir: string }> {
  const home = dir ?? (await mkdtemp(join(tmpdir(), 'crateflow-event-log-')));
  const store = await Store.open(home, { exclusive: true });
  t.after(async () => {
    if (store.db.open) await store.close();
  });
  return { store, table: new EventLogTable(store), dir: home };
}

const event = (n: number): DomainEvent => ({ id: `ev-${String(n).padStart(4, '0')}`, type: 'queue_added', timestamp: new Date(Date.UTC(2026, 10, 1, 0, 0, n)).toISOString(), data: { artist: `Artist ${n}` } });

describe('EventLogTable', () => {
  it('keeps an event for each sink until that sink takes it, and resends the rest after a restart, oldest first', async (t) => {
    const { store, table, dir } = await open(t);
    t.after(() => rm(dir, { recursive: true, force: true }));
    await store.change(() => {
      table.record(event(1), ['webhooks', 'ntfy']);
      table.record(event(2), ['webhooks']);
      table.record(event(3), []);
    });
    assert.equal(table.undeliveredCount(), 2);
    assert.equal(table.isPendingFor('ntfy', 'ev-0001'), true);
    assert.equal(table.isPendingFor('ntfy', 'ev-0002'), false);
    await table.acknowledge('webhooks', 'ev-0001');
    assert.equal(table.isPendingFor('webhooks', 'ev-0001'), false);
    await store.close();
    const again = await open(t, dir);
    assert.deepEqual(again.table.undelivered().map(({ sink, event: e }) => `${sink}:${e.id}`), ['ntfy:ev-0001', 'webhooks:ev-0002']);
    assert.deepEqual(again.table.recent(10).map((e) => e.id), ['ev-0003', 'ev-0002', 'ev-0001']);
  });

  it('forgets events past the latest RECENT_EVENTS once every sink has them, never one a sink still waits for', async (t) => {
    const { store, table, dir } = await open(t);
    t.after(() => rm(dir, { recursive: true, force: true }));
    await store.change(() => {
      table.record(event(0), ['webhooks']);
      for (let n = 1; n <= RECENT_EVENTS + 20; n++) table.record(event(n), []);
    });
    assert.equal(table.recent(RECENT_EVENTS).length, RECENT_EVENTS);
    assert.ok(table.get('ev-0000'), 'kept while the sink waits for it');
    assert.equal(table.get('ev-0001'), undefined, 'an old delivered event is gone');
    await table.acknowledge('webhooks', 'ev-0000');
    assert.equal(table.get('ev-0000'), undefined, 'gone once taken');
    assert.equal(Number(store.db.prepare('SELECT count(*) FROM events').pluck().get()), RECENT_EVENTS);
  });

  it('writes an acknowledgement with the next commit someone waits for, not in a transaction of its own', async (t) => {
    const { store, table, dir } = await open(t);
    t.after(() => rm(dir, { recursive: true, force: true }));
    await store.change(() => table.record(event(1), ['webhooks']));
    const before = store.commits.committed;
    const acknowledged = table.acknowledge('webhooks', 'ev-0001');
    const change = store.change(() => table.record(event(2), []));
    await Promise.all([acknowledged, change]);
    assert.equal(store.commits.committed - before, 1, 'one commit for the change and the acknowledgement');
  });
});
