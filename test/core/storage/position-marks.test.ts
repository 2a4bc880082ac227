import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PositionMarks } from '../../../core/storage/position-marks.js';
import { seededRandom } from '../../resilience/seeded-random.js';

/** The k-th marked position found by walking, to check the tree against. */
function walk(marked: readonly boolean[], k: number): number {
  let seen = -1;
  for (let position = 0; position < marked.length; position++) if (marked[position] && ++seen === k) return position;
  return -1;
}

describe('PositionMarks', () => {
  it('finds the k-th mark as a walk does, through growth, unmarking and a build from an array', () => {
    const random = seededRandom(17);
    const marks = new PositionMarks();
    const marked: boolean[] = [];
    for (let step = 0; step < 5000; step++) {
      const position = Math.floor(random() * (marked.length + 40)); // past the end too: the tree grows
      if (marked[position]) {
        marks.unmark(position);
        marked[position] = false;
      } else {
        marks.mark(position);
        marked[position] = true;
      }
      if (step % 97 === 0) {
        const total = marked.filter(Boolean).length;
        assert.equal(marks.total, total);
        for (const k of [0, 1, Math.floor(total / 2), total - 1, total, -1]) assert.equal(marks.nth(k), walk(marked, k), `k=${k} after ${step} steps`);
      }
    }
    const bytes = Uint8Array.from(marked, (m) => (m ? 1 : 0));
    const built = PositionMarks.from(bytes, bytes.length);
    assert.equal(built.total, marks.total);
    for (let k = 0; k < built.total; k += 7) assert.equal(built.nth(k), walk(marked, k));
    built.mark(bytes.length + 1000);
    assert.equal(built.nth(built.total - 1), bytes.length + 1000, 'a tree built from an array grows too');
  });
});
