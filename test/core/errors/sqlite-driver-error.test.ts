import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { sqliteDriverError } from '../../../core/errors/sqlite-driver-error.js';
import { SQLITE_DRIVER_PACKAGE } from '../../../core/sqlite/sqlite-driver.js';

// The fix named depends on the driver this Node loads: Node 20's is rebuilt, the ready-made one installed again.
const FIX = SQLITE_DRIVER_PACKAGE === 'better-sqlite3' ? /npm rebuild better-sqlite3/ : /npm ci" again with this Node/;

describe('sqliteDriverError', () => {
  it('names the driver, the Node it was built for and the command that fixes it', () => {
    // Node's own text for an addon of another ABI (src/node_binding.cc), as CI printed it for Node 22 on 2026-11-28.
    const err = Object.assign(new Error("The module '/srv/crateflow/node_modules/better-sqlite3/build/Release/better_sqlite3.node'\nwas compiled against a different Node.js version using\nNODE_MODULE_VERSION 115. This version of Node.js requires\nNODE_MODULE_VERSION 127. Please try re-compiling or re-installing\nthe module (for instance, using `npm rebuild` or `npm install`)."), { code: 'ERR_DLOPEN_FAILED' });
    const found = sqliteDriverError(err);
    assert.ok(found);
    assert.match(found.message, /compiled for NODE_MODULE_VERSION 115/);
    assert.ok(found.message.includes(`(${SQLITE_DRIVER_PACKAGE})`));
    assert.match(found.message, new RegExp(`Node\\.js ${process.version.replaceAll('.', '\\.')} \\(NODE_MODULE_VERSION ${process.versions.modules}\\)`));
    assert.match(found.message, FIX);
  });

  it('recognises a binary this Node cannot load at all, from a real dlopen', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'crateflow-addon-'));
    try {
      const file = join(dir, 'better_sqlite3.node');
      await writeFile(file, 'not an ELF file');
      let thrown: unknown;
      try {
        process.dlopen({ exports: {} }, file);
      } catch (err) {
        thrown = err;
      }
      const found = sqliteDriverError(thrown);
      assert.ok(found, `recognised: ${String(thrown)}`);
      assert.match(found.message, FIX);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('recognises a driver that was never compiled (npm ci --ignore-scripts) or has no build for this platform, and leaves other errors alone', () => {
    assert.match(sqliteDriverError(new Error('Could not locate the bindings file. Tried:\n → /srv/build/better_sqlite3.node'))?.message ?? '', /never compiled/);
    const noBuild = Object.assign(new Error("Cannot find module '/srv/node_modules/better-sqlite3-napi/build/Release/better_sqlite3.node'"), { code: 'MODULE_NOT_FOUND' });
    assert.match(sqliteDriverError(noBuild)?.message ?? '', new RegExp(`no build of it for ${process.platform}-${process.arch}`));
    assert.equal(sqliteDriverError(Object.assign(new Error("Cannot find module 'koa'"), { code: 'MODULE_NOT_FOUND' })), undefined);
    assert.equal(sqliteDriverError(Object.assign(new Error('EACCES: permission denied, mkdir'), { code: 'EACCES' })), undefined);
    assert.equal(sqliteDriverError('a string'), undefined);
  });
});
