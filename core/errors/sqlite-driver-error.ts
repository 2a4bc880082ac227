import { SQLITE_DRIVER_PACKAGE } from '../sqlite/sqlite-driver.js';

/**
 * The SQLite driver is a native addon (core/sqlite/sqlite-driver.ts). Node 20's, better-sqlite3 12, is compiled
 * for one Node.js ABI at install: after Node is upgraded within 20, or a tree installed with `--ignore-scripts` or
 * under another Node is started, loading it fails with Node's own dlopen message, which names neither the fix nor
 * the cause in a user's terms. Node 22 and later load a ready-made build, which only an unknown platform lacks.
 */
export class SqliteDriverError extends Error {
  constructor(reason: string) {
    const fix = SQLITE_DRIVER_PACKAGE === 'better-sqlite3'
      ? 'Run "npm rebuild better-sqlite3" in the Crateflow folder with this Node, or start Crateflow with the Node it was installed with'
      : 'Its ready-made builds cover Linux (glibc and musl), macOS and Windows on x64 and arm64; run "npm ci" again with this Node';
    super(`the SQLite driver (${SQLITE_DRIVER_PACKAGE}) does not load under Node.js ${process.version} (NODE_MODULE_VERSION ${process.versions.modules}): ${reason}. ${fix}`);
    this.name = 'SqliteDriverError';
  }
}

/** The driver's own load failure, recognised from what Node (dlopen) and the `bindings` loader throw; else undefined. */
export function sqliteDriverError(err: unknown): SqliteDriverError | undefined {
  if (!(err instanceof Error)) return undefined;
  const code = (err as NodeJS.ErrnoException).code;
  const builtFor = /using\s+NODE_MODULE_VERSION (\d+)/.exec(err.message)?.[1];
  if (builtFor) return new SqliteDriverError(`it was compiled for NODE_MODULE_VERSION ${builtFor}`);
  if (code === 'ERR_DLOPEN_FAILED') return new SqliteDriverError(err.message.split('\n')[0] ?? 'dlopen failed');
  if (err.message.startsWith('Could not locate the bindings file')) return new SqliteDriverError('it was never compiled (no build/Release/better_sqlite3.node)');
  // 13 on a platform it ships no build for, and none compiled: it asks for build/Release/better_sqlite3.node.
  if (code === 'MODULE_NOT_FOUND' && err.message.includes('better_sqlite3.node')) return new SqliteDriverError(`no build of it for ${process.platform}-${process.arch}`);
  return undefined;
}
