import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { JsonDocument } from '../../../core/storage/json-document.js';

interface Doc {
  items: Record<string, { id: string; source: string; note: string }>;
}

describe('shared record values', () => {
  it('keeps one copy of a repeated field value however many records hold it, from the snapshot and the log alike', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'crateflow-shared-values-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const path = join(dir, 'doc.json');
    // 20,000 records with the same 400-character source: 8 MB of heap as parsed (a copy per record), 400 bytes
    // shared. `note` repeats as well but is not named, so it stays as parsed.
    const source = 's'.repeat(400);
    const doc = await JsonDocument.open<Doc>(path, () => ({ items: {} }), { collections: ['items'] });
    for (let i = 0; i < 20_000; i++) {
      doc.data.items[`i${i}`] = { id: `i${i}`, source, note: 'n' };
      doc.touch('items', `i${i}`);
      if (i === 9_999) await doc.compact(); // half in the snapshot, half in the change log
    }
    await doc.commit();
    // Two copies of the files as a crash would leave them (the log not folded in), one opened each way.
    const copies = [join(dir, 'apart'), join(dir, 'shared')];
    for (const copy of copies) {
      await mkdir(copy);
      for (const file of ['doc.json', 'doc.json.changes']) await copyFile(join(dir, file), join(copy, file));
    }
    await doc.close();

    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const heapOf = async (copy: string, sharedFields: string[]) => {
      gc();
      const before = process.memoryUsage().heapUsed;
      const opened = await JsonDocument.open<Doc>(join(copy, 'doc.json'), () => ({ items: {} }), { collections: ['items'], sharedFields });
      gc();
      const grown = process.memoryUsage().heapUsed - before;
      assert.equal(Object.keys(opened.data.items).length, 20_000);
      assert.equal(opened.data.items['i19999']?.source, source);
      await opened.close();
      return grown;
    };
    const apart = await heapOf(join(dir, 'apart'), []);
    const shared = await heapOf(join(dir, 'shared'), ['source']);
    assert.ok(apart - shared > 6 * 1024 * 1024, `sharing saved ${((apart - shared) / 1048576).toFixed(1)} MiB of ${(apart / 1048576).toFixed(1)} MiB`);
  });
});
