import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import type { DownloadClient } from '@crateflow/sdk';
import type { MemoryStorage } from '@crateflow/sdk/testing';
import slskd from '@crateflow/download-slskd';
import { startFakeSlskd, type FakeSlskd, type FakeSlskdOptions, type FakeSlskdPeer } from '../../fakes/fake-slskd.js';
import { isJsonObject } from '../../fakes/is-json-object.js';
import { createPluginTestContext, type PluginTestContext, type PluginTestContextOptions } from '../../helpers/plugin-test-context.js';

export interface Setup {
  fake: FakeSlskd;
  client: DownloadClient;
  harness: PluginTestContext<unknown>;
  storage: MemoryStorage;
  downloadsDir: string;
  /** Creates the plugin again on the same storage, as after a Crateflow restart. */
  recreate(): Promise<DownloadClient>;
}

export interface SetupOptions {
  fake?: Partial<FakeSlskdOptions>;
  config?: Record<string, unknown>;
  context?: PluginTestContextOptions;
}

/** A quirky fake slskd on loopback with `peers`, a temp downloads dir, and the plugin created against both. */
export async function setup(t: TestContext, peers: FakeSlskdPeer[], options: SetupOptions = {}): Promise<Setup> {
  const downloadsDir = await mkdtemp(join(tmpdir(), 'slskd-downloads-'));
  const fake = await startFakeSlskd({ downloadsDir, peers, ...options.fake });
  // Searches are spaced 10 s apart by default; most tests do not move the clock, so spacing is off unless a test sets it.
  const search = { min_interval_ms: 0, ...(isJsonObject(options.config?.['search']) ? options.config['search'] : {}) };
  const config = { url: fake.url, api_key: fake.apiKey, downloads_dir: downloadsDir, ...options.config, search };
  const harness = createPluginTestContext(slskd, config, options.context);
  const extra: PluginTestContext<unknown>[] = [];
  t.after(async () => {
    await Promise.all([harness.close(), ...extra.map((h) => h.close())]);
    await fake.close();
    await rm(downloadsDir, { recursive: true, force: true });
  });
  return {
    fake,
    client: await slskd.create(harness.context),
    harness,
    storage: harness.context.storage,
    downloadsDir,
    async recreate() {
      // The server's ids stay unique across a restart, so the new instance continues the first one's sequence.
      const { storage, clock, newId } = harness.context;
      const again = createPluginTestContext(slskd, config, { storage, clock, newId });
      extra.push(again);
      return slskd.create(again.context);
    },
  };
}

/** The folder the plugin asks slskd 0.26 to put a download in: `<downloads>/<Artist - Album [ref]>`. */
export function batchFolder(downloadsDir: string, ref: string, name = 'Low - Double Negative'): string {
  return join(downloadsDir, `${name} [${ref}]`);
}

/** Parsed bodies of the POSTs whose path contains `pathPart`, in order. */
export function posted(fake: FakeSlskd, pathPart: string): unknown[] {
  return fake.received.filter((r) => r.method === 'POST' && r.path.includes(pathPart)).map((r): unknown => JSON.parse(r.text));
}

/** The users whose folders were enqueued as 0.26 batches, in order. */
export function batchUsers(fake: FakeSlskd): unknown[] {
  return posted(fake, '/transfers/downloads/batches').map((body) => (isJsonObject(body) ? body['username'] : undefined));
}
