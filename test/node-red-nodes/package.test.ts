import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { packageDir } from './build-node-package.js';

const run = promisify(execFile);
let workDir: string;
let tarball: string;
let files: string[];

interface PackageJson {
  name: string;
  keywords?: string[];
  'node-red'?: { version?: string; nodes?: Record<string, string> };
  dependencies?: Record<string, string>;
}

before(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'crateflow-nr-pack-'));
  // The real `npm pack` of the source folder: its prepack script compiles the TypeScript first.
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', workDir], { cwd: packageDir });
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf('[')));
  tarball = join(workDir, packed.filename);
  const listing = await run('tar', ['-tzf', tarball]);
  files = listing.stdout.split('\n').filter(Boolean).map((line) => line.replace(/^package\//, ''));
});
after(() => rm(workDir, { recursive: true, force: true }));

async function packedManifest(): Promise<PackageJson> {
  const { stdout } = await run('tar', ['-xzOf', tarball, 'package/package.json']);
  return JSON.parse(stdout);
}

describe('npm pack of node-red-nodes', () => {
  it('declares a Node-RED 4 package with the node-red keyword and no runtime dependencies', async () => {
    const manifest = await packedManifest();
    assert.ok(manifest.keywords?.includes('node-red'));
    assert.equal(manifest['node-red']?.version, '>=4.0.0');
    assert.deepEqual(manifest.dependencies ?? {}, {});
  });

  it('ships each declared node as compiled .js next to its .html and en-US locale', async () => {
    const nodes = Object.entries((await packedManifest())['node-red']?.nodes ?? {});
    assert.deepEqual(nodes.map(([type]) => type).sort(), ['crateflow-queue', 'crateflow-server', 'crateflow-webhook']);
    for (const [type, file] of nodes) {
      assert.equal(file, `nodes/${type}/${type}.js`);
      assert.ok(files.includes(file), `${file} is packed`);
      assert.ok(files.includes(`nodes/${type}/${type}.html`), `${type}.html is packed`);
      assert.ok(files.includes(`nodes/${type}/locales/en-US/${type}.json`), `${type} locale is packed`);
    }
  });

  it('gives every node an editor template and help text in its .html', async () => {
    for (const type of ['crateflow-server', 'crateflow-webhook', 'crateflow-queue']) {
      const html = await readFile(join(packageDir, 'nodes', type, `${type}.html`), 'utf8');
      assert.match(html, new RegExp(`RED\\.nodes\\.registerType\\('${type}'`));
      assert.match(html, new RegExp(`data-template-name="${type}"`));
      assert.match(html, new RegExp(`data-help-name="${type}"`));
    }
  });

  it('keeps the API key and webhook secret out of the config node\'s defaults and the examples', async () => {
    const html = await readFile(join(packageDir, 'nodes', 'crateflow-server', 'crateflow-server.html'), 'utf8');
    const defaults = html.slice(html.indexOf('defaults:'), html.indexOf('credentials:'));
    assert.doesNotMatch(defaults, /apiKey|webhookSecret/);
    assert.match(html, /apiKey: \{ type: 'password' \}/);
    assert.match(html, /webhookSecret: \{ type: 'password' \}/);
    for (const example of ['chat-bot-approval.json', 'home-automation.json']) {
      assert.doesNotMatch(await readFile(join(packageDir, 'examples', example), 'utf8'), /apiKey|webhookSecret|"credentials"/);
    }
  });

  it('ships the example flows and the README', () => {
    assert.ok(files.includes('examples/chat-bot-approval.json'));
    assert.ok(files.includes('examples/home-automation.json'));
    assert.ok(files.includes('README.md'));
  });

  it('leaves out TypeScript sources, configs, tests and installed modules', () => {
    const devFiles = files.filter((file) => /\.ts$|tsconfig|\.test\.|node_modules|package-lock/.test(file));
    assert.deepEqual(devFiles, []);
  });

  it('installs from the tarball into a Node-RED user dir, and each node file registers its type', async () => {
    const userDir = join(workDir, 'user-dir');
    await run('mkdir', ['-p', userDir]);
    await writeFile(join(userDir, 'package.json'), JSON.stringify({ name: 'node-red-project', private: true }));
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], { cwd: userDir });
    const installed = join(userDir, 'node_modules', '@crateflow', 'node-red');
    const manifest: PackageJson = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8'));
    const requireInstalled = createRequire(join(installed, 'package.json'));
    const registered: string[] = [];
    const RED = {
      nodes: { registerType: (type: string) => registered.push(type), createNode() {}, getNode: () => null, getCredentials: () => undefined },
      httpAdmin: { get() {}, post() {} },
      httpNode: { get() {}, post() {} },
      auth: { needsPermission: () => () => undefined },
      _: (key: string) => key,
    };
    for (const file of Object.values(manifest['node-red']?.nodes ?? {})) {
      const register: unknown = requireInstalled(`./${file}`);
      assert.equal(typeof register, 'function', `${file} exports the module function`);
      if (typeof register === 'function') register(RED);
    }
    assert.deepEqual(registered.sort(), ['crateflow-queue', 'crateflow-server', 'crateflow-webhook']);
  });
});
