import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { parse, stringify } from 'yaml';
import { startScriptNodeFlags } from '../../core/build/start-script-node-flags.js';
import { buildRecipe, dockerfileArgs, listTree, type RuntimeImage } from '../helpers/dockerfile-recipe.js';
import { rawRequest } from '../helpers/raw-request.js';
import { REPO_ROOT, waitForListening } from '../helpers/run-service.js';
import { DATABASE_FILE } from '../../core/storage/store.js';
import { SQLITE_DRIVER_PACKAGE } from '../../core/sqlite/sqlite-driver.js';
import { readRecords } from '../helpers/read-stored.js';

const run = promisify(execFile);
const isRoot = process.getuid?.() === 0;
// Root on CI: the service runs as `nobody`, like the image's unprivileged `node` user, so a write anywhere but
// /data fails as it would in the container. Not root: the service runs as us, on a tree made read-only.
const SERVICE_USER = isRoot ? { uid: 65534, gid: 65534 } : { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };

// No container engine runs on our machines, so no image is built: this carries out the Dockerfile's own
// instructions (test/helpers/dockerfile-recipe.ts) in a temp folder, then runs the image's CMD as an unprivileged
// user and its HEALTHCHECK. What it cannot show: that the base image and the final `docker build` behave alike.
describe('the container recipe (Dockerfile)', { timeout: 300_000 }, () => {
  let dir: string;
  let image: RuntimeImage;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'crateflow-container-'));
    await chmod(dir, 0o755); // mkdtemp makes it 0700; the service user must reach the image tree inside
    image = await buildRecipe({
      dockerfile: join(REPO_ROOT, 'Dockerfile'),
      context: REPO_ROOT,
      root: join(dir, 'image'),
      serviceUser: SERVICE_USER,
      // The npm cache this machine already holds; the RUN line itself is the Dockerfile's, unchanged.
      env: { npm_config_prefer_offline: 'true' },
    });
    // Root-owned in the image, so the service user cannot write there; for a non-root run, read-only does that.
    if (!isRoot) await run('chmod', ['-R', 'a-w', join(image.root, 'app')]);
  });
  after(async () => {
    if (dir && !isRoot) await run('chmod', ['-R', 'u+w', dir]);
    if (dir) await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
  });

  it('describes an unprivileged service with /data and /config volumes, its config in CRATEFLOW_CONFIG and a Node health check', async () => {
    assert.ok(image.user && image.user !== 'root' && image.user !== '0', `runs as ${image.user ?? 'root'}`);
    assert.deepEqual(image.volumes.sort(), ['/config', '/data']);
    assert.equal(image.env.CRATEFLOW_CONFIG, '/config/config.yaml');
    assert.deepEqual(image.exposed, ['8080']);
    assert.equal(image.healthcheck[0], 'node', 'slim images have no curl');
    assert.deepEqual(image.cmd, ['node', ...(await startScriptNodeFlags()), 'dist/crateflow.mjs'], 'the image runs the bundle with the node flags of npm start');
    // The image's Node is one CI runs the whole suite on.
    const ci = await readFile(join(REPO_ROOT, '.ci', 'run'), 'utf8');
    const versions = /^NODE_VERSIONS="([^"]*)"/m.exec(ci)?.[1]?.split(/\s+/) ?? [];
    assert.ok(versions.includes(dockerfileArgs(await readFile(join(REPO_ROOT, 'Dockerfile'), 'utf8')).NODE_VERSION ?? ''), `Dockerfile NODE_VERSION is one of .ci/run's ${versions.join(', ')}`);
  });

  it('holds the bundle and its run-time packages, without sources, tests or development tools', async () => {
    const tree = new Set(await listTree(join(image.root, 'app')));
    for (const path of ['dist/crateflow.mjs', 'dist/crateflow.code.cjs', 'dist/public', 'sdk/dist/index.js', 'node_modules/undici', 'node_modules/preact']) assert.ok(tree.has(path), `${path} is in /app`);
    for (const path of ['core', 'test', 'plugins', 'node_modules/tsx', 'node_modules/typescript', 'node_modules/node-red']) assert.ok(!tree.has(path), `${path} is not in /app`);
    assert.ok(new Set(await listTree(join(image.root, 'config'))).has('config.yaml'), 'a default /config/config.yaml');
  });

  it('carries the SQLite drivers without their sources or build files, and loads the one for its Node as the service user', async () => {
    const modules = join(image.root, 'app', 'node_modules');
    const compiled = await listTree(join(modules, 'better-sqlite3'));
    assert.ok(compiled.includes('build/Release/better_sqlite3.node'), 'the addon of better-sqlite3 12 (Node 20) is in /app');
    for (const path of ['deps', 'src', 'build/Release/obj.target']) assert.ok(!compiled.includes(path), `${path} of better-sqlite3 is not in /app`);
    const shipped = await listTree(join(modules, 'better-sqlite3-napi'));
    assert.ok(shipped.includes('prebuilds/linux-x64.node') && shipped.includes('prebuilds/linux-arm64.node'), 'the Linux builds of better-sqlite3 13 (Node 22 and later) are in /app');
    for (const path of ['deps', 'src', 'prebuilds/darwin-x64.node', 'prebuilds/win32-x64.node']) assert.ok(!shipped.includes(path), `${path} of better-sqlite3 13 is not in /app`);
    // What the bundle does (the driver is external): the package for this Node, resolved from /app/node_modules.
    const script = `const Database = require(${JSON.stringify(SQLITE_DRIVER_PACKAGE)}); const db = new Database(':memory:'); process.stdout.write(db.prepare('select sqlite_version() as v').get().v)`;
    const child = startImage({ ...image, cmd: ['node', '-e', script] }, {});
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const [code] = await once(child, 'exit');
    assert.equal(code, 0);
    assert.match(stdout, /^3\.\d+\.\d+$/, 'SQLite answers its version');
  });

  it('starts as an unprivileged user, answers behind a port mapping, passes its HEALTHCHECK and stops on SIGTERM with 0', async () => {
    const config = await mapConfigIntoImage(image, join(image.root, 'config', 'config.yaml'));
    await mkdir(join(image.root, 'music')); // the library folder an operator mounts
    const port = await freePort();
    const service = startImage(image, { CRATEFLOW_CONFIG: config, PORT: String(port) });
    try {
      await waitForListening(service);
      const base = `http://127.0.0.1:${port}`;
      assert.equal((await fetch(`${base}/health`)).status, 200);
      // docker run -p 8080:8080: the browser sends `localhost:8080`; through the compose network, a container name.
      // fetch() always sends the real address in Host, hence rawRequest.
      assert.equal((await rawRequest(`${base}/api/v1/stats`, { headers: { host: 'localhost:8080' } })).status, 200);
      assert.equal((await rawRequest(`${base}/api/v1/stats`, { headers: { host: '172.18.0.5:8080' } })).status, 200, 'the container address');
      assert.equal((await rawRequest(`${base}/api/v1/stats`, { headers: { host: 'elsewhere.example' } })).status, 421);
      assert.equal((await rawRequest(`${base}/health`, { headers: { host: 'crateflow-container' } })).status, 200, 'a health probe by container name');
      assert.equal(await healthcheck(image, port), 0, 'HEALTHCHECK passes against the running service');
      const added = await rawRequest(`${base}/api/v1/queue`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ artist: 'Low', album: 'Things We Lost in the Fire' }) });
      assert.equal(added.status, 201, added.text);
    } finally {
      service.kill('SIGTERM');
    }
    const [code] = await once(service, 'exit');
    assert.equal(code, 0);
    const store = join(image.root, 'data', 'store');
    assert.deepEqual(readRecords<{ album: string }>(store, 'queue_items').map((item) => item.album), ['Things We Lost in the Fire'], 'the unprivileged service committed to its database in /data');
    assert.equal((await stat(join(store, DATABASE_FILE))).uid, SERVICE_USER.uid, 'written by the service user');
    assert.notEqual(await healthcheck(image, port), 0, 'HEALTHCHECK fails when nothing answers');
  });

  it('starts with the compose example config (slskd and Navidrome unreachable: healthy, plugins degraded)', async () => {
    await mkdir(join(image.root, 'compose', 'downloads'), { recursive: true });
    const config = await mapConfigIntoImage(image, join(REPO_ROOT, 'examples', 'container', 'compose', 'config.yaml'), join(image.root, 'compose'));
    const port = await freePort();
    const service = startImage(image, {
      CRATEFLOW_CONFIG: config,
      PORT: String(port),
      SLSKD_API_KEY: 'compose-test-slskd-key',
      NAVIDROME_USER: 'crateflow',
      NAVIDROME_PASSWORD: 'compose-test-password',
    });
    try {
      await waitForListening(service);
      const health = await fetch(`http://127.0.0.1:${port}/health`);
      assert.equal(health.status, 200);
      const byName = await rawRequest(`http://127.0.0.1:${port}/api/v1/stats`, { headers: { host: 'crateflow:8080' } });
      assert.equal(byName.status, 200, 'the compose service name is an allowed Host');
      const plugins = await rawRequest(`http://127.0.0.1:${port}/api/v1/plugins`);
      assert.deepEqual((JSON.parse(plugins.text) as { items: { name: string }[] }).items.map((p) => p.name).sort(), ['download-slskd', 'library-subsonic', 'preview-deezer', 'source-new-releases', 'source-similar', 'webhooks']);
    } finally {
      service.kill('SIGTERM');
    }
    const [code] = await once(service, 'exit');
    assert.equal(code, 0);
  });
});

