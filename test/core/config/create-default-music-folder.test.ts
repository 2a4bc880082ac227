import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { waitForListening } from '../../helpers/run-service.js';

const MAIN = fileURLToPath(new URL('../../../core/main.ts', import.meta.url));
// tsx by its resolved URL: `--import tsx` would be looked up from the (temp) working directory, which has no node_modules.
const TSX = import.meta.resolve('tsx');

async function runUntilListening(cwd: string, configText: string): Promise<void> {
  await writeFile(join(cwd, 'config.yaml'), configText);
  const child = spawn(process.execPath, ['--import', TSX, '--conditions=crateflow-source', MAIN, '--config', join(cwd, 'config.yaml')], {
    cwd,
    // tsx reads tsconfig.json (experimentalDecorators) from the working directory unless told where it is.
    env: { ...process.env, CRATEFLOW_CONFIG: '', PORT: '', TSX_TSCONFIG_PATH: fileURLToPath(new URL('../../../tsconfig.json', import.meta.url)) },
    stdio: 'pipe',
  });
  try {
    await waitForListening(child);
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
}

describe('first start in a fresh folder (the service process)', () => {
  it('creates ./music for the default folder library, next to ./data and ./blackhole', async (t) => {
    const cwd = await mkdtemp(join(tmpdir(), 'crateflow-first-start-'));
    t.after(() => rm(cwd, { recursive: true, force: true }));
    await runUntilListening(cwd, 'server:\n  port: 0\n');
    assert.ok((await stat(join(cwd, 'music'))).isDirectory());
    assert.deepEqual((await readdir(join(cwd, 'blackhole'))).sort(), ['.requests.crateflow-tmp', 'complete', 'requests'], 'the blackhole folders, and the one its request files are written in before they are renamed into requests/');
    assert.ok((await stat(join(cwd, 'data'))).isDirectory());
  });

  it('does not create a configured library.path that is missing (it may be an unmounted disk)', async (t) => {
    const cwd = await mkdtemp(join(tmpdir(), 'crateflow-first-start-'));
    t.after(() => rm(cwd, { recursive: true, force: true }));
    await runUntilListening(cwd, `server:\n  port: 0\nlibrary:\n  path: ${join(cwd, 'nas', 'music')}\n`);
    assert.deepEqual((await readdir(cwd)).sort(), ['blackhole', 'config.yaml', 'data']);
  });
});
