import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Type } from '@crateflow/sdk';
import { assertRecord } from '@crateflow/sdk/testing';
import { startApp } from '../../helpers/start-app.js';

/** An event sink in plain JavaScript that needs nothing installed (not even the sdk), named `name`. */
const sinkModule = (name: string) =>
  `export default { manifest: { name: ${JSON.stringify(name)}, kind: 'event-sink', apiVersion: 1, configSchema: { type: 'object' } }, create: () => ({ async deliver() {} }) };\n`;

const PluginList = Type.Object({ items: Type.Array(Type.Object({ name: Type.String() })) });

// Every form `plugins[].use` accepts, on real files in a temp dir laid out like a server's:
//   <temp>/node_modules/@acme/crateflow-sink-scoped   a package in a folder above the config file's
//   <temp>/etc/crateflow/config.yaml's folder (configDir), holding node_modules/crateflow-sink-named and plugins/…
describe('plugins[].use', () => {
  let temp: string;
  let configDir: string;

  const write = async (path: string, content: string) => {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content);
  };

  before(async () => {
    temp = await mkdtemp(join(tmpdir(), 'crateflow-plugin-use-'));
    configDir = join(temp, 'etc', 'crateflow');
    const plugins = join(configDir, 'plugins');
    // Conditions in the package's own order: `types` and `require` come first and must be passed over for `import`.
    await write(
      join(plugins, 'sink-folder', 'package.json'),
      JSON.stringify({ type: 'module', exports: { '.': { types: './lib/entry.d.ts', require: './lib/entry.cjs', import: './lib/entry.js' }, './package.json': './package.json' } }),
    );
    await write(join(plugins, 'sink-folder', 'lib', 'entry.js'), sinkModule('sink-folder'));
    await write(join(plugins, 'sink-main', 'package.json'), JSON.stringify({ type: 'module', main: 'lib/main.js' }));
    await write(join(plugins, 'sink-main', 'lib', 'main.js'), sinkModule('sink-main'));
    await write(join(plugins, 'sink-file.mjs'), sinkModule('sink-file'));
    await write(join(plugins, 'unbuilt', 'package.json'), JSON.stringify({ type: 'module', exports: './dist/index.js' }));
    await write(join(configDir, 'node_modules', 'crateflow-sink-named', 'package.json'), JSON.stringify({ type: 'module', exports: './index.js' }));
    await write(join(configDir, 'node_modules', 'crateflow-sink-named', 'index.js'), sinkModule('sink-named'));
    await write(join(temp, 'node_modules', '@acme', 'crateflow-sink-scoped', 'package.json'), JSON.stringify({ type: 'module', exports: { import: './index.js' } }));
    await write(join(temp, 'node_modules', '@acme', 'crateflow-sink-scoped', 'index.js'), sinkModule('sink-scoped'));
  });
  after(() => rm(temp, { recursive: true, force: true }));

  /** Starts a server with one `plugins:` entry and answers the names `GET /api/v1/plugins` lists. */
  async function loadedNames(use: string): Promise<string[]> {
    const app = await startApp({ config: { plugins: [{ use }] }, configDir });
    try {
      const body: unknown = await (await fetch(`${app.baseUrl}/api/v1/plugins`)).json();
      assertRecord(PluginList, body, 'GET /api/v1/plugins');
      return body.items.map((p) => p.name);
    } finally {
      await app.close();
    }
  }

  it('loads a package folder through its package.json "exports", taking the import entry', async () => {
    assert.ok((await loadedNames('./plugins/sink-folder')).includes('sink-folder'));
  });

  it('loads a package folder without "exports" through its "main"', async () => {
    assert.ok((await loadedNames('./plugins/sink-main')).includes('sink-main'));
  });

  it('loads a package by name from node_modules in the config file’s folder', async () => {
    assert.ok((await loadedNames('crateflow-sink-named')).includes('sink-named'));
  });

  it('loads a scoped package by name from node_modules in a folder above the config file’s', async () => {
    assert.ok((await loadedNames('@acme/crateflow-sink-scoped')).includes('sink-scoped'));
  });

  it('loads a module file by its relative path, its absolute path or its file: URL', async () => {
    const file = join(configDir, 'plugins', 'sink-file.mjs');
    for (const use of ['./plugins/sink-file.mjs', file, pathToFileURL(file).href]) assert.ok((await loadedNames(use)).includes('sink-file'), use);
  });

  it('refuses to start when a use leads nowhere, naming plugins[N].use and what was tried', async () => {
    const uses = ['crateflow-sink-missing', './plugins/sink-gone', './plugins/unbuilt', 'plugins/sink-file.mjs'];
    const started = startApp({ config: { plugins: uses.map((use) => ({ use })) }, configDir });
    const err: unknown = await started.then(
      async (app) => {
        await app.close();
        return undefined;
      },
      (failure: unknown) => failure,
    );
    assert.ok(err instanceof Error, 'startup fails');
    const lines = err.message.split('\n');
    const line = (n: number) => lines.find((l) => l.includes(`plugins[${n}].use:`)) ?? assert.fail(`no line for plugins[${n}].use in:\n${err.message}`);
    // A name: both places it was looked for, the config file's folder first.
    assert.match(line(0), /cannot find plugin package "crateflow-sink-missing": looked for node_modules\/crateflow-sink-missing in /);
    assert.ok(line(0).includes(`in ${configDir} and the folders above it, then in `), line(0));
    // A path: the absolute path it was resolved to.
    assert.ok(line(1).includes(`${join(configDir, 'plugins', 'sink-gone')} does not exist`), line(1));
    // A package folder whose entry is not built.
    assert.match(line(2), /exports "\.\/dist\/index\.js", which does not exist \(is the package built\?\)/);
    // A path written without ./ is a package name; the message says how to write it as a path.
    assert.match(line(3), /write "\.\/plugins\/sink-file\.mjs" to load it as a path/);
  });
});
