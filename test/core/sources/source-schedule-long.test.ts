import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startFakeCoverArtArchive } from '../../fakes/fake-cover-art-archive.js';
import { startFakeListenBrainz } from '../../fakes/fake-listenbrainz.js';
import { startFakeMusicBrainz } from '../../fakes/fake-musicbrainz.js';
import { generateMusicBrainzCatalogue } from '../../fakes/musicbrainz-catalogue.js';
import { api, eventually } from '../../helpers/api-client.js';
import { startApp } from '../../helpers/start-app.js';

interface SourceView {
  name: string;
  running: { id: string } | null;
  last_run: { id: string; status: string; error?: string } | null;
  next_run_at: string | null;
}

const DAY = 86_400_000;
// How long the test watches for runs that should not happen: a schedule handed whole to setTimeout fires after
// 1 ms and runs again as each run ends, so the broken schedule called ListenBrainz dozens of times in this window.
const WATCH_MS = 200;

describe('source schedule longer than one Node timer (2^31 − 1 ms)', () => {
  for (const schedule of ['30d', '365d']) {
    it(`runs a source with schedule ${schedule} once at start-up, then plans it ${schedule} later and does not run it again`, async (t) => {
      const warnings: Error[] = [];
      const onWarning = (warning: Error) => warnings.push(warning);
      process.on('warning', onWarning);
      t.after(() => process.off('warning', onWarning));

      const catalogue = generateMusicBrainzCatalogue();
      const musicbrainz = await startFakeMusicBrainz({ catalogue, rateLimit: false });
      const listenbrainz = await startFakeListenBrainz({ catalogue });
      const coverArt = await startFakeCoverArtArchive({ catalogue });
      t.after(() => Promise.all([musicbrainz.close(), listenbrainz.close(), coverArt.close()]));
      // The real clock: the overflow is a property of Node's timers, which a manual clock does not have.
      const app = await startApp({
        config: {
          metadata: {
            contact: 'crateflow-tests@example.org',
            musicbrainz: { url: musicbrainz.url, request_interval_ms: 0 },
            coverartarchive: { url: coverArt.url },
          },
          sources: [{ name: 'listening', type: 'listenbrainz-recommendations', user: 'rob', listenbrainz_url: listenbrainz.url, schedule }],
        },
      });
      t.after(() => app.close());

      const view = async (): Promise<SourceView> => {
        const { body } = await api<{ items: SourceView[] }>(app.baseUrl, 'GET', '/api/v1/sources');
        const found = body.items.find((s) => s.name === 'listening');
        assert.ok(found, 'GET /api/v1/sources lists the source');
        return found;
      };
      // A source that never ran makes its first run once the server listens; the next is planned as it ends.
      const first = await eventually(async () => {
        const current = await view();
        return current.last_run && current.last_run.status !== 'running' && !current.running && current.next_run_at !== null ? current : undefined;
      }, 30_000, 'the start-up run to end');
      assert.equal(first.last_run?.status, 'completed', first.last_run?.error);
      const callsOfOneRun = listenbrainz.received.length;
      assert.ok(callsOfOneRun > 0, 'the run asked ListenBrainz');

      await new Promise<void>((resolve) => setTimeout(resolve, WATCH_MS));

      assert.equal(listenbrainz.received.length, callsOfOneRun, `ListenBrainz was called again within ${WATCH_MS} ms`);
      const after = await view();
      assert.equal(after.running, null);
      assert.equal(after.last_run?.id, first.last_run?.id, 'no second run started');
      const planned = Date.parse(after.next_run_at ?? '');
      const interval = Number.parseInt(schedule, 10) * DAY;
      // Planned one interval after the run ended (which was before now), so within the interval from now.
      assert.ok(planned <= Date.now() + interval && planned > Date.now() + interval - 60_000, `next_run_at ${after.next_run_at}`);
      assert.deepEqual(warnings.filter((w) => w.name === 'TimeoutOverflowWarning').map((w) => w.message), []);
    });
  }
});
