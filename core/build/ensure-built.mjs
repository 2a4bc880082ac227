// Plain JavaScript on purpose: `npm start` runs this with plain node after `npm ci --omit=dev`, where neither
// tsx nor tsc is installed. It needs only esbuild (a production dependency for this reason).
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BUNDLE = join(ROOT, 'dist', 'crateflow.mjs');
const SDK_DIST = join(ROOT, 'sdk', 'dist', 'index.js');

/** Folders whose files go into the bundle (or the sdk build); a file newer than the output means rebuild. */
const BUNDLE_SOURCES = ['core', 'sdk/src', 'plugins', 'package.json', 'package-lock.json', 'tsconfig.json'];
const SKIPPED = new Set(['node_modules', 'dist', '.git']);

/**
 * Builds what `npm start` runs, only when a source changed since the last build, so a start on an unchanged tree
 * costs a directory walk (milliseconds) instead of a build:
 *  - dist/crateflow.mjs, the esbuild bundle of core, the sdk and the built-in plugins (core/build/bundle-crateflow.ts,
 *    transpiled here by esbuild itself because tsx is a development tool);
 *  - sdk/dist/*.js, the sdk as plain JavaScript, for third-party plugins that `import '@crateflow/sdk'` at run
 *    time. Its type declarations come from `npm run build -w @crateflow/sdk` (tsc) when the sdk is packed.
 */
export async function ensureBuilt({ force = false } = {}) {
  const built = [];
  const bundleTime = await modifiedAt(BUNDLE);
  if (force || bundleTime === undefined || (await newestIn(BUNDLE_SOURCES)) > bundleTime) {
    await buildBundle();
    built.push(relative(ROOT, BUNDLE));
  }
  const sdkTime = await modifiedAt(SDK_DIST);
  if (force || sdkTime === undefined || (await newestIn(['sdk/src', 'sdk/package.json'])) > sdkTime) {
    await buildSdk();
    built.push(relative(ROOT, dirname(SDK_DIST)));
  }
  return built;
}

async function buildBundle() {
  // Next to its source: bundle-crateflow.ts finds the repository root from its own location.
  const script = join(ROOT, 'core', 'build', `.bundle-crateflow-${process.pid}.mjs`);
  await mkdir(dirname(script), { recursive: true });
  await build({ entryPoints: [join(ROOT, 'core', 'build', 'bundle-crateflow.ts')], outfile: script, platform: 'node', format: 'esm', target: 'node20', logLevel: 'error' });
  try {
    const { bundleCrateflow } = await import(pathToFileURL(script).href);
    await bundleCrateflow(BUNDLE);
  } finally {
    await rm(script, { force: true });
  }
}

async function buildSdk() {
  const sources = await filesUnder(join(ROOT, 'sdk', 'src'));
  await build({
    entryPoints: sources.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts')),
    outdir: join(ROOT, 'sdk', 'dist'),
    outbase: join(ROOT, 'sdk', 'src'),
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'error',
  });
}

async function modifiedAt(path) {
  try {
    return (await stat(path)).mtimeMs;
  } catch (err) {
    if (err && err.code === 'ENOENT') return undefined;
    throw err;
  }
}

async function newestIn(paths) {
  let newest = 0;
  for (const path of paths) {
    const absolute = join(ROOT, path);
    const info = await stat(absolute).catch((err) => {
      if (err && err.code === 'ENOENT') return undefined; // an optional input (no lock file yet): nothing to compare
      throw err;
    });
    if (!info) continue;
    const files = info.isDirectory() ? await filesUnder(absolute) : [absolute];
    for (const file of files) newest = Math.max(newest, (await stat(file)).mtimeMs);
  }
  return newest;
}

async function filesUnder(dir) {
  const files = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (SKIPPED.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await filesUnder(path)));
    else if (entry.isFile()) files.push(path);
  }
  return files;
}

// `node core/build/ensure-built.mjs` (npm run build) rebuilds everything; `--if-changed` only what is stale.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  const built = await ensureBuilt({ force: !process.argv.includes('--if-changed') });
  if (built.length > 0) process.stdout.write(`built ${built.join(", ")} in ${Math.round(performance.now() - started)} ms\n`);
}
