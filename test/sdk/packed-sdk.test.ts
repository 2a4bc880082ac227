import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import * as workspaceSdk from '@crateflow/sdk';
import { Type, type Static } from '@crateflow/sdk';
import { assertRecord } from '@crateflow/sdk/testing';
import { startFakeWebhookReceiver, type FakeWebhookReceiver } from '../fakes/fake-webhook-receiver.js';
import { waitForListening } from '../helpers/run-service.js';

const run = promisify(execFile);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const example = join(root, 'examples', 'plugins', 'sink-ntfy');
const NPM_QUIET = ['--no-audit', '--no-fund'];

// What `npm pack --json` reports about one tarball (the parts read here).
const PackResult = Type.Array(Type.Object({ filename: Type.String(), files: Type.Array(Type.Object({ path: Type.String() })) }), { minItems: 1, maxItems: 1 });
type PackResult = Static<typeof PackResult>[number];
const PluginList = Type.Object({ items: Type.Array(Type.Object({ name: Type.String(), healthy: Type.Boolean(), last_error: Type.Optional(Type.String()) })) });

// The sdk as a third party gets it: packed once, installed from that one tarball into projects outside the
// workspace, typechecked, and the plugins built on it loaded into running servers.
describe('@crateflow/sdk as a published package', { timeout: 420_000 }, () => {
  let temp: string;
  let tarball: string;
  let pack: PackResult;
  /** The sdk README's plugin project, which also holds the current TypeScript both projects are checked with. */
  let readmeProject: string;
  let currentTsc: string;
  /** The copy of sdk/ the tarball is packed from. */
  let packedFrom: string;

  before(async () => {
    temp = await mkdtemp(join(tmpdir(), 'crateflow-packed-sdk-'));
    // Packed from a copy of sdk/: prepack rewrites package.json for a moment, and other test files starting
    // servers at the same time must never read the workspace's sdk without its crateflow-source condition.
    packedFrom = join(temp, 'sdk-source');
    await cp(join(root, 'sdk'), packedFrom, { recursive: true, filter: (src) => !/[/\\](node_modules|dist)$/.test(src) });
    await symlink(join(root, 'node_modules'), join(packedFrom, 'node_modules'), 'dir');
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', temp], { cwd: packedFrom });
    const parsed: unknown = JSON.parse(stdout);
    assertRecord(PackResult, parsed, 'npm pack --json');
    const [only] = parsed;
    assert.ok(only);
    pack = only;
    tarball = join(temp, pack.filename);

    // The plugin of the sdk README, in a project set up exactly as the README says (its tsconfig.json and
    // src/index.ts blocks are copied from the README here), with the current TypeScript and @types/node
    // installed from the registry (a few seconds), not the workspace's pinned ones.
    readmeProject = join(temp, 'crateflow-sink-ntfy');
    await mkdir(join(readmeProject, 'src'), { recursive: true });
    const readme = await readFile(join(root, 'sdk', 'README.md'), 'utf8');
    // `npm init -y && npm pkg set type=module exports=./dist/index.js`, as in the README.
    await writeFile(join(readmeProject, 'package.json'), JSON.stringify({ name: 'crateflow-sink-ntfy', version: '1.0.0', type: 'module', exports: './dist/index.js' }));
    await writeFile(join(readmeProject, 'tsconfig.json'), readmeBlock(readme, '// tsconfig.json'));
    await writeFile(join(readmeProject, 'src', 'index.ts'), readmeBlock(readme, '// src/index.ts'));
    await run('npm', ['install', tarball, 'typescript@latest', '@types/node@latest', ...NPM_QUIET], { cwd: readmeProject });
    currentTsc = join(readmeProject, 'node_modules', 'typescript', 'bin', 'tsc');
  });
  after(() => rm(temp, { recursive: true, force: true }));

  it('packs compiled JS and .d.ts, README, LICENSE and package.json, and no sources or tests', () => {
    const paths = pack.files.map((f) => f.path).sort();
    const unexpected = paths.filter((p) => !/^dist\/.+\.(js|d\.ts)$/.test(p) && !['README.md', 'LICENSE', 'package.json'].includes(p));
    assert.deepEqual(unexpected, []);
    for (const entry of ['dist/index.js', 'dist/index.d.ts', 'dist/testing/index.js', 'dist/testing/index.d.ts']) assert.ok(paths.includes(entry), `${entry} is packed`);
    assert.equal(paths.some((p) => /\.test\./.test(p)), false);
  });

  it('publishes package.json without the workspace’s crateflow-source condition, and puts the workspace one back', async () => {
    const { stdout } = await run('tar', ['-xOzf', tarball, 'package/package.json']);
    const published: unknown = JSON.parse(stdout);
    assertRecord(Type.Object({ exports: Type.Record(Type.String(), Type.Unknown()), peerDependencies: Type.Record(Type.String(), Type.String()) }), published, 'the packed package.json');
    assert.doesNotMatch(JSON.stringify(published.exports), /crateflow-source|\/src\//);
    assert.deepEqual(published.exports['.'], { types: './dist/index.d.ts', default: './dist/index.js' });
    assert.ok(published.peerDependencies['@types/node'], 'the .d.ts files’ need for Node’s types is declared');
    const { stdout: declarations } = await run('tar', ['-xOzf', tarball, 'package/dist/index.d.ts']);
    assert.match(declarations, /^\/\/\/ <reference types="node" preserve="true" \/>$/m);
    // postpack restored the workspace manifest, which `npm run dev` and the tests need.
    assert.match(await readFile(join(packedFrom, 'package.json'), 'utf8'), /"crateflow-source": "\.\/src\/index\.ts"/);
    assert.equal(existsSync(join(packedFrom, '.package.workspace.json')), false);
  });

  describe('the example plugin (examples/plugins/sink-ntfy) on the installed tarball', () => {
    let project: string;
    before(async () => {
      project = join(temp, 'sink-ntfy');
      await cp(example, project, { recursive: true, filter: (src) => !/[/\\](node_modules|dist)$/.test(src) });
      // Only the sdk and its runtime deps come from npm; typescript and @types/node are the workspace's.
      await run('npm', ['install', tarball, '--omit=dev', ...NPM_QUIET, '--prefer-offline'], { cwd: project });
    });

    it('typechecks and builds on the current TypeScript, the sdk’s .d.ts included', async () => {
      // One strict tsc run (skipLibCheck off in the example) both checks and emits, which the next test uses.
      // Node's types are the ones installed beside the current TypeScript: the example installed no dev tools.
      await run(process.execPath, [currentTsc, '-p', project, '--typeRoots', join(readmeProject, 'node_modules', '@types')]);
    });

    it('passes its own tests, the sdk contract kit included, against the installed package', async () => {
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
  });

  describe('the sdk README’s plugin, set up as the README says, on the current TypeScript', () => {
    let project: string;
    let sdkCopy: string;
    before(() => {
      project = readmeProject;
      sdkCopy = join(project, 'node_modules', '@crateflow', 'sdk');
    });

    it('typechecks with strict and skipLibCheck off, and builds', async () => {
      const tsconfig = await readFile(join(project, 'tsconfig.json'), 'utf8');
      assert.match(tsconfig, /"strict": true/);
      assert.doesNotMatch(tsconfig, /skipLibCheck/, 'the README leaves skipLibCheck at its default, off');
      // The installed TypeScript, with skipLibCheck off spelled out: every .d.ts of the sdk and its dependencies is checked.
      await run(process.execPath, [currentTsc, '-p', project, '--skipLibCheck', 'false'], { cwd: project });
      assert.ok(existsSync(join(project, 'dist', 'index.js')));
    });

    it('recognises another copy’s errors with its guards, where instanceof cannot', async () => {
      const installed: unknown = await import(pathToFileURL(join(sdkCopy, 'dist', 'index.js')).href);
      const Guards = Type.Object({ HttpRequestError: Type.Unknown(), isHttpRequestError: Type.Unknown() });
      assertRecord(Guards, installed, 'the installed sdk');
      const guard = (name: string): ((err: unknown) => boolean) => {
        const found: unknown = Reflect.get(installed, name);
        if (typeof found !== 'function') assert.fail(`the installed sdk exports no function ${name}`);
        return (err) => Reflect.apply(found, undefined, [err]) === true;
      };
      const fromWorkspace: [string, Error][] = [
        ['isRetryLaterError', new workspaceSdk.RetryLaterError('busy')],
        ['isCredentialsError', new workspaceSdk.CredentialsError('refused')],
        ['isNotFoundError', new workspaceSdk.NotFoundError('gone')],
        ['isHttpRequestError', new workspaceSdk.HttpRequestError('timed out', 'timeout')],
      ];
      for (const [name, err] of fromWorkspace) {
        assert.equal(guard(name)(err), true, `${name} recognises the workspace copy's ${err.name}`);
        for (const [other, otherErr] of fromWorkspace) if (other !== name) assert.equal(guard(name)(otherErr), false, `${name} refuses a ${otherErr.name}`);
        assert.equal(guard(name)(new Error('plain')), false, `${name} refuses a plain Error`);
      }
      const InstalledHttpRequestError = installed.HttpRequestError;
      if (typeof InstalledHttpRequestError !== 'function') assert.fail('the installed sdk exports the class HttpRequestError');
      assert.equal(new workspaceSdk.HttpRequestError('x', 'network') instanceof InstalledHttpRequestError, false, 'two copies, two classes');
    });

    // `npm start` runs the esbuild bundle, `npm run dev` the sources through tsx with the crateflow-source
    // condition (which used to send the plugin's own sdk copy to sources the package does not ship). The plugin
    // is named by its folder in one and by its package name (installed next to config.yaml) in the other.
    for (const [script, form] of [['start', 'folder'], ['dev', 'name']] as const) {
      it(`runs under a server started by npm ${script === 'start' ? 'start' : 'run dev'} (use: its package ${form}), posts events and reports failures through the guard`, async (t) => {
        const ntfy: FakeWebhookReceiver = await startFakeWebhookReceiver();
        t.after(() => ntfy.close());
        const dir = join(temp, `server-${script}`);
        await mkdir(dir, { recursive: true });
        let use = project;
        if (form === 'name') {
          // What `npm install ../crateflow-sink-ntfy` in the config folder makes: a link in its node_modules.
          await mkdir(join(dir, 'node_modules'));
          await symlink(project, join(dir, 'node_modules', 'crateflow-sink-ntfy'), 'dir');
          use = 'crateflow-sink-ntfy';
        }
        const configPath = join(dir, 'config.yaml');
        await writeFile(
          configPath,
          [
            'server: { host: 127.0.0.1, port: 0 }',
            `storage: { dir: ${JSON.stringify(join(dir, 'data'))} }`,
            `download_client: { type: blackhole, requests_dir: ${JSON.stringify(join(dir, 'requests'))}, complete_dir: ${JSON.stringify(join(dir, 'complete'))} }`,
            `library: { type: filesystem, path: ${JSON.stringify(join(dir, 'music'))} }`,
            'plugins:',
            `  - use: ${JSON.stringify(use)}`,
            `    config: { topic_url: ${JSON.stringify(ntfy.url)} }`,
          ].join('\n'),
        );
        const server = await npmRun(script, configPath);
        t.after(() => server.stop());
        const base = `http://127.0.0.1:${server.port}/api/v1`;

        const add = (album: string) => fetch(`${base}/queue`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ artist: 'Low', album, source: 'test' }) });
        assert.equal((await add('Double Negative')).status, 201);
        const [message] = await ntfy.waitFor(1, 60_000);
        assert.equal(message?.body.toString('utf8'), 'Low — Double Negative');

        // The server's http client now meets a reset connection and throws the server's HttpRequestError; the
        // plugin's guard (its own sdk copy) recognises it, and health() says so in the operator view.
        ntfy.respondWith(() => ({ reset: true }));
        assert.equal((await add('Hey What')).status, 201);
        const deadline = Date.now() + 15_000;
        for (;;) {
          const plugins: unknown = await (await fetch(`${base}/plugins`)).json();
          assertRecord(PluginList, plugins, 'GET /api/v1/plugins');
          const sink = plugins.items.find((p) => p.name === 'sink-ntfy');
          assert.ok(sink, 'the plugin is loaded');
          if (!sink.healthy) {
            assert.equal(sink.last_error, 'ntfy unreachable (network)');
            break;
          }
          assert.ok(Date.now() < deadline, 'the plugin reports the failed post within 15 s');
          await new Promise((resolveWait) => setTimeout(resolveWait, 100));
        }
      });
    }
  });
});

