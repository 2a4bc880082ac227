// start-app first: it loads reflect-metadata, which the decorated JobScheduler below needs.
import { startApp, type StartedApp } from '../../helpers/start-app.js';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestContext } from 'node:test';
import type { Download } from '../../../core/downloads/download.schema.js';
import { JobScheduler } from '../../../core/jobs/job-scheduler.js';
import type { WishlistItem } from '../../../core/wishlist/wishlist-item.schema.js';
import { api } from '../../helpers/api-client.js';
import { ManualClock } from '../../helpers/manual-clock.js';

const PLUGIN = fileURLToPath(new URL('../../fixtures/plugins/scripted-downloads.ts', import.meta.url));

export interface Call {
  op: 'request' | 'status' | 'cancel';
  artist?: string;
  ref: string;
}

export interface ScriptedDownloadsApp {
  app: StartedApp;
  clock: ManualClock;
  /** Replaces the client's script: artist → { request?: steps, status?: answers } (see the fixture). */
  script(script: Record<string, { request?: unknown[]; status?: unknown[] }>): Promise<void>;
  /** Every call the server made into the client so far. */
  calls(): Promise<Call[]>;
  /** One run of the download job, as the scheduler makes every `poll_interval`. */
  poll(): Promise<void>;
  want(artist: string, album: string, extra?: Record<string, unknown>): Promise<WishlistItem>;
  downloads(query?: string): Promise<Download[]>;
  wishlistItem(id: string): Promise<WishlistItem | undefined>;
}

/**
 * An app whose download client is the scripted fixture plugin, loaded as a third-party plugin by path, with a
 * manual clock: nothing polls unless the test calls `poll()` or moves the clock.
 */
export async function startScriptedDownloadsApp(t: TestContext, maxActive = 5): Promise<ScriptedDownloadsApp> {
  const clock = new ManualClock(Date.now());
  const scriptDir = await mkdtemp(join(tmpdir(), 'crateflow-script-'));
  const scriptFile = join(scriptDir, 'script.json');
  const callsFile = join(scriptDir, 'calls.jsonl');
  const app = await startApp({
    clock,
    config: {
      download_client: { type: 'scripted-downloads', poll_interval: '1h', max_active: maxActive },
      plugins: [{ use: PLUGIN, config: { script_file: scriptFile, calls_file: callsFile } }],
    },
  });
  t.after(async () => {
    await app.close();
    await rm(scriptDir, { recursive: true, force: true });
  });
  return {
    app,
    clock,
    script: (script) => writeFile(scriptFile, JSON.stringify(script)),
    async calls() {
      const text = await readFile(callsFile, 'utf8').catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return '';
        throw err;
      });
      return text.split('\n').filter(Boolean).map((line): Call => JSON.parse(line));
    },
    poll: () => app.crateflow.container.resolve(JobScheduler).runNow('download_poll'),
    async want(artist, album, extra = {}) {
      const res = await api<WishlistItem>(app.baseUrl, 'POST', '/api/v1/wishlist', { artist, album, ...extra });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body;
    },
    async downloads(query = '') {
      const res = await api<{ items: Download[] }>(app.baseUrl, 'GET', `/api/v1/downloads${query}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.items;
    },
    async wishlistItem(id) {
      const res = await api<{ items: WishlistItem[] }>(app.baseUrl, 'GET', '/api/v1/wishlist?limit=500');
      return res.body.items.find((item) => item.id === id);
    },
  };
}
