import { createHttpClient, type HttpClient } from '@crateflow/sdk';
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createLogger } from '../../../core/logging/create-logger.js';
import { CoverArtStore } from '../../../core/metadata/cover-art-store.js';
import { startFakeCoverArtArchive } from '../../fakes/fake-cover-art-archive.js';
import { eventually } from '../../helpers/api-client.js';
import { ManualClock } from '../../helpers/manual-clock.js';

class Refused extends Error {}

describe('CoverArtStore limits', () => {
  it('refuses a fetch at once when `queued` fetches already wait, and reports every file it writes', async (t) => {
    const fake = await startFakeCoverArtArchive();
    const dataDir = await mkdtemp(join(tmpdir(), 'crateflow-cover-limits-'));
    const real = createHttpClient({ userAgent: 'test', defaultTimeoutMs: 5000 });
    t.after(() => Promise.all([fake.close(), real.close(), rm(dataDir, { recursive: true, force: true })]));
    // Requests wait at this gate until the test opens it, so fetches pile up as they would behind a slow archive.
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const gated: HttpClient = {
      request: async (req) => {
        await gate;
        return real.request(req);
      },
    };
    const stored: [string, number][] = [];
    const store = new CoverArtStore({
      dataDir, http: gated, clock: new ManualClock(), log: createLogger('silent'), userAgent: 'test', baseUrl: fake.url,
      concurrency: 1, queued: 1, refuse: () => new Refused('busy'), onStored: (path, bytes) => stored.push([path, bytes]),
    });
    const [a, b, c, missing] = [
      ...fake.catalogue.releaseGroups.map((group) => group.id).filter((id) => fake.imageOf(id, '250')).slice(0, 3),
      fake.catalogue.releaseGroups.map((group) => group.id).find((id) => !fake.imageOf(id, '250')) ?? '',
    ];
    assert.ok(a && b && c && missing);
    const first = store.get(a, 250);
    const second = store.get(b, 250);
    // Each get looks on disk first, so which one reaches the queue first is up to the file system: wait for both.
    await eventually(() => (store.load.running === 1 && store.load.waiting === 1 ? true : undefined), 5000, 'one fetch running and one waiting');
    await assert.rejects(store.get(c, 250), Refused);
    open();
    const [one, two] = await Promise.all([first, second]);
    assert.ok(one !== 'none' && two !== 'none');
    assert.equal(await store.get(missing, 250), 'none');
    // a and b are fetched one at a time, in the order they reached the limiter (either); the marker comes last.
    const files = stored.map(([path]) => path.slice(store.directory.length + 1));
    assert.deepEqual(files.slice(0, 2).sort(), [`${a}-250.jpg`, `${b}-250.jpg`].sort());
    assert.deepEqual(files.slice(2), [`${missing}.missing`]);
    for (const [path, bytes] of stored) assert.equal((await stat(path)).size, bytes);
  });
});