/** The fenced code block of the README whose first line is `firstLine`, as written there. */
function readmeBlock(readme: string, firstLine: string): string {
  const block = readme.split(/^```[a-z]*\n/m).find((part) => part.startsWith(`${firstLine}`));
  assert.ok(block, `the sdk README has a block starting with ${firstLine}`);
  return block.slice(0, block.indexOf('```'));
}

/** `npm start` / `npm run dev` as a user runs them, in their own process group so that stopping npm stops the server. */
async function npmRun(script: 'start' | 'dev', configPath: string): Promise<{ port: number; stop(): Promise<void> }> {
  const args = script === 'start' ? ['start'] : ['run', 'dev'];
  const child: ChildProcessWithoutNullStreams = spawn('npm', [...args, '--silent', '--', '--config', configPath], {
    cwd: resolve(dirname(fileURLToPath(import.meta.url)), '..', '..'),
    detached: true,
    stdio: 'pipe',
    env: { ...process.env, PORT: '', CRATEFLOW_CONFIG: '' },
  });
  const stop = async () => {
    if (child.pid === undefined || child.exitCode !== null) return;
    const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
    const group = child.pid;
    process.kill(-group, 'SIGTERM');
    await exited;
    // npm exits once it has passed SIGTERM on; the server may still be flushing its store into the temp dir.
    while (processGroupAlive(group)) await new Promise((resolveWait) => setTimeout(resolveWait, 50));
  };
  try {
    const { port } = await waitForListening(child, 120_000);
    return { port, stop };
  } catch (err: unknown) {
    await stop();
    throw err;
  }
}

function processGroupAlive(group: number): boolean {
  try {
    process.kill(-group, 0);
    return true;
  } catch (err: unknown) {
    if (err instanceof Error && 'code' in err && err.code === 'ESRCH') return false;
    throw err;
  }
}
