import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import type BetterSqlite3 from 'better-sqlite3';
import { SqliteDatabase } from '../../../core/sqlite/sqlite-driver.js';
import { bundleCrateflow } from '../../../core/build/bundle-crateflow.js';
import { Store } from '../../../core/storage/store.js';
import { REPO_ROOT } from '../../helpers/run-service.js';

// `crateflow backup FILE` (npm run backup -- FILE), run as a real process against a real data dir.
const MAIN = fileURLToPath(new URL('../../../core/main.ts', import.meta.url));
const WRITER = fileURLToPath(new URL('../../helpers/busy-database-writer.ts', import.meta.url));
// tsx by its resolved URL: `--import tsx` would be looked up from the (temp) working directory, which has no node_modules.
const TSX = import.meta.resolve('tsx');
const TSCONFIG = fileURLToPath(new URL('../../../tsconfig.json', import.meta.url));
const ENV = { ...process.env, CRATEFLOW_CONFIG: '', PORT: '', TSX_TSCONFIG_PATH: TSCONFIG };

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

async function finish(child: ReturnType<typeof spawn>): Promise<Finished> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

/** `crateflow ARGS` from the TypeScript sources, in `cwd`. */
function crateflow(args: string[], cwd: string): Promise<Finished> {
  return finish(spawn(process.execPath, ['--import', TSX, '--conditions=crateflow-source', MAIN, ...args], { cwd, env: ENV, stdio: 'pipe' }));
}

/** A temp folder with a config.yaml whose storage.dir is `./data` (relative: resolved against the config's folder). */
async function setUp(t: TestContext): Promise<{ dir: string; config: string; dataDir: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'crateflow-backup-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const config = join(dir, 'config.yaml');
  await writeFile(config, 'storage:\n  dir: ./data\n');
  return { dir, config, dataDir: join(dir, 'data') };
}

/** Opens a backup and answers what its rows say: the writer's count and the rows it wrote. */
function readCopy(file: string): { quickCheck: string; recorded: number; rows: number } {
  const db = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  try {
    const quickCheck = String(db.pragma('quick_check', { simple: true }));
    const recorded = Number((db.prepare("SELECT record FROM source_state WHERE name = 'writer'").get() as { record: string } | undefined)?.record ?? 0);
    const rows = (db.prepare("SELECT count(*) AS n FROM plugin_entries WHERE plugin = 'writer'").get() as { n: number }).n;
    return { quickCheck, recorded, rows };
  } finally {
    db.close();
  }
}

