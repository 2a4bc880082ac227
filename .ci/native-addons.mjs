// Usage: node .ci/native-addons.mjs      (with the Node that is about to run the tests first on PATH)
//
// Makes the installed native addons loadable by the Node running this script. better-sqlite3 is compiled for one
// Node ABI (NODE_MODULE_VERSION: 115 for Node 20, 127 for 22, 137 for 24), so the tree `npm ci` built on this
// machine's Node does not load under the other releases CI runs the suite on (.ci/with-node.sh). For each addon:
//   1. the binary in place loads: it is kept, and saved in the cache;
//   2. the cache holds a build for this ABI: it is put in place (a copy, then a rename, so that a process still
//      running the old binary keeps its mapped file);
//   3. else it is compiled here with node-gyp (`npm rebuild`), against the headers of the running Node's own
//      installation (the node-<platform>-<arch> package ships them in include/node): CI has no internet, so neither
//      a prebuilt binary nor the headers can be downloaded. The result is saved in the cache.
// Then a fresh process of this Node opens an SQLite database through it, or the script fails.
//
// The cache (CRATEFLOW_NATIVE_CACHE, default $TMPDIR/crateflow-native) is outside the checkout, so it survives the
// `npm ci` that empties node_modules; its entries are keyed by package version, ABI, platform and architecture,
// which is all a build depends on, so checkouts on one machine may share it.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, renameSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const repo = resolve(import.meta.dirname, '..');
// The workspace that depends on each addon (resolution starts there) and the file its loader looks for.
const NATIVE_ADDONS = [{ name: 'better-sqlite3', workspace: 'core', binary: 'build/Release/better_sqlite3.node' }];
const cacheRoot = process.env.CRATEFLOW_NATIVE_CACHE ?? join(process.env.TMPDIR ?? tmpdir(), 'crateflow-native');

for (const addon of NATIVE_ADDONS) {
  const requireFromWorkspace = createRequire(join(repo, addon.workspace, 'package.json'));
  const packageDir = dirname(requireFromWorkspace.resolve(`${addon.name}/package.json`));
  const { version } = requireFromWorkspace(`${addon.name}/package.json`);
  const binary = join(packageDir, addon.binary);
  const cached = join(cacheRoot, `${addon.name}-${version}-abi${process.versions.modules}-${process.platform}-${process.arch}.node`);
  const started = Date.now();
  let how;
  if (loads(binary)) {
    how = 'already built for this Node';
  } else if (existsSync(cached)) {
    copyAtomically(cached, binary);
    how = `taken from the cache ${cached}`;
  } else {
    rebuild(addon.name);
    how = 'compiled';
  }
  if (!existsSync(cached)) copyAtomically(binary, cached);
  check(addon.name, addon.workspace);
  console.error(`native-addons: ${addon.name} ${version} for Node ${process.version} (ABI ${process.versions.modules}): ${how} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** Whether this process can load the binary: a build for another ABI throws (NODE_MODULE_VERSION mismatch). */
function loads(file) {
  if (!existsSync(file)) return false;
  try {
    process.dlopen({ exports: {} }, file);
    return true;
  } catch {
    return false;
  }
}

function rebuild(name) {
  const env = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` };
  // The running Node's headers, when its installation has them (official builds: <prefix>/include/node); without
  // them node-gyp would try to download them.
  const prefix = dirname(dirname(process.execPath));
  if (existsSync(join(prefix, 'include', 'node', 'node_version.h'))) env.npm_config_nodedir = prefix;
  execFileSync('npm', ['rebuild', name, '--foreground-scripts'], { cwd: repo, env, stdio: ['ignore', 'inherit', 'inherit'] });
}

function copyAtomically(from, to) {
  mkdirSync(dirname(to), { recursive: true });
  const partial = `${to}.${process.pid}.partial`;
  copyFileSync(from, partial);
  renameSync(partial, to);
}

/** A new process of this Node (so nothing loaded here can hide a failure) opens a database through the addon. */
function check(name, workspace) {
  const script = `const Database = require(${JSON.stringify(name)}); const db = new Database(':memory:'); db.exec('create table t (x)'); db.prepare('insert into t values (?)').run(1); if (db.prepare('select count(*) n from t').get().n !== 1) process.exit(1); console.log(db.prepare('select sqlite_version() v').get().v);`;
  const sqlite = execFileSync(process.execPath, ['-e', script], { cwd: join(repo, workspace), encoding: 'utf8' }).trim();
  console.error(`native-addons: ${name} opens SQLite ${sqlite} under Node ${process.version}`);
}
