// Plain JavaScript: npm runs this around `npm pack` and `npm publish` (the prepack and postpack scripts), and
// nothing here may need the build it wraps.
//
// Why it exists: in this repository, `exports` maps the `crateflow-source` condition to ./src/*.ts, so that tsx,
// tsc and esbuild read the sdk's sources (`npm run dev`, the tests, the bundle of `npm start`). The package ships
// only dist/, so a published copy carrying that mapping points at files it does not have, and `npm run dev`
// (whose --conditions flag applies to every package it loads) cannot load a third-party plugin that installed
// its own sdk. `strip` (prepack, after the build) swaps package.json for one without the condition, keeping the
// workspace one aside; `restore` (postpack) puts it back. npm reads package.json again after prepack, for pack
// and publish alike, so the tarball and the registry get the published form.
//
// `node scripts/published-manifest.mjs strip|restore`, run in sdk/.
import { existsSync } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';

const MANIFEST = 'package.json';
const WORKSPACE_COPY = '.package.workspace.json';
const CONDITION = 'crateflow-source';

/** `exports` with every `crateflow-source` entry removed, at any depth of the condition objects. */
function withoutCondition(value) {
  if (Array.isArray(value)) return value.map(withoutCondition);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => key !== CONDITION).map(([key, inner]) => [key, withoutCondition(inner)]));
}

async function restore() {
  if (existsSync(WORKSPACE_COPY)) await rename(WORKSPACE_COPY, MANIFEST);
}

async function strip() {
  // A pack that died between strip and restore left the workspace manifest aside: take it back first, so the
  // copy kept aside is always the workspace one.
  await restore();
  const text = await readFile(MANIFEST, 'utf8');
  const manifest = JSON.parse(text);
  const published = { ...manifest, exports: withoutCondition(manifest.exports) };
  await writeFile(WORKSPACE_COPY, text);
  await writeFile(MANIFEST, `${JSON.stringify(published, null, 2)}\n`);
}

const command = process.argv[2];
if (command === 'strip') await strip();
else if (command === 'restore') await restore();
else {
  process.stderr.write(`usage: node scripts/published-manifest.mjs strip|restore (got ${JSON.stringify(command)})\n`);
  process.exit(2);
}
