import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { ReleaseGroupDetail } from '../../../core/release-groups/release-group-detail.schema.js';
import type { SearchResults } from '../../../core/search/search.schema.js';
import { api } from '../../helpers/api-client.js';
import { fillDisk } from '../../helpers/tmpfs-mount.js';
import { startMetadataApp } from './metadata-test-app.js';

/**
 * Runs `work` while each of `dirs` (cache folders under the app's data dir) is a small full tmpfs, so every write
 * there really fails with ENOSPC (needs root, as tmpfs-mount.ts does). Unmounted before the app's data dir is
 * removed, whatever `work` does.
 */
async function withFullDisks(dirs: readonly string[], work: () => Promise<void>): Promise<void> {
  const mounted: string[] = [];
  try {
    for (const dir of dirs) {
      await mkdir(dir, { recursive: true });
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir]);
      mounted.push(dir);
      await fillDisk(dir);
    }
    await work();
  } finally {
    for (const dir of mounted) execFileSync('umount', ['-l', dir]);
  }
}

describe('caching MusicBrainz answers and covers on a full disk', () => {
  it('still answers searches and album panels (the cache is best-effort) and a cover it cannot store with 503, never 500', async (t) => {
    const { app, album, coverArt, catalogue } = await startMetadataApp(t);
    const cache = join(app.dataDir, 'cache');
    await withFullDisks([join(cache, 'musicbrainz'), join(cache, 'covers')], async () => {
      const search = await api<SearchResults>(app.baseUrl, 'GET', `/api/v1/search?q=${encodeURIComponent(album.title)}`);
      assert.equal(search.status, 200, JSON.stringify(search.body));
      assert.ok(search.body.items.some((item) => item.mbid === album.id));
      const panel = await api<ReleaseGroupDetail>(app.baseUrl, 'GET', `/api/v1/release-groups/${album.id}`);
      assert.equal(panel.status, 200, JSON.stringify(panel.body));

      const withCover = catalogue.releaseGroups.map((group) => group.id).find((id) => coverArt.imageOf(id, '250')) ?? '';
      const cover = await api(app.baseUrl, 'GET', `/api/v1/covers/${withCover}`);
      assert.equal(cover.status, 503, JSON.stringify(cover.body));
      assert.equal(cover.headers.get('content-type'), 'application/problem+json');
      const noCover = catalogue.releaseGroups.map((group) => group.id).find((id) => !coverArt.imageOf(id, '250')) ?? '';
      const missing = await api(app.baseUrl, 'GET', `/api/v1/covers/${noCover}`);
      assert.ok(missing.status === 404 || missing.status === 503, `a cover the archive does not have, not remembered on a full disk: ${missing.status}`);
    });
  });
});