/**
 * A copy of a container config whose absolute paths (/data, /music, /downloads…) point into the image folder
 * (or `mountsUnder`), where this user can create them. The only change made to the config for this test.
 */
async function mapConfigIntoImage(image: RuntimeImage, source: string, mountsUnder = image.root): Promise<string> {
  const text = await readFile(source, 'utf8');
  const moved = text.replace(/(:\s*)\/(data|music|downloads)(?=[/\s]|$)/g, (_, before: string, folder: string) => `${before}${join(mountsUnder, folder)}`);
  const mapped = withUpstreamsOnLoopback(moved);
  const file = join(mountsUnder, `mapped-${Date.now()}.yaml`);
  await mkdir(mountsUnder, { recursive: true });
  await writeFile(file, mapped, { mode: 0o644 });
  await mkdir(join(mountsUnder, 'data'), { recursive: true });
  if (isRoot) await run('chown', ['-R', `${SERVICE_USER.uid}:${SERVICE_USER.gid}`, join(mountsUnder, 'data')]);
  return file;
}

// Nothing listens on the discard port of loopback: a connection there is refused at once.
const UNREACHABLE = 'http://127.0.0.1:9';

/**
 * The example configs run discovery sources against the real MusicBrainz and ListenBrainz, which a test must never
 * reach: their URLs are pointed at a closed loopback port (the only change besides the folders).
 */
