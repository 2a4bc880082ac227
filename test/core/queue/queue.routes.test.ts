import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { WishlistItem } from '../../../core/wishlist/wishlist-item.schema.js';
import { api, eventually } from '../../helpers/api-client.js';
import type { ManualClock } from '../../helpers/manual-clock.js';
import type { StartedApp } from '../../helpers/start-app.js';
import { writeAlbum } from '../../helpers/write-album.js';
import { add, addOne, MBID_A, MBID_B, pending, startQueueApp, wishlist, type Added, type Bulk, type Problem } from './queue-test-app.js';

describe('POST /api/v1/queue', () => {
  it('adds one candidate with defaults filled in and answers 201 with the item', async (t) => {
    const { app, clock } = await startQueueApp(t);
    const res = await add(app, { artist: 'Low', album: 'Double Negative', mbid: MBID_A, score: 0.9, year: 2018 });
    assert.equal(res.status, 201);
    assert.equal(res.body.duplicates, 0);
    assert.equal(res.body.items.length, 1);
    const item = res.body.items[0];
    assert.ok(item);
    assert.match(item.id, /^[a-z0-9]+$/);
    assert.deepEqual({ ...item, id: 'ID' }, {
      id: 'ID', artist: 'Low', album: 'Double Negative', mbid: MBID_A, score: 0.9, year: 2018,
      type: 'album', source: 'api', status: 'pending', added_at: new Date(clock.now()).toISOString(),
    });
  });

  it('adds an array of candidates and fires queue_added for each with artist, album, mbid and the queue id', async (t) => {
    const { app, events } = await startQueueApp(t);
    const res = await add(app, [
      { artist: 'Low', album: 'Double Negative', mbid: MBID_A, source: 'listenbrainz' },
      { artist: 'Slowdive', title: 'Alison' },
    ]);
    assert.equal(res.status, 201);
    assert.deepEqual(res.body.items.map((i) => [i.artist, i.type, i.source]), [['Low', 'album', 'listenbrainz'], ['Slowdive', 'track', 'api']]);
    const [low, slowdive] = res.body.items;
    assert.ok(low && slowdive);
    assert.deepEqual(events.dataOf('queue_added'), [
      { artist: 'Low', album: 'Double Negative', mbid: MBID_A, id: low.id },
      { artist: 'Slowdive', title: 'Alison', type: 'track', id: slowdive.id },
    ]);
  });

  it('accepts 1000 candidates at once and answers 400 naming the body for 1001', async (t) => {
    const { app } = await startQueueApp(t);
    const batch = (n: number) => Array.from({ length: n }, (_, i) => ({ artist: `Artist ${i}`, album: `Album ${i}` }));
    const tooMany = await api<Problem>(app.baseUrl, 'POST', '/api/v1/queue', batch(1001));
    assert.equal(tooMany.status, 400);
    assert.equal(tooMany.headers.get('content-type'), 'application/problem+json');
    assert.ok(tooMany.body.errors?.some((e) => e.path === 'body' && /1000/.test(e.message)), JSON.stringify(tooMany.body.errors));
    assert.equal((await pending(app)).body.total, 0);

    const full = await add(app, batch(1000));
    assert.equal(full.status, 201);
    assert.equal(full.body.items.length, 1000);
    assert.equal((await pending(app)).body.total, 1000);
  });

  it('answers 400 naming the field of a bad candidate inside an array', async (t) => {
    const { app } = await startQueueApp(t);
    const res = await api<Problem>(app.baseUrl, 'POST', '/api/v1/queue', [{ artist: 'Low' }, { album: 'No artist' }]);
    assert.equal(res.status, 400);
    assert.ok(res.body.errors?.some((e) => e.path === 'body[1].artist' && /^is required/.test(e.message)), JSON.stringify(res.body.errors));
    const single = await api<Problem>(app.baseUrl, 'POST', '/api/v1/queue', { artist: 'Low', year: 'soon' });
    assert.equal(single.status, 400);
    assert.ok(single.body.errors?.some((e) => e.path === 'body.year'), JSON.stringify(single.body.errors));
  });

  it('skips a candidate whose mbid is already queued, whatever the case of the mbid, and counts it', async (t) => {
    const { app, events } = await startQueueApp(t);
    await addOne(app, { artist: 'Low', album: 'Double Negative', mbid: MBID_A });
    const again = await add(app, [{ artist: 'Someone Else', album: 'Other Title', mbid: MBID_A.toUpperCase() }, { artist: 'Low', album: 'Ones and Sixes' }]);
    assert.equal(again.status, 201);
    assert.equal(again.body.duplicates, 1);
    assert.deepEqual(again.body.items.map((i) => i.album), ['Ones and Sixes']);
    assert.equal(events.dataOf('queue_added').length, 2);
  });

  it('skips variants of a queued artist + album: case, accents, punctuation, "The", & vs and, edition suffixes', async (t) => {
    const { app } = await startQueueApp(t);
    await addOne(app, { artist: 'The Sigur Rós & Friends', album: 'Ágætis byrjun' });
    const variants = [
      { artist: 'sigur ros and friends', album: 'agaetis byrjun' },
      { artist: 'Sigur Rós & Friends', album: 'Ágætis Byrjun (Deluxe Edition)' },
      { artist: 'SIGUR RÓS AND FRIENDS', album: 'Ágætis byrjun [Remastered 2011]' },
      { artist: 'Sigur-Rós & Friends!', album: 'Ágætis byrjun (2011 Remaster)' },
    ];
    const res = await add(app, variants);
    assert.equal(res.body.duplicates, 4);
    assert.deepEqual(res.body.items, []);
    const live = await add(app, { artist: 'Sigur Rós & Friends', album: 'Ágætis byrjun (Live)' });
    assert.equal(live.body.duplicates, 0, '"(Live)" is a different recording');
  });

  it('skips a candidate that differs only by characters that look like nothing (zero-width space, joiner, byte order mark) or full-width letters', async (t) => {
    const { app } = await startQueueApp(t);
    await addOne(app, { artist: 'Low', album: 'Double Negative' });
    const res = await add(app, [
      { artist: 'Lo\u200bw', album: 'Double Negative' },
      { artist: '\ufeffLow', album: 'Double\u200d Negative\u200b' },
      { artist: 'Ｌｏｗ', album: 'Ｄｏｕｂｌｅ Negative' },
    ]);
    assert.equal(res.status, 201);
    assert.equal(res.body.duplicates, 3);
    assert.deepEqual(res.body.items, []);
    assert.equal((await pending(app)).body.total, 1);
  });

  it('skips a collaboration credited in another order or joined another way (&, and, a comma, feat.)', async (t) => {
    const { app } = await startQueueApp(t);
    await addOne(app, { artist: 'JAY\u2010Z & Kanye West', album: 'Watch the Throne' });
    const res = await add(app, [
      { artist: 'Kanye West & JAY-Z', album: 'Watch the Throne' },
      { artist: 'Kanye West, JAY-Z', album: 'Watch The Throne (Deluxe Edition)' },
      { artist: 'Kanye West and Jay-Z', album: 'Watch the Throne' },
      { artist: 'JAY-Z feat. Kanye West', album: 'Watch the Throne' },
    ]);
    assert.equal(res.body.duplicates, 4);
    const alone = await add(app, { artist: 'JAY-Z', album: 'Watch the Throne' });
    assert.equal(alone.body.duplicates, 0, 'one of the two artists alone is another credit');
  });

  it('answers 400 naming the field for a control character (NUL, line break) in a name, and stores nothing', async (t) => {
    const { app, events } = await startQueueApp(t);
    const single = await api<Problem>(app.baseUrl, 'POST', '/api/v1/queue', { artist: 'Low\u0000', album: 'Double Negative' });
    assert.equal(single.status, 400);
    assert.match(single.headers.get('content-type') ?? '', /^application\/problem\+json/);
    assert.deepEqual(single.body.errors, [{ path: 'body.artist', message: 'must not contain control characters (such as NUL, a tab or a line break)' }]);
    const batch = await api<Problem>(app.baseUrl, 'POST', '/api/v1/queue', [{ artist: 'Ride', album: 'Nowhere' }, { artist: 'Slowdive', album: 'Souv\nlaki' }]);
    assert.equal(batch.status, 400);
    assert.deepEqual(batch.body.errors?.map((e) => e.path), ['body[1].album']);
    assert.equal((await pending(app)).body.total, 0, 'nothing of either request is stored');
    assert.deepEqual(events.dataOf('queue_added'), []);
  });

  it('skips the second of two matching candidates in one batch', async (t) => {
    const { app } = await startQueueApp(t);
    const res = await add(app, [{ artist: 'Low', album: 'Double Negative' }, { artist: 'LOW', album: 'Double Negative (Deluxe Edition)' }]);
    assert.equal(res.body.items.length, 1);
    assert.equal(res.body.duplicates, 1);
  });

  it('skips albums that are on the wishlist, approved, or already rejected', async (t) => {
    const { app } = await startQueueApp(t);
    const created = await api<WishlistItem>(app.baseUrl, 'POST', '/api/v1/wishlist', { artist: 'Low', album: 'Double Negative', mbid: MBID_A });
    assert.equal(created.status, 201);
    const approved = await addOne(app, { artist: 'Slowdive', album: 'Souvlaki' });
    const rejected = await addOne(app, { artist: 'Ride', album: 'Nowhere', mbid: MBID_B });
    assert.equal((await api<Bulk>(app.baseUrl, 'POST', `/api/v1/queue/${approved.id}/approve`)).status, 200);
    assert.equal((await api<Bulk>(app.baseUrl, 'POST', `/api/v1/queue/${rejected.id}/reject`)).status, 200);
    const res = await add(app, [
      { artist: 'low', album: 'double negative' },
      { artist: 'Unknown', album: 'Unknown', mbid: MBID_A },
      { artist: 'Slowdive', album: 'Souvlaki [Remastered 2005]' },
      { artist: 'Ride', album: 'Nowhere (25th Anniversary Edition)' },
      { artist: 'X', album: 'Y', mbid: MBID_B.toUpperCase() },
    ]);
    assert.equal(res.body.duplicates, 5);
    assert.deepEqual(res.body.items, []);
  });

  it('keeps skipping an approved album after its wishlist item is deleted, as it does after a restart', async (t) => {
    const { app } = await startQueueApp(t);
    const item = await addOne(app, { artist: 'Slowdive', album: 'Souvlaki' });
    await api(app.baseUrl, 'POST', `/api/v1/queue/${item.id}/approve`);
    const wanted = (await wishlist(app)).body.items[0];
    assert.ok(wanted);
    assert.equal((await api(app.baseUrl, 'DELETE', `/api/v1/wishlist/${wanted.id}`)).status, 204);
    const res = await add(app, { artist: 'Slowdive', album: 'Souvlaki' });
    assert.equal(res.body.duplicates, 1);
  });

  it('skips albums found in the library by the last sync', async (t) => {
    const { app } = await startQueueApp(t);
    await writeAlbum(join(app.dataDir, '..', 'music', 'The National', 'Boxer'));
    const sync = await api<{ job: { id: string } }>(app.baseUrl, 'POST', '/api/v1/library/sync');
    await eventually(async () => {
      const job = await api<{ status: string }>(app.baseUrl, 'GET', `/api/v1/jobs/${sync.body.job.id}`);
      return job.body.status === 'completed' ? true : undefined;
    });
    const res = await add(app, [{ artist: 'National', album: 'Boxer (Deluxe Edition)' }, { artist: 'The National', album: 'Trouble Will Find Me' }]);
    assert.equal(res.body.duplicates, 1);
    assert.deepEqual(res.body.items.map((i) => i.album), ['Trouble Will Find Me']);
  });
  it('skips an album whose library folder credits the same artists in another order (Sufjan Stevens & Angelo De Augustine)', async (t) => {
    const { app } = await startQueueApp(t);
    await writeAlbum(join(app.dataDir, '..', 'music', 'Sufjan Stevens & Angelo De Augustine', "A Beginner's Mind"));
    const sync = await api<{ job: { id: string } }>(app.baseUrl, 'POST', '/api/v1/library/sync');
    await eventually(async () => {
      const job = await api<{ status: string }>(app.baseUrl, 'GET', `/api/v1/jobs/${sync.body.job.id}`);
      return job.body.status === 'completed' ? true : undefined;
    });
    const res = await api<Added & { skipped: { duplicate_of: { in: string } }[] }>(app.baseUrl, 'POST', '/api/v1/queue', [
      { artist: 'Angelo De Augustine & Sufjan Stevens', album: 'A Beginner\u2019s Mind' },
      { artist: 'Sufjan Stevens', album: 'Carrie & Lowell' },
    ]);
    assert.equal(res.body.duplicates, 1);
    assert.deepEqual(res.body.skipped.map((s) => s.duplicate_of.in), ['library']);
    assert.deepEqual(res.body.items.map((i) => i.album), ['Carrie & Lowell']);
  });
});

