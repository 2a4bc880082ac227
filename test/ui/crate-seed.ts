import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { MbReleaseGroup } from '../fakes/musicbrainz-catalogue.js';
import { api, eventually } from '../helpers/api-client.js';
import type { StartedApp } from '../helpers/start-app.js';
import { writeAlbum } from '../helpers/write-album.js';

/** Reasons as the discovery sources write them: a chip each on the card. */
export const SIMILAR = {
  kind: 'similar-artists',
  text: 'similar to Boards of Canada, Aphex Twin, Autechre and Plaid',
  refs: ['Boards of Canada', 'Aphex Twin', 'Autechre', 'Plaid'].map((name) => ({ type: 'artist', name })),
};
export const NEW_RELEASE = { kind: 'new-release', text: 'new release by an artist you listen to', refs: [] };

/** The album names of the seeded cards whose flags the tests look for. */
export const OWNED = 'Owned Record';
export const WANTED = 'Wanted Record';
export const REJECTED = 'Second Chance';

/**
 * A queue for the crate view: one pending album per release group of the fake catalogue (scores 0–1, reasons,
 * sources listenbrainz or lastfm), plus three albums that are in the library, on the wishlist and rejected once.
 */
export async function seedCrate(app: StartedApp, groups: readonly MbReleaseGroup[]): Promise<void> {
  const candidates = groups.map((group, i) => ({
    artist: group.credit.map((c) => c.name + c.joinphrase).join('') || 'Unknown',
    album: group.title,
    mbid: group.id,
    year: Number(group.firstReleaseDate.slice(0, 4)) || undefined,
    score: ((i * 37) % 100) / 100,
    source: i % 2 === 0 ? 'listenbrainz' : 'lastfm',
    reasons: i % 2 === 0 ? [SIMILAR] : [NEW_RELEASE],
  }));
  const res = await api(app.baseUrl, 'POST', '/api/v1/queue', [
    ...candidates,
    { artist: 'Flag Artist', album: OWNED, source: 'manual', score: 0.5 },
    { artist: 'Flag Artist', album: WANTED, source: 'manual', score: 0.5 },
    { artist: 'Flag Artist', album: REJECTED, source: 'manual', score: 0.5 },
  ]);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const items = (res.body as { items: { id: string; album?: string }[] }).items;

  await writeAlbum(join(app.dataDir, '..', 'music', 'Flag Artist', OWNED));
  const sync = await api<{ job: { id: string } }>(app.baseUrl, 'POST', '/api/v1/library/sync');
  await eventually(async () => ((await api<{ status: string }>(app.baseUrl, 'GET', `/api/v1/jobs/${sync.body.job.id}`)).body.status === 'completed' ? true : undefined));
  assert.equal((await api(app.baseUrl, 'POST', '/api/v1/wishlist', { artist: 'Flag Artist', album: WANTED })).status, 201);
  const rejected = items.find((i) => i.album === REJECTED);
  assert.ok(rejected);
  assert.equal((await api(app.baseUrl, 'POST', `/api/v1/queue/${rejected.id}/reject`)).status, 200);
  assert.equal((await api(app.baseUrl, 'POST', `/api/v1/queue/${rejected.id}/restore`)).status, 200);
}
