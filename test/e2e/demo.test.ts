import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { api, eventually } from '../helpers/api-client.js';
import { REPO_ROOT } from '../helpers/run-service.js';
import { freePort } from '../resilience/service-process.js';

interface Job {
  id: string;
  status: string;
  error?: string;
  note?: string;
  summary: Record<string, number>;
}
interface QueueItem {
  id: string;
  artist: string;
  album?: string;
  mbid?: string;
}
interface Download {
  wishlist_id: string;
  state: string;
  download_path?: string;
}

// The demo as a person starts it: plain node on the launcher (no tsx, as after npm ci --omit=dev), which bundles
// the demo and its fakes, starts them on loopback and runs the service bundle `npm start` runs. One lean walk
// through the loop a newcomer tries: library, a source run, a preview, an approval, a download, a cover.
describe('npm run demo', { timeout: 300_000 }, () => {
  it('starts a seeded world on loopback where discovery, previews, approvals and downloads work, and stops on SIGINT', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'crateflow-demo-'));
    const port = await freePort();
    const child = spawn(process.execPath, ['demo/start-demo.mjs', 'demo', '--dir', dir, '--port', String(port)], {
      // Its own process group: the launcher runs the service as a child that shares its output pipe, so a failed
      // assertion must stop both, or the orphaned service holds the pipe open and this file never ends.
      cwd: REPO_ROOT, detached: true, stdio: 'pipe', env: { ...process.env, PORT: '', CRATEFLOW_CONFIG: '' },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = once(child, 'exit');
    t.after(async () => {
      if (child.pid !== undefined) killGroup(child.pid);
      await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
    });
    const base = `http://127.0.0.1:${port}`;
    // Liveness only (the first start builds two bundles): a hang fails here instead of at the suite's timeout.
    await eventually(async () => {
      if (child.exitCode !== null) assert.fail(`the demo exited with ${child.exitCode} before answering:\n${output}`);
      return (await fetch(`${base}/health`).catch(() => undefined))?.ok || undefined;
    }, 120_000, 'the demo to answer /health');
    assert.match(output, new RegExp(`open http://127\\.0\\.0\\.1:${port}/`));
    assert.match(output, /MusicBrainz\s+http:\/\/127\.0\.0\.1:\d+/);

    const info = await api<{ notice?: string }>(base, 'GET', '/api/v1/auth/info');
    assert.match(info.body.notice ?? '', /local fakes/);

    const waitForJob = (id: string) => eventually(async () => {
      const job = (await api<Job>(base, 'GET', `/api/v1/jobs/${id}`)).body;
      return job.status === 'running' ? undefined : job;
    }, 60_000, `job ${id} to end`);
    const sync = await api<{ job: Job }>(base, 'POST', '/api/v1/library/sync');
    assert.equal((await waitForJob(sync.body.job.id)).status, 'completed');
    const library = await api<{ total: number }>(base, 'GET', '/api/v1/library?limit=1');
    assert.ok(library.body.total > 0, 'the demo library has albums');

    const sources = await api<{ items: { name: string }[] }>(base, 'GET', '/api/v1/sources');
    assert.deepEqual(sources.body.items.map((s) => s.name), ['listening', 'similar', 'new-releases']);
    const started = await api<{ job: Job }>(base, 'POST', '/api/v1/sources/listening/run');
    assert.equal(started.status, 202);
    const run = await waitForJob(started.body.job.id);
    assert.equal(run.status, 'completed', run.error);
    assert.ok((run.summary['added'] ?? 0) > 0, `added ${JSON.stringify(run.summary)}`);

    const pending = await api<{ items: QueueItem[] }>(base, 'GET', '/api/v1/queue/pending?limit=5');
    const album = pending.body.items[0];
    assert.ok(album?.mbid, 'a proposed album with an mbid');
    const cover = await fetch(`${base}/api/v1/covers/${album.mbid}?size=250`);
    assert.ok(cover.status === 200 || cover.status === 404, `cover ${cover.status}`);
    const previews = await api<{ tracks: { preview_url?: string }[] }>(base, 'GET', `/api/v1/previews?mbid=${album.mbid}`);
    assert.equal(previews.status, 200, JSON.stringify(previews.body));
    const preview = previews.body.tracks.find((track) => track.preview_url)?.preview_url;
    assert.ok(preview, `a track with a preview: ${JSON.stringify(previews.body).slice(0, 1500)}`);
    assert.equal((await fetch(preview)).status, 200, 'the preview plays from the fake CDN');

    const approved = await api(base, 'POST', `/api/v1/queue/${album.id}/approve`);
    assert.equal(approved.status, 200);
    const done = await eventually(async () => {
      const downloads = (await api<{ items: Download[] }>(base, 'GET', '/api/v1/downloads')).body.items;
      const failed = downloads.find((d) => d.state === 'failed');
      if (failed) assert.fail(`the download failed: ${JSON.stringify(failed)}`);
      return downloads.find((d) => d.state === 'completed');
    }, 120_000, 'the approved album to download from the fake Soulseek network');
    const path = done.download_path ?? '';
    assert.ok(path.startsWith(join(dir, 'downloads')), `download_path ${path}`);
    assert.ok((await readdir(path)).length > 0, 'the files are there');

    child.kill('SIGINT');
    const [code] = await exited;
    assert.equal(code, 0, output);
  });
});

function killGroup(group: number): void {
  try {
    process.kill(-group, 'SIGKILL');
  } catch (err: unknown) {
    // ESRCH: the demo and its service have both exited already.
    if (!(err instanceof Error && 'code' in err && err.code === 'ESRCH')) throw err;
  }
}
