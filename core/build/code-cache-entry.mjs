// The bundle's entry (dist/crateflow.mjs), written by core/build/bundle-crateflow.ts from this template: it runs the
// bundled service (a CommonJS file next to it) through a V8 code cache. Without one, every start parses and compiles
// 1.7 MB of JavaScript, and then compiles again each function the start calls: about 80 ms of a 420 ms start on a
// two-core machine. The cache holds the bytecode of everything a start ran, taken a few seconds after a start
// without it, and is used by the starts after.
//  - It lives beside the bundle, in .code-cache/, and nowhere else: a cache is code, so it must be as trusted as
//    the bundle (a shared temporary folder is not). Where that folder is read-only, the service runs uncached.
//  - Its name carries the bundle's content hash, the Node release and the node flags. V8 checks its own version,
//    flags and the source's length, but not the source's content: a rebuilt bundle of the same length must not
//    reuse bytecode compiled from the old one, and the hash in the name sees to that.
//  - V8 checks a cache's header (its version, flags, the source's length), not its bytecode: a cache damaged inside
//    (a bad disk, a torn write) would crash every start. So the file begins with a SHA-256 of the rest, checked
//    before V8 sees it, and is fsynced before it is renamed into place.
//  - A cache refused (by that check, or by V8 for another flag) costs one uncached start and is rewritten.
import { createHash } from 'node:crypto';
import { accessSync, closeSync, constants, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import vm from 'node:vm';

const CODE_FILE = '__CODE_FILE__';
const CODE_HASH = '__CODE_HASH__';
/** Long enough for a start to have run (config, plugins, store, first requests), short enough to be taken. */
const CACHE_AFTER_MS = 3000;
const DIGEST_BYTES = 32;

const here = dirname(fileURLToPath(import.meta.url));
const file = join(here, CODE_FILE);
const cacheDir = join(here, '.code-cache');
const cacheFile = join(cacheDir, `${CODE_HASH}-${process.version}-${process.arch}-${textKey(process.execArgv.join(' '))}.bin`);

const cached = readCache();
// The bundle is ASCII only (bundle-crateflow.ts escapes the rest), so latin1 reads the same text, faster than UTF-8.
const source = readFileSync(file, 'latin1');
// No importModuleDynamically: a script from a code cache loses it on Node 20, and Node 22 and 24 warn that it is
// experimental. The bundle imports through __crateflowImport instead (bundle-crateflow.ts, importsThroughEntry).
const script = new vm.Script(`(function (exports, require, module, __filename, __dirname, __crateflowUrl, __crateflowResolve, __crateflowImport) {${source}\n})`, {
  filename: file,
  cachedData: cached,
});
if (cached === undefined || script.cachedDataRejected) setTimeout(() => saveCache(script), CACHE_AFTER_MS).unref();

const module = { exports: {} };
// import.meta.url and import.meta.resolve of the bundled sources, and their import(), mean this folder's module.
script.runInThisContext()(module.exports, createRequire(file), module, file, here, pathToFileURL(file).href, (specifier) => import.meta.resolve(specifier), (specifier) => import(specifier));

/** The cache's bytecode when the file is whole (its SHA-256 matches), else undefined: compile from source. */
function readCache() {
  let stored;
  try {
    stored = readFileSync(cacheFile);
  } catch {
    return undefined; // none yet, or unreadable
  }
  const data = stored.subarray(DIGEST_BYTES);
  const whole = stored.length > DIGEST_BYTES && createHash('sha256').update(data).digest().equals(stored.subarray(0, DIGEST_BYTES));
  return whole ? data : undefined;
}

function saveCache(compiled) {
  try {
    mkdirSync(cacheDir, { recursive: true });
    accessSync(cacheDir, constants.W_OK);
  } catch {
    return; // a read-only install runs uncached: nothing to serialise
  }
  // Written whole and flushed, then renamed: two services starting together, a kill or a power cut never leave a
  // partial cache under the name that is read.
  const partial = `${cacheFile}.${process.pid}.tmp`;
  try {
    const data = compiled.createCachedData();
    const fd = openSync(partial, 'w', 0o644);
    try {
      writeSync(fd, createHash('sha256').update(data).digest());
      writeSync(fd, data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(partial, cacheFile);
    pruneCacheDir();
  } catch {
    // A full disk, say: the service runs as well, only its next start is not faster.
    rmSync(partial, { force: true });
  }
}

/** Removes the caches of earlier builds, and partial files a killed writer left (older than a minute). */
function pruneCacheDir() {
  for (const name of readdirSync(cacheDir)) {
    const path = join(cacheDir, name);
    const stale = !name.startsWith(CODE_HASH) || (name.endsWith('.tmp') && Date.now() - statSync(path).mtimeMs > 60_000);
    if (stale) rmSync(path, { force: true });
  }
}

/** A short stable key of a text (32-bit FNV-1a, in hex): names the cache of one set of node flags. */
function textKey(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash.toString(16).padStart(8, '0');
}
