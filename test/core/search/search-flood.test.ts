import type { MusicBrainz, ReleaseGroupHit } from '@crateflow/sdk';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UpstreamUnavailableError } from '../../../core/errors/upstream-unavailable-error.js';
import { createLogger } from '../../../core/logging/create-logger.js';
import type { LibraryTable } from '../../../core/library/library-table.js';
import type { QueueTable } from '../../../core/queue/queue-table.js';
import type { WishlistTable } from '../../../core/wishlist/wishlist-table.js';
import { ReleaseGroupSearch } from '../../../core/search/release-group-search.js';

/** A MusicBrainz whose searches answer (with no hits) only when the test opens the gate: a slow, paced service. */
function gatedMusicBrainz(): { musicbrainz: MusicBrainz; asked: () => number; open: () => void } {
  let asked = 0;
  let release = () => undefined as void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const unused = () => Promise.reject(new Error('not used by search'));
  const musicbrainz: MusicBrainz = {
    async searchReleaseGroups(): Promise<ReleaseGroupHit[]> {
      asked++;
      await gate;
      return [];
    },
    releaseGroupsOfArtist: unused, releaseGroup: unused, recordingReleaseGroups: unused, searchArtists: unused, artist: unused,
  };
  return { musicbrainz, asked: () => asked, open: () => release() };
}

describe('search under a flood', () => {
  it('runs two searches, lets sixteen wait, and refuses the rest at once with a 503 that asks to retry', async () => {
    const { musicbrainz, asked, open } = gatedMusicBrainz();
    // No hit comes back, so the marks (library, queue, wishlist, decisions) are never read.
    const search = new ReleaseGroupSearch({
      musicbrainz, log: createLogger('silent'),
      queue: undefined as unknown as QueueTable, wishlist: undefined as unknown as WishlistTable, library: undefined as unknown as LibraryTable,
    });
    const flood = Array.from({ length: 30 }, (_, i) => search.search(`flood ${i}`, 10).then(() => 'answered' as const, (err: unknown) => err));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(asked(), 2, 'two searches run at once');
    open();
    const outcomes = await Promise.all(flood);
    assert.equal(outcomes.filter((o) => o === 'answered').length, 18);
    const refused = outcomes.filter((o): o is UpstreamUnavailableError => o instanceof UpstreamUnavailableError);
    assert.equal(refused.length, 12);
    assert.equal(refused[0]?.status, 503);
    assert.equal(refused[0]?.retryAfterS, 2);
    assert.equal(asked(), 18, 'the refused searches never reached MusicBrainz');
  });
});
