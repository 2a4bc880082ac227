// Attacks on the store through the real service: filling it to its bound with maximal items, a second
// process on the same data dir, and a damaged database file. Prints what it measured.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, open, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DATABASE_FILE } from '../../core/storage/store.js';
import { api } from '../helpers/api-client.js';
import { readDatabase } from '../helpers/read-stored.js';
import { freePort, killAllServiceProcesses, runServiceToExit, SERVICE_CHILD, startServiceProcess } from './service-process.js';
import { readWalTail } from './wal-tail.js';
import { writeServiceConfig } from './write-service-config.js';

after(killAllServiceProcesses);

const BOUND = 5000;
/**
 * How much larger than its records' JSON the database may be: linear in what was stored, a few times over. Beside
 * each record a queue row holds the columns it is listed, searched and matched by (search text, sort name, match
 * key: the long texts of a maximal item again), and two indexes hold the sort name and the match key once more; a
 * maximal sort name (~1 KB) is just past what an index page keeps in place, so each entry spills into an overflow
 * page of its own. Measured at 3.9× when this was written. A store that kept a copy per change, or never reused
 * freed pages, would be far past it.
 */
const MAX_BYTES_PER_JSON_BYTE = 5;
const roots: string[] = [];
const report: [string, string][] = [];

/** The largest candidate the API accepts: every text field at its maximum length. */
const maximal = (i: number) => ({
  artist: `${i} ${'a'.repeat(490)}`,
  album: 'b'.repeat(500),
  title: 't'.repeat(500),
  source: 's'.repeat(100),
  cover_url: `https://covers.example/${'c'.repeat(1900)}`,
  score: i,
  year: 2000,
});