describe('crateflow backup FILE (a real process)', () => {
  it('copies the database while another process holds the data dir and commits without pause: one consistent snapshot that passes its quick check', async (t) => {
    const { dir, config, dataDir } = await setUp(t);
    const writer = spawn(process.execPath, ['--import', TSX, '--conditions=crateflow-source', WRITER, dataDir], { env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    const writerDone = finish(writer);
    t.after(() => writer.exitCode === null && writer.kill('SIGKILL'));
    let output = '';
    await new Promise<void>((resolve, reject) => {
      writer.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('ready\n')) resolve();
      });
      writer.once('exit', (code) => reject(new Error(`the writer exited (${code}) before it was ready`)));
    });
    assert.ok(existsSync(join(dataDir, 'crateflow.lock')), 'the writer holds the data dir, as the service does');

    const targets = [join(dir, 'first.db'), join(dir, 'second.db')];
    const results: Finished[] = [];
    for (const target of targets) results.push(await crateflow(['backup', target, '--config', config], dir));
    writer.kill('SIGTERM');
    const { code: writerCode, stdout: writerOut } = await writerDone;
    assert.equal(writerCode, 0, 'the writer was never held up into failing');

    assert.deepEqual((await readdir(dir)).sort(), ['config.yaml', 'data', 'first.db', 'second.db'], 'each copy is one file: no temporary copy, no -wal or -shm');
    const copies = targets.map((target) => readCopy(target));
    for (const [i, result] of results.entries()) {
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, new RegExp(`written to ${targets[i]} \\(\\d+(\\.\\d)? (KiB|MiB)\\), quick check ok`));
      assert.match(result.stdout, new RegExp(`plugin_entries\\s+${copies[i]?.rows}\\n`), 'the printed count is the copy\'s');
      for (const table of ['queue_items', 'wishlist_items', 'downloads', 'jobs', 'events', 'library_albums']) assert.match(result.stdout, new RegExp(`${table}\\s+0\\n`));
    }
    for (const copy of copies) {
      assert.equal(copy.quickCheck, 'ok');
      assert.ok(copy.rows >= 400, `the copy holds what was written before it (${copy.rows} rows)`);
      assert.equal(copy.recorded, copy.rows, 'every transaction is in the copy whole or not at all');
    }
    const total = Number(/wrote (\d+)/.exec(writerOut)?.[1]);
    assert.ok((copies[1]?.rows ?? 0) > (copies[0]?.rows ?? 0) && (copies[1]?.rows ?? 0) <= total, `the writer went on meanwhile: ${copies.map((c) => c.rows).join(' then ')} of ${total}`);
  });

  it('refuses to replace an existing file (exit 2), leaving it as it was', async (t) => {
    const { dir, config, dataDir } = await setUp(t);
    const store = await Store.open(dataDir);
    await store.close();
    const target = join(dir, 'monday.db');
    await writeFile(target, 'last week\'s backup');
    const result = await crateflow(['backup', target, '--config', config], dir);
    assert.equal(result.code, 2);
    assert.match(result.stderr, new RegExp(`crateflow backup: ${target} already exists; a backup never replaces a file`));
    assert.equal(await readFile(target, 'utf8'), 'last week\'s backup');
    assert.equal(result.stdout, '');
  });

  it('names the missing database and the storage.dir it looked in (exit 1), and writes nothing', async (t) => {
    const { dir, config, dataDir } = await setUp(t);
    await mkdir(dataDir);
    const target = join(dir, 'copy.db');
    const result = await crateflow(['backup', target, '--config', config], dir);
    assert.equal(result.code, 1);
    assert.ok(result.stderr.includes(`there is no database ${join(dataDir, 'crateflow.db')} to copy (storage.dir is ${dataDir}, from ${config})`), result.stderr);
    assert.ok(!existsSync(target));
    assert.deepEqual(await readdir(dir), ['config.yaml', 'data'], 'nothing created, the database included');
    assert.deepEqual(await readdir(dataDir), []);
  });

  it('exits 2 on a command line it cannot follow, before reading anything', async (t) => {
    const { dir } = await setUp(t);
    const cases: [string[], RegExp][] = [
      [['backup'], /backup needs the file to write: backup FILE \[--config PATH\]/],
      [['backup', 'a.db', 'b.db'], /backup takes one file, got "a.db" and "b.db"/],
      [['backup', 'a.db', '--confg', 'x.yaml'], /unknown option --confg for backup/],
      [['backup', 'a.db', '--config'], /option --config needs a value/],
    ];
    for (const [args, message] of cases) {
      const result = await crateflow(args, dir);
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message);
      assert.match(result.stderr, /Run "crateflow --help" for usage/);
    }
    assert.deepEqual(await readdir(dir), ['config.yaml']);
    const help = await crateflow(['--help'], dir);
    assert.match(help.stdout, /crateflow backup FILE \[--config PATH\]/);
  });

  it('runs from the esbuild bundle npm runs (the SQLite driver is loaded from node_modules, not bundled)', async (t) => {
    const { dir, config, dataDir } = await setUp(t);
    const store = await Store.open(dataDir);
    await store.change(() => store.db.prepare("INSERT INTO plugin_entries (plugin, key, seq, value) VALUES ('p', 'k', 1, '1')").run());
    await store.close();
    // Inside the repository, as `npm run build` does, so that node_modules is found from the bundle's folder.
    await mkdir(join(REPO_ROOT, 'dist'), { recursive: true });
    const bundleDir = await mkdtemp(join(REPO_ROOT, 'dist', 'test-backup-'));
    t.after(() => rm(bundleDir, { recursive: true, force: true }));
    const bundle = join(bundleDir, 'crateflow.mjs');
    await bundleCrateflow(bundle);
    const code = await readFile(join(bundleDir, 'crateflow.code.cjs'), 'utf8');
    assert.ok(code.includes('"better-sqlite3-napi"') && code.includes('"better-sqlite3"'), 'the bundle names both drivers, to load one at run time');
    assert.doesNotMatch(code, /function Database\(filenameGiven/, 'and carries neither');
    const target = join(dir, 'from-bundle.db');
    const result = await finish(spawn(process.execPath, [bundle, 'backup', target, '--config', config], { cwd: dir, env: ENV, stdio: 'pipe' }));
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /plugin_entries\s+1\n/);
  });
});
