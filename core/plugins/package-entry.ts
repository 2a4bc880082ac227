import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/**
 * The conditions `import()` matches in a package's `exports`, in Node's own set for an ES module import. The
 * source condition `npm run dev` adds is left out on purpose: a plugin package found here is a built one, and
 * a published package that kept such a mapping would point at sources it does not ship.
 */
const IMPORT_CONDITIONS: readonly string[] = ['node', 'import', 'default'];

/** The file `import()` of a package folder (or of one of its subpaths) loads, or why there is none. */
export type PackageEntry = { file: string } | { problem: string };

/**
 * Finds the entry of the package in `folder` the way Node's ESM resolver does for a package name: the target of
 * `exports` for `subpath` (`.` for the package itself) under the conditions node, import and default, in the
 * order the package lists them; without `exports`, `main` (as a file, with `.js` added, or as a folder with
 * index.js), then index.js. Subpath patterns (`./*`) are not followed: a plugin is a package's main entry.
 */
export async function packageEntry(folder: string, label: string, subpath = '.'): Promise<PackageEntry> {
  const manifestPath = join(folder, 'package.json');
  let manifest: unknown;
  try {
    manifest = JSON.parse(await readFile(manifestPath, 'utf8'));
  } catch (err: unknown) {
    const why = isMissing(err) ? 'has no package.json' : `has an unreadable package.json (${err instanceof Error ? err.message : String(err)})`;
    return { problem: `${label} (${folder}) ${why}` };
  }
  if (!isRecord(manifest)) return { problem: `${label} (${folder}) has a package.json that is not a JSON object` };

  if (manifest.exports !== undefined && manifest.exports !== null) {
    const target = exportsTarget(manifest.exports, subpath);
    if (typeof target !== 'string') {
      return { problem: `${label} (${folder}) exports no "${subpath}" entry for import() (package.json "exports", conditions ${IMPORT_CONDITIONS.join(', ')})` };
    }
    if (!target.startsWith('./')) return { problem: `${label} (${folder}) has an "exports" target "${target}" that does not start with ./` };
    const file = resolve(folder, target);
    return (await isFile(file)) ? { file } : { problem: `${label} (${folder}) exports "${target}", which does not exist (is the package built?)` };
  }

  const main = subpath === '.' ? (typeof manifest.main === 'string' ? manifest.main : undefined) : subpath;
  const tried = main === undefined ? [] : [main, `${main}.js`, join(main, 'index.js')].map((candidate) => resolve(folder, candidate));
  if (subpath === '.') tried.push(resolve(folder, 'index.js'));
  for (const file of tried) if (await isFile(file)) return { file };
  const said = main === undefined ? 'has neither "exports" nor "main", and no index.js' : `names "${main}", which does not exist (is the package built?)`;
  return { problem: `${label} (${folder}) ${said}` };
}

/** The target of `subpath` in an `exports` value: a string, an array of fallbacks, a subpath map or conditions. */
function exportsTarget(exports: unknown, subpath: string): string | undefined {
  const isSubpathMap = isRecord(exports) && Object.keys(exports).some((key) => key.startsWith('.'));
  if (isSubpathMap) return Object.hasOwn(exports, subpath) ? conditionalTarget(exports[subpath]) : undefined;
  return subpath === '.' ? conditionalTarget(exports) : undefined;
}

/** Follows conditions in the package's own key order, as Node does: the first key it knows wins. */
function conditionalTarget(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    for (const fallback of value) {
      const target = conditionalTarget(fallback);
      if (target !== undefined) return target;
    }
    return undefined;
  }
  if (!isRecord(value)) return undefined; // null: the package says this entry is not exported
  for (const [condition, inner] of Object.entries(value)) {
    if (!IMPORT_CONDITIONS.includes(condition)) continue;
    const target = conditionalTarget(inner);
    if (target !== undefined) return target;
  }
  return undefined;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch (err: unknown) {
    if (isMissing(err)) return false;
    throw new Error(`cannot read ${path}`, { cause: err });
  }
}

function isMissing(err: unknown): boolean {
  return err instanceof Error && 'code' in err && (err.code === 'ENOENT' || err.code === 'ENOTDIR');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