describe('store attacks', () => {
  after(() => Promise.all(roots.map((root) => rm(root, { recursive: true, force: true }))));
  after(() => {
    const width = Math.max(...report.map(([k]) => k.length));
    process.stdout.write(`# === store attacks ===\n${report.map(([k, v]) => `#   ${k.padEnd(width)}  ${v}`).join('\n')}\n`);
  });

  it('fills the store to storage.max_items with maximal items: 507 past it, and a restart reads it all back', async () => {
    const root = await mkdtemp(join(tmpdir(), 'crateflow-bound-attack-'));
    roots.push(root);
    const port = await freePort();
    const config = await writeServiceConfig(root, port, { storage: { max_items: BOUND } });
    let service = await startServiceProcess({ script: SERVICE_CHILD, args: ['--config', config], port });
    let added = 0;
    let refused = 0;
    for (let batch = 0; refused === 0 && batch < 40; batch++) {
      // 250 maximal items stay under the 1 MiB body limit.
      const res = await api<{ items: unknown[] }>(service.baseUrl, 'POST', '/api/v1/queue', Array.from({ length: 250 }, (_, i) => maximal(batch * 250 + i)));
      if (res.status === 201) added += res.body.items.length;
      else {
        assert.equal(res.status, 507);
        refused++;
      }
    }
    const one = await api<{ detail: string }>(service.baseUrl, 'POST', '/api/v1/queue', maximal(99_999));
    assert.equal(one.status, 507);
    assert.equal(added, BOUND);
    await service.stop();
    const data = join(root, 'data');
    const database = (await stat(join(data, DATABASE_FILE))).size;
    const walLeft = await stat(join(data, `${DATABASE_FILE}-wal`)).then((wal) => wal.size, () => 0);
    const records = readDatabase(data, (db) => db.prepare('SELECT count(*) AS n, sum(length(CAST(record AS BLOB))) AS bytes, max(length(CAST(record AS BLOB))) AS largest FROM queue_items').get() as { n: number; bytes: number; largest: number });
    assert.equal(records.n, BOUND);
    assert.equal(walLeft, 0, 'a clean stop folds the WAL into the database');
    assert.ok(database <= MAX_BYTES_PER_JSON_BYTE * records.bytes, `the database takes ${database} bytes for ${records.bytes} bytes of records`);
    const started = performance.now();
    service = await startServiceProcess({ script: SERVICE_CHILD, args: ['--config', config], port });
    const restartMs = Math.round(performance.now() - started);
    const pending = await api<{ total: number }>(service.baseUrl, 'GET', '/api/v1/queue/pending?limit=1');
    assert.equal(pending.body.total, BOUND);
    await service.stop();
    report.push(
      ['bound (storage.max_items)', `${BOUND} maximal items (~3.6 KB each) held, the next ${refused} batch and a single add → 507`],
      ['database after a clean stop', `${mib(database)} for ${mib(records.bytes)} of records (${(database / records.bytes).toFixed(1)}×, limit ${MAX_BYTES_PER_JSON_BYTE}×), largest record ${records.largest} bytes, no WAL left`],
      ['restart at the bound', `ready in ${restartMs} ms with all ${BOUND} items`],
    );
  });

  it('refuses a second process on the same data dir and leaves every file as it was', async () => {
    const root = await mkdtemp(join(tmpdir(), 'crateflow-lock-attack-'));
    roots.push(root);
    const port = await freePort();
    const config = await writeServiceConfig(root, port);
    const first = await startServiceProcess({ script: SERVICE_CHILD, args: ['--config', config], port });
    for (let i = 0; i < 50; i++) assert.equal((await api(first.baseUrl, 'POST', '/api/v1/queue', { artist: `Held ${i}`, album: 'A' })).status, 201);
    const data = join(root, 'data');
    const files = async () => Promise.all((await readdir(data)).sort().map(async (name) => `${name}:${(await stat(join(data, name))).mtimeMs}`));
    const before = await files();
    const otherRoot = await mkdtemp(join(tmpdir(), 'crateflow-lock-attack-b-'));
    roots.push(otherRoot);
    const sameDir = await writeServiceConfig(otherRoot, await freePort(), { storage: { dir: data } });
    const secondDir = await runServiceToExit(sameDir);
    const samePort = await runServiceToExit(config);
    assert.equal(secondDir.code, 1);
    assert.equal(samePort.code, 1);
    assert.deepEqual(await files(), before);
    assert.equal((await api<{ total: number }>(first.baseUrl, 'GET', '/api/v1/queue/pending?limit=1')).body.total, 50);
    await first.stop();
    report.push(
      ['second process, same data dir', `exit ${secondDir.code}: ${firstLine(secondDir.output)}`],
      ['second process, same port', `exit ${samePort.code}: ${firstLine(samePort.output)}`],
      ['data dir after both', 'unchanged (names and modification times); the first still holds its 50 writes'],
    );
  });

  it('refuses to start on a damaged database file, naming the file and how to restore it, and leaves it as it was', async () => {
    const root = await mkdtemp(join(tmpdir(), 'crateflow-damage-attack-'));
    roots.push(root);
    const port = await freePort();
    const config = await writeServiceConfig(root, port);
    const service = await startServiceProcess({ script: SERVICE_CHILD, args: ['--config', config], port });
    for (let i = 0; i < 3; i++) assert.equal((await api(service.baseUrl, 'POST', '/api/v1/queue', { artist: `Kept ${i}`, album: 'A' })).status, 201);
    // A clean stop copies every page into the database file, so the damage below is in pages SQLite must read.
    assert.equal((await service.stop()).code, 0);
    const file = join(root, 'data', DATABASE_FILE);
    const damaged = await damageMiddlePages(file, 4);
    const started = await runServiceToExit(config);
    assert.equal(started.code, 1, started.output);
    assert.ok(started.output.includes(`the database ${file} is damaged`), `names the file: ${started.output}`);
    assert.match(started.output, /move .* aside, and copy your latest backup/, 'says how to restore');
    assert.deepEqual(await readFile(file), damaged, 'the refused start left the damaged file as it was, for whoever salvages it');
    report.push(['damaged database pages', `exit ${started.code}: ${firstLine(started.output).replaceAll(root, '<dir>')}`]);
  });

  it('refuses to start on a damaged WAL frame with acknowledged commits behind it, rather than drop them', async () => {
    // The heir of the old engine's damaged change log line: after kill -9 the acknowledged adds are in the WAL, not
    // yet copied into the database. SQLite alone takes a frame whose checksum fails for the end of the log and
    // opens without the commits behind it; one flipped byte in the first frame holding one of the adds must stop
    // the start instead, as a damaged page of the database file does.
    const root = await mkdtemp(join(tmpdir(), 'crateflow-wal-damage-attack-'));
    roots.push(root);
    const port = await freePort();
    const config = await writeServiceConfig(root, port);
    const service = await startServiceProcess({ script: SERVICE_CHILD, args: ['--config', config], port });
    for (let i = 0; i < 3; i++) assert.equal((await api(service.baseUrl, 'POST', '/api/v1/queue', { artist: `Kept ${i}`, album: 'A' })).status, 201);
    await service.kill9();
    const walFile = join(root, 'data', `${DATABASE_FILE}-wal`);
    const wal = await readFile(walFile);
    const at = wal.indexOf('Kept 0');
    assert.ok(at > 0, 'the first add is in the WAL');
    wal[at] = (wal[at] ?? 0) ^ 0xff;
    await writeFile(walFile, wal);
    const tail = await readWalTail(walFile);
    assert.ok(tail.commitsBehindDamage > 0, `acknowledged commits follow the damaged frame: ${JSON.stringify(tail)}`);
    const started = await runServiceToExit(config, 30_000);
    assert.equal(started.code, 1, `the start went on (killed after 30 s) or failed otherwise: ${started.output}`);
    assert.ok(started.output.includes(`${DATABASE_FILE}-wal`), `names the WAL: ${started.output}`);
    assert.match(started.output, /move .* aside, and copy your latest backup/, 'says how to restore');
    assert.deepEqual(await readFile(walFile), wal, 'the refused start left the WAL as it was');
    report.push(['damaged WAL frame', `exit ${started.code}: ${firstLine(started.output).replaceAll(root, '<dir>')}`]);
  });
});

/**
 * Overwrites `pages` whole pages in the middle of a SQLite file with a pattern no page holds (what a failing disk
 * or a stray write does); returns the file's bytes after. The first page (the header and the schema) is spared:
 * damage there is found by any read.
 */
async function damageMiddlePages(file: string, pages: number): Promise<Buffer> {
  const bytes = await readFile(file);
  const pageSize = bytes.readUInt16BE(16) === 1 ? 65536 : bytes.readUInt16BE(16);
  const pageCount = bytes.length / pageSize;
  assert.ok(pageCount > pages + 2, `the database has ${pageCount} pages, too few to damage the middle of`);
  const first = Math.max(1, Math.floor(pageCount / 2) - Math.floor(pages / 2));
  const handle = await open(file, 'r+');
  try {
    await handle.write(Buffer.alloc(pages * pageSize, 0xa5), 0, pages * pageSize, first * pageSize);
  } finally {
    await handle.close();
  }
  return readFile(file);
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

function firstLine(output: string): string {
  return (output.trim().split('\n')[0] ?? '').slice(0, 160);
}
