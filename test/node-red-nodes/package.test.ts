import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { lstat, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { packageDir } from './build-node-package.js';
import { launchNodeRed, type StartedNodeRed } from './start-node-red.js';

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
});


const CRATEFLOW_TYPES = ['crateflow-queue', 'crateflow-server', 'crateflow-webhook'];

/** The crateflow node types Node-RED registered (its admin API, `GET /nodes`), sorted. */
async function crateflowTypes(nodeRed: StartedNodeRed): Promise<string[]> {
  return (await nodeRed.loadedTypes()).filter((type) => type.startsWith('crateflow-')).sort();
}

/** Node-RED's module info (`GET /nodes/<module>`): `user` is true for a module listed in the user dir's package.json. */
async function moduleInfo(nodeRed: StartedNodeRed): Promise<{ name?: unknown; version?: unknown; user?: unknown }> {
  const response = await fetch(`${nodeRed.url}/nodes/@crateflow/node-red`, { headers: { accept: 'application/json' } });
  assert.equal(response.status, 200, nodeRed.output());
  return Object(await response.json());
}

async function dependenciesOf(userDir: string): Promise<Record<string, string>> {
  const manifest: { dependencies?: Record<string, string> } = JSON.parse(await readFile(join(userDir, 'package.json'), 'utf8'));
  return manifest.dependencies ?? {};
}

// The package is not on the npm registry, so the palette's search and `npm install @crateflow/node-red` find
// nothing. These are the ways the README names, each against the real `node-red` (devDependency) started with its
// shipped settings.js, and each ends with the admin API listing the crateflow node types.
describe('installing the packed .tgz into Node-RED', () => {
  it('installs through the palette manager\'s Upload module (POST /nodes with the .tgz) without a restart', async (t) => {
    const userDir = join(workDir, 'upload-user-dir');
    const nodeRed = await launchNodeRed(userDir);
    t.after(() => nodeRed.close());
    await nodeRed.start();
    assert.deepEqual(await crateflowTypes(nodeRed), []);

    // The editor's upload: admin route `POST /nodes`, multipart, the file in the field "tarball"
    // (node-red 4.1 @node-red/editor-api/lib/admin/index.js: `upload.single("tarball")`). It exists unless
    // externalModules.palette.allowInstall/allowUpload is false, and the file is used unless
    // editorTheme.palette.upload is false (lib/admin/nodes.js); the shipped settings.js sets none of them.
    const form = new FormData();
    form.append('tarball', new Blob([await readFile(tarball)], { type: 'application/gzip' }), basename(tarball));
    const response = await fetch(`${nodeRed.url}/nodes`, { method: 'POST', body: form });
    assert.equal(response.status, 200, `${await response.clone().text()}\n${nodeRed.output()}`);
    assert.equal(Reflect.get(Object(await response.json()), 'name'), '@crateflow/node-red');

    assert.deepEqual(await crateflowTypes(nodeRed), CRATEFLOW_TYPES);
    // Node-RED keeps the upload in <userDir>/nodes/ and saves it as a dependency, so it loads again after a restart.
    assert.match((await dependenciesOf(userDir))['@crateflow/node-red'] ?? '', /nodes\/crateflow-node-red-0\.1\.0\.tgz$/);
    assert.ok((await readdir(join(userDir, 'nodes'))).includes('crateflow-node-red-0.1.0.tgz'));
  });

  it('installs with `npm install <tgz>` in a user dir that has no package.json yet', async (t) => {
    const userDir = join(workDir, 'npm-tgz-user-dir');
    await mkdir(userDir);
    // --offline only keeps the test off the network: the package has no dependencies, so a user's plain
    // `npm install <tgz>` resolves the same tree.
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], { cwd: userDir });
    // With no package.json here or above, npm installs here and writes a package.json naming the tarball.
    assert.equal((await dependenciesOf(userDir))['@crateflow/node-red'], `file:${relative(userDir, tarball)}`);

    const nodeRed = await launchNodeRed(userDir);
    t.after(() => nodeRed.close());
    await nodeRed.start();
    assert.deepEqual(await crateflowTypes(nodeRed), CRATEFLOW_TYPES);
    // Listed in package.json, it counts as user-installed, which the palette manager needs to remove or update it
    // (node-red 4.1 @node-red/runtime/lib/nodes/index.js uninstallModule refuses a module whose info has no `user`).
    assert.equal((await moduleInfo(nodeRed)).user, true);
  });

  it('installs with `npm install <folder>` of the built package folder, which npm links', async (t) => {
    const userDir = join(workDir, 'npm-folder-user-dir');
    await mkdir(userDir);
    // The package.json Node-RED writes into a new user dir on its first start
    // (@node-red/runtime/lib/storage/localfilesystem/index.js).
    await writeFile(join(userDir, 'package.json'), JSON.stringify({ name: 'node-red-project', description: 'A Node-RED Project', version: '0.0.1', private: true }, null, 4));
    // The source folder is built: `npm pack` above ran its prepack (`npm run build`).
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', packageDir], { cwd: userDir });
    assert.ok((await lstat(join(userDir, 'node_modules', '@crateflow', 'node-red'))).isSymbolicLink(), 'npm links a folder');

    const nodeRed = await launchNodeRed(userDir);
    t.after(() => nodeRed.close());
    await nodeRed.start();
    assert.deepEqual(await crateflowTypes(nodeRed), CRATEFLOW_TYPES);
    assert.equal((await moduleInfo(nodeRed)).user, true);
  });
});
