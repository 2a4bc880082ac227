import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { types } from 'node:util';
import { trackChanges } from '../../../core/storage/track-changes.js';

interface Data {
  queue: Record<string, { id: string; status: string; tags: string[] }>;
  recent: { id: string }[];
}

function setup() {
  const raw: Data = { queue: { a: { id: 'a', status: 'pending', tags: ['x'] }, b: { id: 'b', status: 'pending', tags: [] } }, recent: [{ id: '1' }, { id: '2' }] };
  const touched: string[] = [];
  const view = trackChanges(raw, new Set(['queue']), (field, key) => touched.push(key === undefined ? field : `${field}/${key}`));
  return { raw, view, touched };
}

/** Whether any object reachable from `value` is a Proxy (a view leaked into the raw data). */
function holdsProxy(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (types.isProxy(value)) return true;
  return Object.values(value).some(holdsProxy);
}

describe('trackChanges', () => {
  it('touches the record a write lands in, however deep, and the whole field outside collections', () => {
    const { view, touched } = setup();
    void view.queue.a?.status; // reads touch nothing
    if (view.queue.a) view.queue.a.status = 'approved';
    view.queue.b?.tags.push('y');
    delete view.queue.b;
    view.queue.c = { id: 'c', status: 'pending', tags: [] };
    view.recent.push({ id: '3' });
    assert.deepEqual([...new Set(touched)], ['queue/a', 'queue/b', 'queue/c', 'recent']);
  });

  it('never writes a view into the raw data (array methods, records built from views)', () => {
    const { raw, view } = setup();
    view.recent.splice(0, 1); // reads each element through the proxy and writes it back
    view.recent.sort((x, y) => y.id.localeCompare(x.id));
    const a = view.queue.a;
    if (a) view.queue.copy = { ...a, tags: a.tags }; // a new record holding a member taken from a view
    assert.equal(holdsProxy(raw), false);
    assert.deepEqual(raw.recent, [{ id: '2' }]);
    assert.deepEqual(raw.queue.copy, { id: 'a', status: 'pending', tags: ['x'] });
  });
});
