import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { createLogger } from '../../../core/logging/create-logger.js';
import { MusicBrainzClient } from '../../../core/metadata/musicbrainz-client.js';
import { readVersion } from '../../../core/version.js';
import { listenOnLoopback } from '../../fakes/listen-on-loopback.js';
import { fakeMbid } from '../../fakes/musicbrainz-catalogue.js';
import { startBaitServer } from '../../helpers/bait-server.js';
import { ManualClock } from '../../helpers/manual-clock.js';
import { startApp } from '../../helpers/start-app.js';

/**
 * A hostile mirror configured as `metadata.musicbrainz.url`: every lookup answers 301 to wherever the test says
 * (MusicBrainz itself answers 301 only for a merged MBID, to the same host: shared/reference/musicbrainz-api.md §3).
 */
async function hostileMirror(t: TestContext): Promise<{ url: string; redirectTo(location: string): void }> {
  let location = '';
  const server = await listenOnLoopback(async (req, res) => {
    req.resume();
    res.writeHead(301, { location, 'content-type': 'application/json' });
    res.end('{}');
  });
  t.after(() => server.close());
  return { url: server.origin, redirectTo: (next) => void (location = next) };
}

async function client(t: TestContext, baseUrl: string): Promise<MusicBrainzClient> {
  const dataDir = await mkdtemp(join(tmpdir(), 'crateflow-mb-policy-'));
  const opened = await MusicBrainzClient.open({
    version: readVersion(), contact: 'https://example.org/crateflow-test', dataDir, clock: new ManualClock(), log: createLogger('silent'),
    baseUrl, minIntervalMs: 0, maxAttempts: 1,
  });
  t.after(async () => {
    await opened.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  return opened;
}

describe('MusicBrainz and metadata_policy', () => {
  it('refuses a redirect to another loopback port, [::1], the cloud metadata address or the LAN, and never contacts it', async (t) => {
    const mirror = await hostileMirror(t);
    const musicbrainz = await client(t, mirror.url);
    const local = await startBaitServer({ host: '127.0.0.1', body: '{"name":"secret"}', contentType: 'application/json' });
    const local6 = await startBaitServer({ host: '::1', body: '{"name":"secret"}', contentType: 'application/json' });
    t.after(() => Promise.all([local.close(), local6.close()]));
    const targets = [local.origin, local6.origin, 'http://169.254.169.254', 'http://10.255.255.1'];
    for (const [index, origin] of targets.entries()) {
      mirror.redirectTo(`${origin}/ws/2/artist/${fakeMbid(9, 'merged')}?fmt=json`);
      await assert.rejects(musicbrainz.artist(fakeMbid(8, `asked ${index}`)), /redirected|refused/, origin);
    }
    assert.equal(local.hits + local6.hits, 0);
  });

  it('refuses to start with a MusicBrainz or Cover Art Archive URL in link-local or cloud metadata space, naming the key', async () => {
    await assert.rejects(
      startApp({ config: { metadata: { musicbrainz: { url: 'http://169.254.169.254/' }, coverartarchive: { url: 'http://[fd00:ec2::254]:8080' } } } }),
      (err: unknown) => {
        const text = err instanceof Error ? err.message : '';
        return /metadata\.musicbrainz\.url: "http:\/\/169\.254\.169\.254\/" is refused: link-local/.test(text) &&
          /metadata\.coverartarchive\.url: .* is refused: cloud metadata address/.test(text);
      },
    );
  });

  it('refuses to start with a metadata_policy CIDR that is not one, naming its path', async () => {
    await assert.rejects(startApp({ config: { metadata_policy: { allow_cidrs: ['my-mirror'] } } }), /metadata_policy\.allow_cidrs\[0\]: "my-mirror" is not a CIDR/);
  });
});
