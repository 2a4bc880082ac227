import { execFile } from 'node:child_process';
import { cp, mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The source folder of the Node-RED package. */
export const packageDir = resolve(import.meta.dirname, '../../node-red-nodes');

/**
 * `require` as seen from the Node-RED package, so node-red, the test helper and typescript resolve whether they
 * are installed in node-red-nodes/node_modules or hoisted to the root by npm workspaces.
 */
export const requireFromPackage = createRequire(join(packageDir, 'package.json'));

/**
 * Copies the package (package.json, examples, editor and locale files) to `destination` and compiles the
 * TypeScript nodes there, each `<type>.js` next to its `<type>.html`. Each test file builds its own copy, so
 * parallel test files never read a half-written build and no compiled file lands in the source tree.
 */
export async function buildNodePackage(destination: string): Promise<string> {
  await mkdir(destination, { recursive: true });
  await cp(join(packageDir, 'package.json'), join(destination, 'package.json'));
  await cp(join(packageDir, 'README.md'), join(destination, 'README.md'));
  await cp(join(packageDir, 'examples'), join(destination, 'examples'), { recursive: true });
  await cp(join(packageDir, 'nodes'), join(destination, 'nodes'), {
    recursive: true,
    filter: (source) => !/\.(ts|js)$/.test(source),
  });
  const tsc = requireFromPackage.resolve('typescript/bin/tsc');
  try {
    await run(process.execPath, [tsc, '-p', join(packageDir, 'tsconfig.json'), '--outDir', join(destination, 'nodes')], { cwd: packageDir });
  } catch (error: unknown) {
    // tsc reports type errors on stdout; put them in the message so the failing test shows them.
    const output = typeof error === 'object' && error !== null && 'stdout' in error ? String(error.stdout) : '';
    throw new Error(`compiling node-red-nodes failed:\n${output}`, { cause: error });
  }
  return destination;
}