describe('GET /api/v1/queue/pending', () => {
  let app: StartedApp;
  let clock: ManualClock;
  const ids: Record<string, string> = {};

  before(async () => {
    ({ app, clock } = await startQueueApp());
    const candidates = [
      { artist: 'Low', album: 'Double Negative', source: 'listenbrainz', score: 0.5, year: 2018 },
      { artist: 'Beach House', album: 'Bloom', source: 'lastfm', score: 0.9, year: 2012 },
      { artist: 'Sigur Rós', album: 'Ágætis byrjun', source: 'listenbrainz', score: 0.7, year: 1999 },
      { artist: 'Cocteau Twins', album: 'Heaven or Las Vegas', source: 'manual', year: 1990 },
      { artist: 'Slowdive', album: 'Souvlaki', source: 'lastfm', score: 0.1 },
      { artist: 'Low', album: 'Things We Lost in the Fire', source: 'lastfm', score: 0.3, year: 2001 },
      { artist: 'Decided', album: 'Already', source: 'lastfm', score: 1 },
    ];
    for (const candidate of candidates) {
      ids[candidate.album] = (await addOne(app, candidate)).id;
      await clock.advance(1000);
    }
    await api(app.baseUrl, 'POST', '/api/v1/queue/approve', { ids: [ids.Already] });
  });
  after(() => app.close());

  const albums = async (query: string) => {
    const res = await pending(app, query);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.items.map((i) => i.album);
  };

  it('lists only pending items, newest first, with limit and offset echoed and an exact total', async () => {
    const res = await pending(app);
    assert.equal(res.body.total, 6);
    assert.equal(res.body.limit, 50);
    assert.equal(res.body.offset, 0);
    assert.deepEqual(res.body.items.map((i) => i.album), ['Things We Lost in the Fire', 'Souvlaki', 'Heaven or Las Vegas', 'Ágætis byrjun', 'Bloom', 'Double Negative']);
  });

  it('pages through the list without gaps or repeats', async () => {
    const first = await pending(app, '?limit=4&offset=0');
    const second = await pending(app, '?limit=4&offset=4');
    const beyond = await pending(app, '?limit=4&offset=8');
    assert.deepEqual([first.body.total, second.body.total, beyond.body.total], [6, 6, 6]);
    assert.equal(first.body.items.length, 4);
    assert.equal(second.body.items.length, 2);
    assert.deepEqual(beyond.body.items, []);
    const seen = [...first.body.items, ...second.body.items].map((i) => i.id);
    assert.equal(new Set(seen).size, 6);
    assert.deepEqual([second.body.limit, second.body.offset], [4, 4]);
  });

  it('sorts by added_at in either order', async () => {
    assert.deepEqual(await albums('?sort=added_at&order=asc'), ['Double Negative', 'Bloom', 'Ágætis byrjun', 'Heaven or Las Vegas', 'Souvlaki', 'Things We Lost in the Fire']);
  });

  it('sorts by score, items without a score counting lowest', async () => {
    assert.deepEqual(await albums('?sort=score'), ['Bloom', 'Ágætis byrjun', 'Double Negative', 'Things We Lost in the Fire', 'Souvlaki', 'Heaven or Las Vegas']);
    assert.deepEqual(await albums('?sort=score&order=asc'), ['Heaven or Las Vegas', 'Souvlaki', 'Things We Lost in the Fire', 'Double Negative', 'Ágætis byrjun', 'Bloom']);
  });

  it('sorts by artist (then album), ignoring case', async () => {
    assert.deepEqual(await albums('?sort=artist&order=asc'), ['Bloom', 'Heaven or Las Vegas', 'Double Negative', 'Things We Lost in the Fire', 'Ágætis byrjun', 'Souvlaki']);
    assert.deepEqual(await albums('?sort=artist&order=desc'), ['Souvlaki', 'Ágætis byrjun', 'Things We Lost in the Fire', 'Double Negative', 'Heaven or Las Vegas', 'Bloom']);
  });

  it('sorts by year, items without a year counting lowest', async () => {
    assert.deepEqual(await albums('?sort=year&order=asc'), ['Souvlaki', 'Heaven or Las Vegas', 'Ágætis byrjun', 'Things We Lost in the Fire', 'Bloom', 'Double Negative']);
    assert.deepEqual(await albums('?sort=year&order=desc'), ['Double Negative', 'Bloom', 'Things We Lost in the Fire', 'Ágætis byrjun', 'Heaven or Las Vegas', 'Souvlaki']);
  });

  it('filters by source with an exact total, and treats an empty source as no filter', async () => {
    const res = await pending(app, '?source=lastfm&sort=added_at&order=asc&limit=1');
    assert.equal(res.body.total, 3);
    assert.deepEqual(res.body.items.map((i) => i.album), ['Bloom']);
    assert.equal((await pending(app, '?source=')).body.total, 6);
    assert.equal((await pending(app, '?source=nowhere')).body.total, 0);
  });

  it('searches with q: every word must appear in artist, album, title or source, accents and case ignored', async () => {
    const low = await pending(app, '?q=LOW&sort=added_at&order=asc');
    assert.equal(low.body.total, 2);
    assert.deepEqual(low.body.items.map((i) => i.album), ['Double Negative', 'Things We Lost in the Fire']);
    assert.deepEqual(await albums('?q=sigur%20agaetis'), ['Ágætis byrjun']);
    assert.deepEqual(await albums('?q=low%20fire'), ['Things We Lost in the Fire']);
    assert.deepEqual(await albums('?q=manual'), ['Heaven or Las Vegas']);
    const combined = await pending(app, '?q=low&source=listenbrainz');
    assert.equal(combined.body.total, 1);
    assert.equal((await pending(app, '?q=already')).body.total, 0, 'decided items are not pending');
  });

  it('answers 400 naming query.limit for a limit of 0 or 501, and accepts 1 and 500', async () => {
    for (const limit of [0, 501]) {
      const res = await api<Problem>(app.baseUrl, 'GET', `/api/v1/queue/pending?limit=${limit}`);
      assert.equal(res.status, 400);
      assert.ok(res.body.errors?.some((e) => e.path === 'query.limit'), JSON.stringify(res.body));
    }
    assert.equal((await pending(app, '?limit=1')).body.items.length, 1);
    assert.equal((await pending(app, '?limit=500')).status, 200);
  });

  it('answers 400 naming the parameter for an unknown sort, order or parameter', async () => {
    for (const [query, path] of [['?sort=title', 'query.sort'], ['?order=up', 'query.order'], ['?offset=-1', 'query.offset'], ['?page=2', 'query']]) {
      const res = await api<Problem>(app.baseUrl, 'GET', `/api/v1/queue/pending${query}`);
      assert.equal(res.status, 400, query);
      assert.ok(res.body.errors?.some((e) => e.path === path), `${query}: ${JSON.stringify(res.body.errors)}`);
    }
  });
});

