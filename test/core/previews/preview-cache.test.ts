import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PreviewCache } from '../../../core/previews/preview-cache.js';
import { ManualClock } from '../../helpers/manual-clock.js';

describe('PreviewCache', () => {
  it('answers from memory until the TTL has passed, then fetches again', async () => {
    const clock = new ManualClock();
    const cache = new PreviewCache<string>(clock, 600_000, 10);
    let fetches = 0;
    const fetch = async () => `answer ${++fetches}`;
    assert.equal(await cache.get('album', fetch), 'answer 1');
    await clock.advance(599_999);
    assert.equal(await cache.get('album', fetch), 'answer 1');
    await clock.advance(1);
    assert.equal(await cache.get('album', fetch), 'answer 2');
  });

  it('keeps at most maxEntries albums, letting the least recently asked go first', async () => {
    const cache = new PreviewCache<string>(new ManualClock(), 600_000, 2);
    const fetched: string[] = [];
    const fetch = (key: string) => async () => {
      fetched.push(key);
      return key;
    };
    await cache.get('a', fetch('a'));
    await cache.get('b', fetch('b'));
    await cache.get('a', fetch('a')); // a is now the most recently asked
    await cache.get('c', fetch('c')); // b goes
    assert.equal(cache.size, 2);
    await cache.get('a', fetch('a'));
    await cache.get('b', fetch('b'));
    assert.deepEqual(fetched, ['a', 'b', 'c', 'b']);
  });

  it('shares one fetch between concurrent asks for an album, and remembers no failure', async () => {
    const cache = new PreviewCache<string>(new ManualClock(), 600_000, 10);
    let calls = 0;
    let release: (value: string) => void = () => undefined;
    const slow = () => {
      calls++;
      return new Promise<string>((resolve) => (release = resolve));
    };
    const both = Promise.all([cache.get('album', slow), cache.get('album', slow)]);
    release('tracks');
    assert.deepEqual(await both, ['tracks', 'tracks']);
    assert.equal(calls, 1);

    await assert.rejects(cache.get('other', async () => Promise.reject(new Error('quota'))), /quota/);
    assert.equal(await cache.get('other', async () => 'later'), 'later');
  });
});
