// Every built-in plugin passes the same contract kit third-party authors run (@crateflow/sdk/testing).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventType } from '@crateflow/sdk';
import {
  anonymousRequest,
  ManualClock,
  testAuthContract,
  testDownloadClientContract,
  testEventSinkContract,
  testLibraryContract,
} from '@crateflow/sdk/testing';
import authBasic from '@crateflow/auth-basic';
import authProxy from '@crateflow/auth-proxy';
import blackhole from '@crateflow/download-blackhole';
import slskd from '@crateflow/download-slskd';
import filesystem from '@crateflow/library-filesystem';
import jellyfin from '@crateflow/library-jellyfin';
import subsonic from '@crateflow/library-subsonic';
import webhooks from '@crateflow/sink-webhooks';
import { startFakeJellyfin } from '../fakes/fake-jellyfin.js';
import { startFakeSlskd } from '../fakes/fake-slskd.js';
import { startFakeSubsonic } from '../fakes/fake-subsonic.js';
import { startFakeWebhookReceiver } from '../fakes/fake-webhook-receiver.js';
import { generateAlbums } from '../fakes/generate-albums.js';
import { albumFiles, WANTED } from './download-slskd/slskd-fixtures.js';

const wanted = { id: 'w1', artist: 'Low', album: 'Double Negative', type: 'album' as const };
// Files written during the test carry real modification times, so the manual clock starts at real time.
const realTimeClock = () => ({ clock: new ManualClock(Date.now()) });

async function tempDir(prefix: string): Promise<{ path: string; close(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, close: () => rm(path, { recursive: true, force: true }) };
}

testDownloadClientContract(blackhole, {
  usesCredentials: false,
  wanted,
  get context() {
    return realTimeClock();
  },
  service: async () => {
    const dir = await tempDir('kit-blackhole-');
    return {
      ...dir,
      // The external tool delivers the album folder on the first step.
      step: async () => {
        const folder = join(dir.path, 'complete', 'Low', 'Double Negative');
        await mkdir(folder, { recursive: true });
        await writeFile(join(folder, '01 Quorum.flac'), 'audio');
      },
    };
  },
  config: (dir) => ({ requests_dir: join(dir.path, 'requests'), complete_dir: join(dir.path, 'complete'), quiet_period_ms: 0 }),
});

testDownloadClientContract(slskd, {
  wanted: WANTED,
  pollIntervalMs: 1000,
  maxPolls: 60,
  service: async () => {
    const downloads = await tempDir('kit-slskd-');
    const fake = await startFakeSlskd({ downloadsDir: downloads.path, peers: [{ username: 'peer', files: albumFiles('@@share\\Music\\Low', 'Double Negative', 'flac') }] });
    return {
      url: fake.url,
      apiKey: fake.apiKey,
      downloadsDir: downloads.path,
      rejectCredentials: () => {
        fake.state.apiKeyRevoked = true;
      },
      close: async () => {
        await fake.close();
        await downloads.close();
      },
    };
  },
  config: (fake) => ({ url: fake.url, api_key: fake.apiKey, downloads_dir: fake.downloadsDir }),
});

testLibraryContract(filesystem, {
  minAlbums: 2,
  service: async () => {
    const dir = await tempDir('kit-filesystem-');
    for (const [artist, album] of [['Low', 'Double Negative'], ['Low', 'Hey What'], ['Can', 'Tago Mago']] as const) {
      await mkdir(join(dir.path, artist, album), { recursive: true });
      await writeFile(join(dir.path, artist, album, '01.flac'), 'audio');
    }
    return dir;
  },
  config: (dir) => ({ path: dir.path }),
});

testLibraryContract(subsonic, {
  minAlbums: 1200,
  minPages: 3,
  service: () => startFakeSubsonic({ username: 'kit', password: 'secret', albums: generateAlbums(1200) }),
  config: (fake) => ({ url: fake.url, username: 'kit', password: 'secret' }),
});

testLibraryContract(jellyfin, {
  minAlbums: 1200,
  minPages: 3,
  service: () => startFakeJellyfin({ apiKey: 'kit-key', albums: generateAlbums(1200) }),
  config: (fake) => ({ url: fake.url, api_key: 'kit-key' }),
});

/** The receiver's count once no new request arrived for a moment: the sink sends from its outbox, after deliver(). */
async function settledCount(received: readonly unknown[]): Promise<number> {
  for (let seen = -1, waited = 0; waited < 3000; waited += 150) {
    if (received.length === seen) return seen;
    seen = received.length;
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  return received.length;
}

const kitEvents: EventType[] = ['download_completed', 'queue_approved', 'queue_added'];
testEventSinkContract(webhooks, {
  service: async () => {
    const receiver = await startFakeWebhookReceiver();
    return { url: receiver.url, close: receiver.close, deliveries: () => settledCount(receiver.received) };
  },
  config: (receiver) => [{ name: 'kit', enabled: true, url: receiver.url, secret: 'kit-secret', events: kitEvents, timeout_ms: 2000, retry: 0 }],
});

testAuthContract(authProxy, {
  config: {},
  authenticated: () => ({ ...anonymousRequest(), from_trusted_proxy: true, headers: { 'remote-user': 'alice', 'remote-groups': 'music,admins' } }),
});

testAuthContract(authBasic, {
  config: { username: 'admin', password: 'correct horse battery staple' },
  login: { username: 'admin', password: 'correct horse battery staple' },
});
