import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { Type, type Static } from '@crateflow/sdk';
import { assertRecord } from '@crateflow/sdk/testing';
import { startFakeWebhookReceiver, type FakeWebhookReceiver } from '../fakes/fake-webhook-receiver.js';

const run = promisify(execFile);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const tsx = join(root, 'node_modules', '.bin', 'tsx');
const example = join(root, 'examples', 'plugins', 'sink-ntfy');

// What `npm pack --json` reports about one tarball (the parts read here).
const PackResult = Type.Array(Type.Object({ filename: Type.String(), files: Type.Array(Type.Object({ path: Type.String() })) }), { minItems: 1, maxItems: 1 });
type PackResult = Static<typeof PackResult>[number];

// The sdk as a third party gets it: packed, installed from the tarball into a project outside the workspace,
// typechecked, and the example plugin built on it loaded into a running server.
describe('@crateflow/sdk as a published package', { timeout: 240_000 }, () => {
  let temp: string;
  let pack: PackResult;
  let project: string;

  before(async () => {
    temp = await mkdtemp(join(tmpdir(), 'crateflow-packed-sdk-'));
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', temp], { cwd: join(root, 'sdk') });
    const parsed: unknown = JSON.parse(stdout);
    assertRecord(PackResult, parsed, 'npm pack --json');
    const [only] = parsed;
    assert.ok(only);
    pack = only;
    project = join(temp, 'sink-ntfy');
    await cp(example, project, { recursive: true, filter: (src) => !/[/\\](node_modules|dist)$/.test(src) });
    // Only the sdk and its runtime deps come from npm; typescript and @types/node are the workspace's.
    await run('npm', ['install', join(temp, pack.filename), '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: project });
  });
  after(() => rm(temp, { recursive: true, force: true }));

  it('packs compiled JS and .d.ts, README, LICENSE and package.json, and no sources or tests', () => {
    const paths = pack.files.map((f) => f.path).sort();
    const unexpected = paths.filter((p) => !/^dist\/.+\.(js|d\.ts)$/.test(p) && !['README.md', 'LICENSE', 'package.json'].includes(p));
    assert.deepEqual(unexpected, []);
    for (const entry of ['dist/index.js', 'dist/index.d.ts', 'dist/testing/index.js', 'dist/testing/index.d.ts']) assert.ok(paths.includes(entry), `${entry} is packed`);
    assert.equal(paths.some((p) => /\.test\./.test(p)), false);
  });

  it('typechecks and builds a plugin project that installed the tarball, the sdk’s .d.ts included', async () => {
    // One strict tsc run (skipLibCheck off in the example) both checks and emits, which the next tests use.
    await run(process.execPath, [tsc, '-p', project, '--typeRoots', join(root, 'node_modules', '@types')]);
  });

  it('runs the example’s own tests, the sdk contract kit included, against the installed package', async () => {
    // Without NODE_TEST_CONTEXT, which this runner sets: the nested run must report like a top-level one.
    const { NODE_TEST_CONTEXT: _ours, ...env } = process.env;
    // Files, not the folder: since Node 21 `--test` takes files and globs, and a folder fails as one test file.
    // TAP named: newer Node (24 here) reports with `spec` by default even when the output is not a terminal.
    const files = (await readdir(join(project, 'dist', 'test'))).filter((name) => name.endsWith('.test.js')).map((name) => join('dist', 'test', name));
    assert.ok(files.length > 0, 'the example built its tests');
    const { stdout } = await run(process.execPath, ['--test', '--test-reporter=tap', ...files], { cwd: project, env });
    assert.match(stdout, /sink-ntfy \(event-sink contract\)/);
    assert.match(stdout, /# fail 0/);
  });

  describe('the example loaded into a running server with plugins: [{ use: <path> }]', () => {
    let ntfy: FakeWebhookReceiver;
    let server: ChildProcess | undefined;

    after(async () => {
      const child = server;
      if (child && child.exitCode === null) {
        const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
        child.kill('SIGTERM');
        await exited; // the server flushes its store on SIGTERM; the temp dir goes only after that
      }
      await ntfy?.close();
    });

    it('posts to ntfy when a candidate is added to the queue', async () => {
      ntfy = await startFakeWebhookReceiver();
      const dataDir = join(temp, 'server');
      await mkdir(dataDir, { recursive: true });
      const configPath = join(dataDir, 'config.yaml');
      await writeFile(
        configPath,
        [
          'server: { host: 127.0.0.1, port: 0 }',
          `storage: { dir: ${JSON.stringify(join(dataDir, 'data'))} }`,
          `download_client: { type: blackhole, requests_dir: ${JSON.stringify(join(dataDir, 'requests'))}, complete_dir: ${JSON.stringify(join(dataDir, 'complete'))} }`,
          `library: { type: filesystem, path: ${JSON.stringify(join(dataDir, 'music'))} }`,
          'plugins:',
          `  - use: ${JSON.stringify(join(project, 'dist', 'src', 'index.js'))}`,
          `    config: { topic_url: ${JSON.stringify(ntfy.url)}, events: [queue_added] }`,
        ].join('\n'),
      );
      // A child process without the workspace's source condition: the server runs on the built sdk, the
      // plugin on the copy installed from the tarball, as on a user's machine. cwd is the repo, for tsconfig.
      server = spawn(process.execPath, [tsx, join(root, 'core', 'main.ts'), '--config', configPath], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
      const port = await listeningPort(server);

      const plugins: unknown = await (await fetch(`http://127.0.0.1:${port}/api/v1/plugins`)).json();
      assertRecord(Type.Object({ items: Type.Array(Type.Object({ name: Type.String(), version: Type.String() })) }), plugins, 'GET /api/v1/plugins');
      assert.ok(plugins.items.some((p) => p.name === 'sink-ntfy' && p.version === '1.0.0'));
      const added = await fetch(`http://127.0.0.1:${port}/api/v1/queue`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ artist: 'Low', album: 'Double Negative', source: 'test' }),
      });
      assert.equal(added.status, 201);
      const [message] = await ntfy.waitFor(1, 10_000);
      assert.equal(message?.headers.title, 'Crateflow: New candidate');
      assert.equal(message?.body.toString('utf8'), 'Low — Double Negative');
    });
  });
});

/** Reads the server's JSON log lines until "crateflow is listening", and returns its port. */
function listeningPort(child: ChildProcess): Promise<number> {
  return new Promise((resolvePort, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`the server did not start within 30 s:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /"port":(\d+)[^\n]*crateflow is listening|crateflow is listening[^\n]*"port":(\d+)/.exec(output);
      if (!match) return;
      clearTimeout(timer);
      resolvePort(Number(match[1] ?? match[2]));
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${code} before listening:\n${output}`));
    });
  });
}
