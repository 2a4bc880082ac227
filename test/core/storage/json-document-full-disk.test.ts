// JsonDocument on a real full file system (a small tmpfs, so this needs root, as CI and our machines run).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { DiscardedChangeError, JsonDocument } from '../../../core/storage/json-document.js';
import { fillDisk, mountTmpfs } from '../../helpers/tmpfs-mount.js';

interface Items {
  items: Record<string, { n: number; pad: string }>;
}

const record = (n: number) => ({ n, pad: 'p'.repeat(300) });

describe('JsonDocument on a full disk', () => {
  it('rolls a failed commit back, rejects the commits queued behind it, keeps appending only changes while it cannot compact, and loses nothing acknowledged', async (t) => {
    const { disk } = await mountTmpfs(t, 'size=256k');
    const path = join(disk, 'doc.json');
    const notices: string[] = [];
    const open = () => JsonDocument.open<Items>(path, () => ({ items: {} }), { collections: ['items'], compactAfterBytes: 1024, notice: (message) => notices.push(message) });
    const doc = await open();
    let rollbacks = 0;
    doc.onRollback(() => void rollbacks++);
    const acked: number[] = [];
    const set = (n: number) => {
      doc.data.items[`r${n}`] = record(n);
      doc.touch('items', `r${n}`);
      return doc.commit();
    };
    for (let n = 0; n < 10; n++) {
      await set(n);
      acked.push(n);
    }
    const filler = await fillDisk(disk);

    // Appends still fit into the log's last page for a while (a snapshot needs new pages and fails), then none fit.
    let n = 10;
    let logBefore = doc.logBytes;
    let grewByChangesOnly = true;
    let refused: number | undefined;
    for (; n < 200 && refused === undefined; n++) {
      try {
        await set(n);
        acked.push(n);
        const grew = doc.logBytes - logBefore;
        if (grew > 1024) grewByChangesOnly = false; // one record is ~350 bytes: more means a re-append of everything
        logBefore = doc.logBytes;
      } catch (err: unknown) {
        assert.match(String(err), /ENOSPC|could not write/);
        refused = n;
      }
    }
    assert.ok(refused !== undefined, 'the disk never filled up');
    assert.ok(grewByChangesOnly, 'a failed compaction made later commits append more than their change');
    assert.ok(notices.some((m) => m.includes('could not fold the change log')), 'the failed compaction was reported');
    assert.ok(notices.filter((m) => m.includes('could not fold')).length <= acked.length - 10, 'compaction is not retried at every commit');
    assert.equal(doc.data.items[`r${refused}`], undefined, 'a refused change is rolled back in memory');
    assert.equal(rollbacks, 1);

    // A change queued behind a write that fails is dropped with it.
    doc.data.items.first = record(-1);
    doc.touch('items', 'first');
    const inFlight = doc.commit();
    await nextTurn();
    doc.data.items.second = record(-2);
    doc.touch('items', 'second');
    const queued = doc.commit();
    await assert.rejects(inFlight);
    await assert.rejects(queued, DiscardedChangeError);
    assert.equal(doc.data.items.first, undefined);
    assert.equal(doc.data.items.second, undefined);

    await rm(filler);
    await set(1000);
    acked.push(1000);
    await doc.close();
    const reopened = await open();
    for (const k of acked) assert.equal(reopened.data.items[`r${k}`]?.n, k, `acknowledged ${k} is missing`);
    assert.equal(reopened.data.items[`r${refused}`], undefined, 'a refused change came back after a reopen');
    assert.equal(reopened.data.items.first, undefined);
    await reopened.close();
  });
});
