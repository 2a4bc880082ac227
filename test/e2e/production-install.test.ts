import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { eventually } from '../helpers/api-client.js';
import { REPO_ROOT, waitForListening } from '../helpers/run-service.js';
import { freePort } from '../resilience/service-process.js';

const run = promisify(execFile);
const DEV_ONLY = ['tsx', 'typescript', 'playwright-core', 'node-red', 'autocannon'];

/** `npm start` as a user runs it, in its own process group so that stopping it stops npm's child too. */
async function npmStart(cwd: string, config: string): Promise<{ stderr: string; port: number; stop(): Promise<void> }> {
  const child = spawn('npm', ['start', '--silent', '--', '--config', config], { cwd, detached: true, stdio: 'pipe', env: { ...process.env, PORT: '' } });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // A liveness bound only, to fail a hung start rather than wait for the suite timeout: how fast `npm start` listens
  // is measured by bench/startup.bench.ts, because a loaded machine makes any tighter bound here flaky (issue #27).
  const { port } = await waitForListening(child, 120_000);
  return {
    port,
    get stderr() {
      return stderr;
    },
    async stop() {
      if (child.pid === undefined || child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(-child.pid, 'SIGTERM');
      await exited;
    },
  };
}

/**
 * The install compiles better-sqlite3 (no prebuilt binary can be fetched offline): some 150 s of C and C++ on a
 * busy 2-core machine, every run, as neither npm nor node-gyp caches a build. With ccache on this machine (CI
 * installs it) node-gyp's compilers go through it: the same sources with the same flags give the same objects
 * from its cache (about 15 s), and anything that differs is compiled for real. Without ccache, nothing changes.
 */
async function withCompilerCache(env: NodeJS.ProcessEnv, clone: string): Promise<NodeJS.ProcessEnv> {
  const found = await run('sh', ['-c', 'command -v ccache']).then(() => true, () => false);
  // Each run clones into a new temp folder: paths under it are hashed as relative ones (BASEDIR), and the working
  // folder is left out of the hash (only debug info names it), or no run would ever hit the previous one's objects.
  return found ? { ...env, CC: 'ccache cc', CXX: 'ccache g++', CCACHE_BASEDIR: clone, CCACHE_NOHASHDIR: 'true' } : env;
}

// One lean test on purpose: a production install takes a while. A fresh clone of this repository, installed the
// way a server is (`npm ci --omit=dev`), must start with `npm start`, and a second start must not build again.
describe('a production install (git clone, npm ci --omit=dev, npm start)', { timeout: 600_000 }, () => {
  let dir: string;
  let clone: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'crateflow-prod-'));
    clone = join(dir, 'crateflow');
    await run('git', ['clone', '--quiet', REPO_ROOT, clone]);
    await run('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: clone, env: await withCompilerCache(process.env, clone), maxBuffer: 16 * 1024 * 1024 });
  });
  after(async () => {
    // npm exits as soon as it has forwarded SIGTERM; the service may still be flushing its store for a moment.
    if (dir) await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  });

  it('starts without development tools, builds once, and starts again without building', async () => {
    for (const name of DEV_ONLY) assert.ok(!existsSync(join(clone, 'node_modules', name)), `${name} is installed by npm ci --omit=dev`);
    const config = join(dir, 'config.yaml');
    await writeFile(config, `server:\n  port: 0\nstorage:\n  dir: ${dir}/data\n`);

    const first = await npmStart(clone, config);
    try {
      const health = await fetch(`http://127.0.0.1:${first.port}/health`);
      assert.equal(health.status, 200);
      assert.match(first.stderr, /built dist\/crateflow\.mjs/);
    } finally {
      await first.stop();
    }
    // A plugin written against the sdk, outside the bundle, can import it with plain node.
    const sdk = await run(process.execPath, ['--input-type=module', '-e', "import { definePlugin } from '@crateflow/sdk'; console.log(typeof definePlugin);"], { cwd: clone });
    assert.equal(sdk.stdout.trim(), 'function');

    const second = await npmStart(clone, config);
    await second.stop();
    assert.doesNotMatch(second.stderr, /built/, 'nothing changed, nothing is built');
  });

  it('runs the offline demo (npm run demo) without development tools', async () => {
    const port = await freePort();
    const child = spawn('npm', ['run', 'demo', '--silent', '--', '--port', String(port), '--dir', join(dir, 'demo')], { cwd: clone, detached: true, stdio: 'pipe', env: { ...process.env, PORT: '' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      // A liveness bound only (the demo bundles itself first), to fail a hang instead of waiting for the suite.
      const info = await eventually(async () => {
        if (child.exitCode !== null) assert.fail(`the demo exited with ${child.exitCode}:\n${output}`);
        const res = await fetch(`http://127.0.0.1:${port}/api/v1/auth/info`).catch(() => undefined);
        return res?.ok ? ((await res.json()) as { notice?: string }) : undefined;
      }, 120_000, 'the demo to answer');
      assert.match(info.notice ?? '', /local fakes/);
      const sources = (await (await fetch(`http://127.0.0.1:${port}/api/v1/sources`)).json()) as { items: { name: string }[] };
      assert.equal(sources.items.length, 3);
    } finally {
      if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGINT');
      await exited;
    }
  });
});
