import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HashedKeyTable } from '../../../core/storage/hashed-key-table.js';

describe('HashedKeyTable', () => {
  it('answers like a Map through 20,000 random sets and deletes, growing and shifting runs back', () => {
    const table = new HashedKeyTable();
    const model = new Map<string, number>();
    let seed = 7;
    const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    for (let step = 0; step < 20_000; step++) {
      const key = `key ${Math.floor(random() * 3000)}`;
      if (random() < 0.35) {
        assert.equal(table.delete(key), model.delete(key), `delete ${key} at step ${step}`);
      } else {
        table.set(key, step);
        model.set(key, step);
      }
    }
    assert.equal(table.size, model.size);
    for (let i = 0; i < 3000; i++) assert.equal(table.get(`key ${i}`), model.get(`key ${i}`), `key ${i}`);
  });

  it('deletes a key only from the owner given, and tells keys that differ in one character apart', () => {
    const table = new HashedKeyTable();
    table.set('radiohead\x1fok computer', 1);
    assert.equal(table.delete('radiohead\x1fok computer', 2), false, 'held by another owner');
    assert.equal(table.get('radiohead\x1fok computer'), 1);
    assert.equal(table.get('radiohead\x1fok computes'), undefined);
    assert.equal(table.get('Radiohead\x1fok computer'), undefined);
    assert.equal(table.delete('radiohead\x1fok computer', 1), true);
    assert.equal(table.size, 0);
  });

  it('is rebuilt from its arrays with the same answers, and refuses arrays of another shape', () => {
    const table = new HashedKeyTable();
    for (let i = 0; i < 1000; i++) table.set(`album ${i}`, i);
    const copy = HashedKeyTable.fromArrays({ high: table.arrays.high.slice(), low: table.arrays.low.slice(), values: table.arrays.values.slice() });
    assert.equal(copy.size, 1000);
    for (let i = 0; i < 1000; i++) assert.equal(copy.get(`album ${i}`), i);
    assert.throws(() => HashedKeyTable.fromArrays({ high: new Uint32Array(24), low: new Uint32Array(24), values: new Int32Array(24) }), /not the arrays/);
  });

  it('refuses values it cannot hold', () => {
    const table = new HashedKeyTable();
    assert.throws(() => table.set('a', -1), RangeError);
    assert.throws(() => table.set('a', 2 ** 31), RangeError);
    assert.throws(() => table.set('a', 1.5), RangeError);
  });
});