function withUpstreamsOnLoopback(text: string): string {
  const config: unknown = parse(text);
  if (!isRecord(config)) throw new Error('the example config is not a mapping');
  config['metadata'] = { musicbrainz: { url: UNREACHABLE }, coverartarchive: { url: UNREACHABLE } };
  const sources = Array.isArray(config['sources']) ? config['sources'] : [];
  for (const entry of sources) {
    if (isRecord(entry) && entry['type'] === 'similar-artists') Object.assign(entry, { listenbrainz_url: UNREACHABLE, listenbrainz_labs_url: UNREACHABLE });
  }
  return stringify(config);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The image's CMD in its WORKDIR, with its ENV, as the unprivileged service user. */
function startImage(image: RuntimeImage, env: Record<string, string>): ChildProcessWithoutNullStreams {
  const [command = '', ...args] = image.cmd;
  const executable = command === 'node' ? process.execPath : command;
  const asUser = isRoot ? ['setpriv', `--reuid=${SERVICE_USER.uid}`, `--regid=${SERVICE_USER.gid}`, '--clear-groups', executable] : [executable];
  const [program = '', ...prefix] = asUser;
  return spawn(program, [...prefix, ...args], { cwd: join(image.root, image.workdir), env: { PATH: process.env.PATH, ...image.env, ...env }, stdio: 'pipe' });
}

/** Runs the image's HEALTHCHECK command as Docker would inside the container, and returns its exit status. */
async function healthcheck(image: RuntimeImage, port: number): Promise<number> {
  const [command = '', ...args] = image.healthcheck;
  const child = spawn(command === 'node' ? process.execPath : command, args, { env: { PATH: process.env.PATH, ...image.env, PORT: String(port) }, stdio: 'ignore' });
  const [code] = await once(child, 'exit');
  return typeof code === 'number' ? code : -1;
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new Error('no TCP port');
  return address.port;
}
