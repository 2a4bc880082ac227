import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { bundleCrateflow } from '../../core/build/bundle-crateflow.js';
import { loadConfig } from '../../core/config/load-config.js';
import { startFakeWebhookReceiver } from '../fakes/fake-webhook-receiver.js';
import { api } from '../helpers/api-client.js';
import { REPO_ROOT, waitForListening } from '../helpers/run-service.js';

// `npm start` runs the esbuild bundle, not the TypeScript sources the rest of the suite runs through tsx:
// this proves the bundle carries the built-in plugins, the UI files and the version, and stops cleanly.
describe('the built bundle (npm start)', () => {
  let dir: string;
  let outfile: string;
  let child: ChildProcessWithoutNullStreams;
  let baseUrl: string;
  let receiver: Awaited<ReturnType<typeof startFakeWebhookReceiver>>;

  before(async () => {
    // Inside the repository, as `npm run build` does: the bundle resolves its front-end modules from node_modules.
    await mkdir(join(REPO_ROOT, 'dist'), { recursive: true });
    dir = await mkdtemp(join(REPO_ROOT, 'dist', 'test-'));
    outfile = join(dir, 'crateflow.mjs');
    await bundleCrateflow(outfile);
    receiver = await startFakeWebhookReceiver();
    const config = join(dir, 'config.yaml');
    await writeFile(
      config,
      `server:\n  port: 0\nstorage:\n  dir: ${dir}/data\nlibrary:\n  path: ${dir}/music\n  sync_interval: 1d\ndownload_client:\n  requests_dir: ${dir}/requests\n  complete_dir: ${dir}/complete\n` +
        `webhooks:\n  - name: receiver\n    url: ${receiver.url}\n    secret: bundle-test-secret\n    events: [queue_added]\n`,
    );
    child = spawn(process.execPath, [outfile, '--config', config], { stdio: 'pipe', env: { ...process.env, PORT: '' } });
    const { port } = await waitForListening(child);
    baseUrl = `http://127.0.0.1:${port}`;
  });
  after(async () => {
    if (child.exitCode === null) child.kill('SIGKILL');
    await receiver.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses a bad config exactly as the sources do (the bundle carries its validator compiled at build time)', async () => {
    const bad = join(dir, 'bad.yaml');
    await writeFile(bad, 'server:\n  port: "x"\n  bogus: 1\nlog:\n  level: loud\nwebhooks:\n  - name: 5\n');
    const expected = await loadConfig({ path: bad, explicit: true }, {});
    assert.equal(expected.problems.length, 3, 'the schema finds three problems (the webhooks block is checked by its plugin)');
    const run = spawn(process.execPath, [outfile, '--config', bad], { stdio: 'pipe', env: { ...process.env, PORT: '' } });
    let stderr = '';
    run.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(run, 'exit')) as [number | null];
    assert.equal(code, 1);
    for (const problem of expected.problems) assert.ok(stderr.includes(`${problem.path}: ${problem.message}`), `the bundle names ${problem.path}: ${problem.message}\n${stderr}`);
  });

  it('reads JSON bodies as the sources do: UTF-8 split between packets, a BOM, bad JSON 400, over 1 MiB 413', async () => {
    // The bundle decodes bodies with its own UTF-8 decoder instead of iconv-lite (core/build/bundle-crateflow.ts).
    const artist = 'Sigur Rós ✨';
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify({ artist, album: 'Ágætis byrjun 🎧' }))]);
    const split = bytes.indexOf(Buffer.from('✨')) + 1; // inside the three bytes of ✨
    const added = await postInPieces(`${baseUrl}/api/v1/queue`, [bytes.subarray(0, split), bytes.subarray(split)]);
    assert.equal(added.status, 201, added.text);
    const [item] = (JSON.parse(added.text) as { items: { artist: string; album: string }[] }).items;
    assert.deepEqual([item?.artist, item?.album], [artist, 'Ágætis byrjun 🎧'], 'the BOM dropped, the split character whole');

    const bad = await postInPieces(`${baseUrl}/api/v1/queue`, [Buffer.from('{"artist": ')]);
    assert.equal(bad.status, 400, bad.text);
    assert.match(bad.type, /^application\/problem\+json/);
    const huge = await postInPieces(`${baseUrl}/api/v1/queue`, [Buffer.from(JSON.stringify({ artist: 'x'.repeat(1024 * 1024), album: 'y' }))]);
    assert.equal(huge.status, 413, huge.text);
  });

  it('serves the API with every built-in plugin loaded, the UI, and stops on SIGTERM with exit 0', async () => {
    const health = await api<{ status: string; version: string }>(baseUrl, 'GET', '/health');
    assert.equal(health.status, 200);
    assert.match(health.body.version, /^\d+\.\d+\.\d+/);
    const plugins = await api<{ items: { name: string }[] }>(baseUrl, 'GET', '/api/v1/plugins');
    assert.deepEqual(plugins.body.items.map((p) => p.name).sort(), ['download-blackhole', 'library-filesystem', 'preview-deezer', 'webhooks']);
    const added = await api<{ items: unknown[] }>(baseUrl, 'POST', '/api/v1/queue', { artist: 'Low', album: 'Hey What' });
    assert.equal(added.status, 201);
    const [delivery] = await receiver.waitFor(1, 60_000);
    assert.equal(delivery?.headers['x-webhook-event'], 'queue_added', 'outbound HTTP (undici, loaded on demand) works from the bundle');
    const page = await fetch(`${baseUrl}/queue`, { headers: { accept: 'text/html' } });
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<script type="importmap">/);
    const vendor = await fetch(`${baseUrl}/vendor/preact.mjs`);
    assert.equal(vendor.status, 200, 'front-end modules resolve from the bundle folder');
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    assert.equal(code, 0);
  });

  it('takes a V8 code cache beside the bundle a few seconds into a start, starts from it, and shrugs off a damaged one', async () => {
    const cacheDir = join(dir, '.code-cache');
    const config = join(dir, 'config.yaml');
    const first = spawn(process.execPath, [outfile, '--config', config], { stdio: 'pipe', env: { ...process.env, PORT: '' } });
    await waitForListening(first);
    const cache = await waitForFile(cacheDir, 60_000); // a liveness bound: the cache is written 3 s into the start
    first.kill('SIGTERM');
    await once(first, 'exit');
    const written = await stat(cache);
    assert.ok(written.size > 100_000, `the cache holds the bundle's bytecode (${written.size} bytes)`);
    assert.deepEqual(await readdir(cacheDir), [basename(cache)], 'written whole, then renamed: no partial file is left');

    // A start that V8 accepts the cache for does not write it again (it would after CACHE_AFTER_MS, 3 s).
    const second = spawn(process.execPath, [outfile, '--config', config], { stdio: 'pipe', env: { ...process.env, PORT: '' } });
    const { port } = await waitForListening(second);
    assert.equal((await api(`http://127.0.0.1:${port}`, 'GET', '/health')).status, 200);
    // Code from the cache still imports at run time (undici, on the first outbound request): Node 20 loses a
    // script's own import() callback with a cache, so the bundle imports through its entry.
    assert.equal((await api(`http://127.0.0.1:${port}`, 'POST', '/api/v1/queue', { artist: 'Low', album: 'The Curtain Hits the Cast' })).status, 201);
    const deliveries = await receiver.waitFor(2, 60_000);
    assert.equal(deliveries[1]?.headers['x-webhook-event'], 'queue_added', 'outbound HTTP works from cached code');
    await sleep(3_500);
    assert.equal((await stat(cache)).mtimeMs, written.mtimeMs, 'the cache was used, not refused and rewritten');
    second.kill('SIGTERM');
    assert.deepEqual(await once(second, 'exit'), [0, null]);

    // Damage inside the bytecode, where V8's own header check does not look (it would run it, and crash).
    const damagedBytes = await readFile(cache);
    damagedBytes.fill(0x5a, damagedBytes.length >> 1, (damagedBytes.length >> 1) + 4096);
    await writeFile(cache, damagedBytes);
    const damaged = spawn(process.execPath, [outfile, '--version'], { stdio: 'pipe' });
    let stdout = '';
    damaged.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    assert.deepEqual(await once(damaged, 'exit'), [0, null]);
    assert.match(stdout, /^\d+\.\d+\.\d+/, 'a damaged cache is refused by its checksum and the bundle compiles from source');
  });
});

/** The first file to appear in `folder` (polled), or a failure after `timeoutMs`. */
async function waitForFile(folder: string, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const names = await readdir(folder).catch(() => []);
    const done = names.find((name) => !name.endsWith('.tmp'));
    if (done) return join(folder, done);
    if (Date.now() > deadline) throw new Error(`no file in ${folder} within ${timeoutMs} ms`);
    await sleep(50);
  }
}

/** POSTs `pieces` as JSON, each written separately with a pause between, and returns the answer. */
async function postInPieces(url: string, pieces: Buffer[]): Promise<{ status: number; type: string; text: string }> {
  const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': pieces.reduce((n, p) => n + p.length, 0) } });
  const answer = once(req, 'response');
  for (const piece of pieces) {
    req.write(piece);
    await sleep(20);
  }
  req.end();
  const [res] = (await answer) as [import('node:http').IncomingMessage];
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  return { status: res.statusCode ?? 0, type: String(res.headers['content-type']), text: Buffer.concat(chunks).toString('utf8') };
}
