// Plain JavaScript on purpose, like core/build/start-crateflow.mjs: `npm run demo` after `npm ci --omit=dev` has
// no tsx. The demo and the project's fakes it starts are TypeScript, so they are bundled with esbuild (a
// production dependency) into dist/demo/ first; the service runs from the bundle `npm start` runs.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { BUNDLE, ensureBuilt } from '../core/build/ensure-built.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DEMO_BUNDLE = join(ROOT, 'dist', 'demo', 'demo-main.mjs');

const built = await ensureBuilt();
if (built.length > 0) process.stderr.write(`crateflow: built ${built.join(', ')}\n`);
await build({
  entryPoints: [join(ROOT, 'demo', 'demo-main.ts')],
  outfile: DEMO_BUNDLE,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  conditions: ['crateflow-source'],
  tsconfig: join(ROOT, 'tsconfig.json'),
  // undici is loaded on the first outbound request by the sdk; the fakes make none. better-sqlite3 finds its
  // compiled addon relative to its own files, so it is loaded from node_modules (as in the service's bundle).
  external: ['undici', 'better-sqlite3', 'better-sqlite3-napi'],
  banner: { js: "import { createRequire as __demoRequire } from 'node:module'; const require = __demoRequire(import.meta.url);" },
  logLevel: 'error',
});
const { demoMain } = await import(pathToFileURL(DEMO_BUNDLE).href);
process.exitCode = await demoMain(process.argv.slice(2), BUNDLE);
