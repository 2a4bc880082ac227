import { stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageEntry, type PackageEntry } from './package-entry.js';

/**
 * Where Crateflow itself is installed: this module's folder (core/plugins/ when run from the sources,
 * dist/ in the bundle of `npm start`). Walking up from it reaches the node_modules folder of Crateflow's
 * install, where the built-in plugins and the packages installed next to the server are.
 */
const CRATEFLOW_DIR = dirname(fileURLToPath(import.meta.url));

/** `@scope/name` or `name`, then an optional `/subpath`. Anything starting with `.` or `/` is a path instead. */
const PACKAGE_SPECIFIER = /^((?:@[^/@.][^/]*\/)?[^/@.][^/]*)(\/.+)?$/;

/**
 * Finds the file to `import()` for a `use:` value of config.yaml, in one of three forms:
 *  - a path to a module file (`./my-plugin/dist/index.js`, `/opt/plugins/x.js`, or a `file:` URL);
 *  - a path to a package folder (`./crateflow-sink-ntfy`), whose package.json names the entry (see packageEntry);
 *  - a package name (`crateflow-sink-ntfy`, `@acme/crateflow-sink`), looked up in node_modules folders from the
 *    config file's folder upwards first, so a plugin can be installed with npm next to config.yaml, and then from
 *    Crateflow's own install upwards (packages installed next to the server; `@crateflow/*` only there).
 * Paths are relative to the config file's folder. A `use` that leads nowhere gets a problem saying what was tried.
 */
export async function resolvePluginEntry(use: string, configDir: string): Promise<PackageEntry> {
  if (use.startsWith('file:')) return pathEntry(use, fileURLToPath(use));
  if (use === '.' || use === '..' || use.startsWith('./') || use.startsWith('../') || isAbsolute(use)) return pathEntry(use, resolve(configDir, use));
  const parts = PACKAGE_SPECIFIER.exec(use);
  const name = parts?.[1];
  if (!name) return { problem: `"${use}" is neither a package name nor a path (paths start with ./, ../ or /)` };
  const rest = parts?.[2];
  const subpath = rest === undefined ? '.' : `.${rest}`;

  // The @crateflow scope holds Crateflow's own packages (the built-in plugins): they always come from its install,
  // so a stray node_modules above the config file cannot swap a built-in for another version.
  const places = name.startsWith('@crateflow/') ? [CRATEFLOW_DIR] : [configDir, CRATEFLOW_DIR];
  for (const start of places) {
    const folder = await findPackageFolder(name, start);
    if (folder) return packageEntry(folder, `package "${name}"`, subpath);
  }
  const tried = places.map((start) => `${start} and the folders above it`).join(', then in ');
  const asPath = (await exists(resolve(configDir, use))) ? `; there is a "${use}" in the config file's folder: write "./${use}" to load it as a path` : '';
  return {
    problem:
      `cannot find plugin package "${name}": looked for node_modules/${name} in ${tried}${asPath} ` +
      `(install it with npm in the config file's folder or next to Crateflow, or give a path to its folder or .js file)`,
  };
}

/** A path names either the module file itself or a package folder. */
async function pathEntry(use: string, path: string): Promise<PackageEntry> {
  const info = await stat(path).catch((err: unknown) => {
    if (err instanceof Error && 'code' in err && (err.code === 'ENOENT' || err.code === 'ENOTDIR')) return undefined;
    throw new Error(`cannot read ${path} (plugin "${use}")`, { cause: err });
  });
  if (!info) return { problem: `cannot find plugin "${use}": ${path} does not exist (paths are relative to the config file's folder)` };
  return info.isDirectory() ? packageEntry(path, `the folder of plugin "${use}"`) : { file: path };
}

/** Node's lookup for a package name: `node_modules/<name>` in `start` and in each folder above it. */
async function findPackageFolder(name: string, start: string): Promise<string | undefined> {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (await isDirectory(candidate)) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then((info) => info.isDirectory(), () => false);
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(() => true, () => false);
}