describe('GET /api/v1/queue/pending between changes', () => {
  it('answers each change at once: a page read before an add, an approval, a rejection or a bulk decision is never served again', async (t) => {
    const { app, clock } = await startQueueApp(t);
    const first = await addOne(app, { artist: 'Low', album: 'Double Negative' });
    await clock.advance(1000);
    const second = await addOne(app, { artist: 'Beach House', album: 'Bloom' });
    const newestFirst = async (query = '') => {
      const res = await pending(app, query);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.match(String(res.headers.get('content-type')), /^application\/json; charset=utf-8$/);
      return [res.body.total, ...res.body.items.map((i) => i.album)];
    };
    assert.deepEqual(await newestFirst(), [2, 'Bloom', 'Double Negative']);
    assert.deepEqual(await newestFirst(), [2, 'Bloom', 'Double Negative'], 'asked twice, the same answer');
    assert.deepEqual(await newestFirst('?limit=1'), [2, 'Bloom'], 'another page of the same view is its own page');

    await clock.advance(1000);
    const third = await addOne(app, { artist: 'Slowdive', album: 'Souvlaki' });
    assert.deepEqual(await newestFirst(), [3, 'Souvlaki', 'Bloom', 'Double Negative']);
    assert.deepEqual(await newestFirst('?limit=1'), [3, 'Souvlaki']);

    assert.equal((await api(app.baseUrl, 'POST', `/api/v1/queue/${second.id}/approve`)).status, 200);
    assert.deepEqual(await newestFirst(), [2, 'Souvlaki', 'Double Negative']);
    assert.equal((await api(app.baseUrl, 'POST', `/api/v1/queue/${third.id}/reject`)).status, 200);
    assert.deepEqual(await newestFirst('?limit=1'), [1, 'Double Negative']);
    assert.equal((await api(app.baseUrl, 'POST', '/api/v1/queue/approve', { ids: [first.id] })).status, 200);
    assert.deepEqual(await newestFirst(), [0]);
    assert.deepEqual(await newestFirst('?limit=1'), [0]);
  });
});
