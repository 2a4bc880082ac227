import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { waitForListening } from '../../helpers/run-service.js';

// Issue #28 point 4: the command line a user can trust, run as real child processes (the code `npm start` runs).
const MAIN = fileURLToPath(new URL('../../../core/main.ts', import.meta.url));
// tsx by its resolved URL: `--import tsx` would be looked up from the (temp) working directory, which has no node_modules.
const TSX = import.meta.resolve('tsx');
const TSCONFIG = fileURLToPath(new URL('../../../tsconfig.json', import.meta.url));
const VERSION: unknown = JSON.parse(await readFile(new URL('../../../core/package.json', import.meta.url), 'utf8')).version;

function start(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, ['--import', TSX, '--conditions=crateflow-source', MAIN, ...args], {
    cwd,
    // tsx reads tsconfig.json (experimentalDecorators) from the working directory unless told where it is.
    env: { ...process.env, CRATEFLOW_CONFIG: '', PORT: '', TSX_TSCONFIG_PATH: TSCONFIG, ...env },
    stdio: 'pipe',
  });
}

async function run(args: string[], cwd: string, input?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = start(args, cwd);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(input);
  const [code] = await once(child, 'exit');
  return { code: typeof code === 'number' ? code : null, stdout, stderr };
}

async function tempDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'crateflow-cli-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Starts the service until it listens, then stops it; answers the "folders in use" log line's paths. */
async function startAndStop(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Record<string, string>> {
  const child = start(args, cwd, env);
  try {
    const { lines } = await waitForListening(child);
    const entry: unknown = lines.map((line) => JSON.parse(line)).find((parsed: { msg?: string }) => parsed.msg?.startsWith('folders in use: '));
    assert.ok(entry && typeof entry === 'object' && 'paths' in entry && entry.paths && typeof entry.paths === 'object', `a "folders in use" line among:\n${lines.join('\n')}`);
    return Object.fromEntries(Object.entries(entry.paths).map(([key, value]) => [key, String(value)]));
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
}

describe('the command line (a real process)', () => {
  it('--help prints the usage and exits 0 without starting anything', async (t) => {
    const cwd = await tempDir(t);
    for (const flag of ['--help', '-h']) {
      const { code, stdout, stderr } = await run([flag], cwd);
      assert.equal(code, 0, stderr);
      assert.match(stdout, /^Crateflow \S+: /);
      for (const part of ['crateflow [--config PATH]', 'crateflow hash-password', '--version', 'CRATEFLOW_CONFIG', 'npm start -- --config']) assert.ok(stdout.includes(part), part);
    }
    assert.deepEqual(await readdir(cwd), [], 'no data dir, no music folder');
  });

  it('--version prints the version and exits 0', async (t) => {
    const cwd = await tempDir(t);
    const { code, stdout } = await run(['--version'], cwd);
    assert.equal(code, 0);
    assert.equal(stdout, `${String(VERSION)}\n`);
  });

  it('exits 2 naming an unknown option, suggests --config for --confg, and creates nothing', async (t) => {
    const cwd = await tempDir(t);
    const misspelt = await run(['--confg', 'config.yaml'], cwd);
    assert.equal(misspelt.code, 2);
    assert.match(misspelt.stderr, /^crateflow: unknown option --confg \(did you mean --config\?\)\nRun "crateflow --help" for usage\.\n$/);
    assert.equal(misspelt.stdout, '');
    const unknown = await run(['--port=9000'], cwd);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown option --port\b/);
    assert.doesNotMatch(unknown.stderr, /did you mean/);
    assert.deepEqual(await readdir(cwd), [], 'no default instance was started');
  });

  it('exits 2 for --config without a value, and for a stray argument (pointing at --config for a .yaml)', async (t) => {
    const cwd = await tempDir(t);
    for (const args of [['--config'], ['--config='], ['--config', '--help']]) {
      const { code, stderr } = await run(args, cwd);
      assert.equal(code, 2, args.join(' '));
      assert.match(stderr, /option --config needs a value: --config PATH/);
    }
    const stray = await run(['config.yaml'], cwd);
    assert.equal(stray.code, 2);
    assert.match(stray.stderr, /unexpected argument "config\.yaml".*write --config config\.yaml/);
    assert.deepEqual(await readdir(cwd), []);
  });

  it('hash-password still prints an scrypt hash of the password on stdin', async (t) => {
    const cwd = await tempDir(t);
    const { code, stdout } = await run(['hash-password'], cwd, 'correct horse\n');
    assert.equal(code, 0);
    assert.match(stdout, /^\$scrypt\$\S+\n$/);
  });

  it('resolves relative paths in a config against its folder, not the current directory, and prints them absolute', async (t) => {
    const root = await tempDir(t);
    const etc = join(root, 'etc', 'crateflow');
    const elsewhere = join(root, 'elsewhere');
    await mkdir(etc, { recursive: true });
    await mkdir(join(etc, 'music'));
    await mkdir(elsewhere);
    await writeFile(join(etc, 'config.yaml'), [
      'server:\n  port: 0',
      'storage:\n  dir: data',
      'download_client:\n  type: blackhole\n  requests_dir: ./blackhole/requests\n  complete_dir: ../downloads/complete',
      'library:\n  type: filesystem\n  path: music',
      '',
    ].join('\n'));
    const paths = await startAndStop(['--config', '../etc/crateflow/config.yaml'], elsewhere);
    assert.deepEqual(paths, {
      'storage.dir': join(etc, 'data'),
      'download_client.requests_dir': join(etc, 'blackhole', 'requests'),
      'download_client.complete_dir': join(root, 'etc', 'downloads', 'complete'),
      'library.path': join(etc, 'music'),
    });
    assert.ok((await stat(join(etc, 'data'))).isDirectory(), 'the data dir is next to the config file');
    assert.ok((await stat(join(etc, 'blackhole', 'requests'))).isDirectory());
    assert.ok((await stat(join(root, 'etc', 'downloads', 'complete'))).isDirectory());
    assert.deepEqual(await readdir(elsewhere), [], 'nothing in the directory it was started from');
  });

  it('with no config file at all, keeps the built-in ./data, ./music and ./blackhole in the current directory', async (t) => {
    const cwd = await tempDir(t);
    const paths = await startAndStop([], cwd, { PORT: '0' });
    assert.deepEqual(paths, {
      'storage.dir': join(cwd, 'data'),
      'download_client.requests_dir': join(cwd, 'blackhole', 'requests'),
      'download_client.complete_dir': join(cwd, 'blackhole', 'complete'),
      'library.path': join(cwd, 'music'),
    });
    assert.deepEqual((await readdir(cwd)).sort(), ['blackhole', 'data', 'music']);
  });
});
