import { mkdir, readdir, symlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { requireFromPackage } from './build-node-package.js';

/** The repository's node_modules that holds the `node-red` devDependency and everything it requires. */
const installedModules = dirname(dirname(requireFromPackage.resolve('node-red/package.json')));

/**
 * Makes `<dir>/node_modules` a view of the repository's node_modules without the `@crateflow` scope and returns the
 * path of `node-red/red.js` in it, to be run with `--preserve-symlinks --preserve-symlinks-main`.
 *
 * Why: besides `<userDir>/node_modules`, Node-RED loads node packages from the `node_modules` of every folder above
 * its own `@node-red/nodes` (node-red 4.1 @node-red/registry/lib/localfilesystem.js, scanTreeForNodesModules). Run
 * from the repository, that includes the npm-workspaces link node_modules/@crateflow/node-red → node-red-nodes/, so
 * the crateflow nodes would be registered before anything was installed, and an install test would prove nothing.
 * A user's Node-RED (global or in its own folder) has no such neighbour; this view reproduces that. With the
 * preserve-symlinks flags Node keeps the view's paths instead of resolving them back into the repository.
 */
export async function isolateNodeRedInstall(dir: string): Promise<string> {
  const view = join(dir, 'node_modules');
  await mkdir(view, { recursive: true });
  for (const entry of await readdir(installedModules)) {
    if (entry === '@crateflow' || entry.startsWith('.')) continue;
    await symlink(join(installedModules, entry), join(view, entry));
  }
  return join(view, 'node-red', 'red.js');
}
