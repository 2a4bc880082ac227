import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { startFakeCoverArtArchive } from '../fakes/fake-cover-art-archive.js';
import { startFakeListenBrainz } from '../fakes/fake-listenbrainz.js';
import { startFakeMusicBrainz } from '../fakes/fake-musicbrainz.js';
import { generateMusicBrainzCatalogue, type MbReleaseGroup, type MusicBrainzCatalogue } from '../fakes/musicbrainz-catalogue.js';
import { listenBrainzUsers } from '../fakes/listenbrainz-users.js';
import { api, eventually } from '../helpers/api-client.js';
import { writeAlbum } from '../helpers/write-album.js';
import { freePort, killAllServiceProcesses, SERVICE_CHILD, startServiceProcess } from '../resilience/service-process.js';
import { writeServiceConfig } from '../resilience/write-service-config.js';

interface Job {
  id: string;
  status: string;
  error?: string;
  summary: Record<string, number>;
}
interface QueueItem {
  artist: string;
  album?: string;
  mbid?: string;
  source: string;
  score?: number;
  cover_url?: string;
  reasons?: { kind: string; text: string; refs: { type: string; name: string }[] }[];
}

after(() => killAllServiceProcesses());

/** The studio album (one credited artist) a recording first appears on, or undefined. */
function studioAlbumOf(catalogue: MusicBrainzCatalogue, recordingId: string): MbReleaseGroup | undefined {
  const recording = catalogue.recording(recordingId);
  const groups = (recording?.releaseIds ?? []).map((id) => catalogue.releaseGroup(catalogue.release(id)?.releaseGroupId ?? ''));
  return groups.find((group) => group?.primaryType === 'Album' && group.secondaryTypes.length === 0 && group.credit.length === 1);
}

describe('discovery on a fresh install', () => {
  it('fills the queue from a ListenBrainz user with covers and reasons, leaves owned albums out, and a re-run adds nothing seen', async (t) => {
    const catalogue = generateMusicBrainzCatalogue();
    const users = listenBrainzUsers(catalogue);
    // MusicBrainz keeps its rate limit on (503 past it), as the real one does; the service's interval fits under it.
    const musicbrainz = await startFakeMusicBrainz({ catalogue, rateLimit: { perSecond: 50, burst: 5 } });
    const listenbrainz = await startFakeListenBrainz({ catalogue, users });
    const coverArt = await startFakeCoverArtArchive({ catalogue, withoutArt: () => false });
    const dir = await mkdtemp(join(tmpdir(), 'crateflow-discovery-'));
    t.after(async () => {
      await Promise.all([musicbrainz.close(), listenbrainz.close(), coverArt.close()]);
      await rm(dir, { recursive: true, force: true });
    });

    // The user already owns the album of their first (unheard) recommendation.
    const rob = users.find((user) => user.name === 'rob');
    const firstUnheard = rob?.recommendations?.find((row) => row.latest_listened_at === null && studioAlbumOf(catalogue, row.recording_mbid));
    const owned = firstUnheard && studioAlbumOf(catalogue, firstUnheard.recording_mbid);
    assert.ok(owned, 'the fake catalogue has a recommended studio album');
    await writeAlbum(join(dir, 'music', owned.credit[0]?.name ?? '', owned.title));

    const port = await freePort();
    const config = await writeServiceConfig(dir, port, {
      replace: {
        metadata: {
          contact: 'https://example.org/crateflow-e2e',
          musicbrainz: { url: musicbrainz.url, request_interval_ms: 25 },
          coverartarchive: { url: coverArt.url },
        },
        sources: [{ name: 'listening', type: 'listenbrainz-recommendations', user: 'rob', listenbrainz_url: listenbrainz.url, schedule: 'manual' }],
      },
    });
    const service = await startServiceProcess({ script: SERVICE_CHILD, args: ['--config', config], port });
    const waitForJob = (id: string) =>
      eventually(async () => {
        const job = (await api<Job>(service.baseUrl, 'GET', `/api/v1/jobs/${id}`)).body;
        return job.status === 'running' ? undefined : job;
      }, 60_000, `job ${id} to end`);

    const sync = await api<{ job: Job }>(service.baseUrl, 'POST', '/api/v1/library/sync');
    assert.equal((await waitForJob(sync.body.job.id)).status, 'completed');

    const first = await api<{ job: Job }>(service.baseUrl, 'POST', '/api/v1/sources/listening/run');
    assert.equal(first.status, 202);
    const firstRun = await waitForJob(first.body.job.id);
    assert.equal(firstRun.status, 'completed', firstRun.error);
    assert.ok((firstRun.summary['added'] ?? 0) > 0, `added ${JSON.stringify(firstRun.summary)}`);

    const pending = await api<{ items: QueueItem[]; total: number }>(service.baseUrl, 'GET', '/api/v1/queue/pending?limit=200');
    assert.equal(pending.body.total, firstRun.summary['added']);
    assert.ok(!pending.body.items.some((item) => item.mbid === owned.id), 'the owned album is not proposed');
    for (const item of pending.body.items) {
      assert.equal(item.source, 'listening');
      assert.ok(item.score !== undefined && item.score > 0 && item.score <= 1, `score ${item.score}`);
      assert.match(item.reasons?.[0]?.text ?? '', /^recommended from your listening: \d+ tracks?$/);
      assert.equal(item.cover_url, `/api/v1/covers/${item.mbid}`);
    }
    // The cover is fetched from the archive once and served by Crateflow.
    const cover = await fetch(`${service.baseUrl}${pending.body.items[0]?.cover_url}?size=250`);
    assert.equal(cover.status, 200);
    assert.equal(cover.headers.get('content-type'), 'image/jpeg');
    assert.ok((await cover.arrayBuffer()).byteLength > 0);

    // Decide one, then run again: nothing already seen comes back.
    const [rejected] = pending.body.items;
    assert.equal((await api(service.baseUrl, 'POST', '/api/v1/queue/reject', { mbids: [rejected?.mbid] })).status, 200);
    const second = await api<{ job: Job }>(service.baseUrl, 'POST', '/api/v1/sources/listening/run');
    const secondRun = await waitForJob(second.body.job.id);
    assert.equal(secondRun.status, 'completed', secondRun.error);
    assert.equal(secondRun.summary['added'], 0, `a re-run added ${JSON.stringify(secondRun.summary)}`);
    const after = await api<{ total: number }>(service.baseUrl, 'GET', '/api/v1/queue/pending?limit=1');
    assert.equal(after.body.total, pending.body.total - 1);
    assert.equal(musicbrainz.refusedForRate, 0, 'the service kept under MusicBrainz\'s rate limit');
    await service.stop();
  });
});
