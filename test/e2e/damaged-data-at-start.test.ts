import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { appendFile, mkdtemp, open, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHECK_AT_OPEN_MAX_BYTES } from '../../core/integrity/integrity-check.js';
import { SCHEMA_VERSION } from '../../core/storage/schema-migrations.js';
import { DATABASE_FILE } from '../../core/storage/store.js';
import { api } from '../helpers/api-client.js';
import { mountTmpfs } from '../helpers/tmpfs-mount.js';
import { changeDatabase } from '../helpers/write-stored.js';
import { freePort, killAllServiceProcesses, runServiceToExit, SERVICE_CHILD, startServiceProcess } from '../resilience/service-process.js';
import { writeServiceConfig } from '../resilience/write-service-config.js';

after(killAllServiceProcesses);

/** A data dir holding two queue items, left by a service that was killed (`kill9`) or stopped. */
async function dataDirWithItems(ending: 'kill9' | 'stop'): Promise<{ root: string; config: string; port: number; data: string; db: string }> {
  const root = await mkdtemp(join(tmpdir(), 'crateflow-damaged-'));
  const port = await freePort();
  const config = await writeServiceConfig(root, port);
  const service = await startServiceProcess({ script: SERVICE_CHILD, args: ['--config', config], port });
  for (const artist of ['Low', 'Ride']) assert.equal((await api(service.baseUrl, 'POST', '/api/v1/queue', { artist, album: 'A' })).status, 201);
  await (ending === 'kill9' ? service.kill9() : service.stop());
  const data = join(root, 'data');
  return { root, config, port, data, db: join(data, DATABASE_FILE) };
}

/** Overwrites `length` bytes of `file` at `offset` with `byte`, as a failing disk or a stray write would. */
async function overwrite(file: string, offset: number, length: number, byte: number): Promise<void> {
  const handle = await open(file, 'r+');
  try {
    await handle.write(Buffer.alloc(length, byte), 0, length, offset);
  } finally {
    await handle.close();
  }
}

/** Asserts a start that stopped on the damaged database: exit 1, the file named with how to restore, no stack. */
function assertRefusedAsDamaged(started: { code: number | null; output: string }, db: string): void {
  assert.equal(started.code, 1);
  assert.ok(started.output.includes(`the database ${db} is damaged`), started.output);
  assert.match(started.output, /move .*crateflow\.db and its -wal and -shm files aside, and copy your latest backup .*"Backup and restore"/);
  assert.doesNotMatch(started.output, /\n\s+at /, 'no stack trace');
}

describe('damaged data at start-up', () => {
  it('refuses to start on a database whose pages are damaged, naming the file and how to restore, and changes nothing', async () => {
    const { config, db } = await dataDirWithItems('stop');
    // The third page of a stopped service's database is the root of one of its tables.
    await overwrite(db, 2 * 4096, 4096, 0xab);
    const before = await readFile(db);
    assertRefusedAsDamaged(await runServiceToExit(config), db);
    assert.deepEqual(await readFile(db), before, 'the damaged file is left as it was for the user to recover');
  });

  it('serves a database too large to check first at once, and stops, naming it, when the check beside it finds damage', async () => {
    const { root, port, data, db } = await dataDirWithItems('stop');
    // Past the 64 MiB checked before start-up (CHECK_AT_OPEN_MAX_BYTES): 80 MiB of rows in a table of their own.
    changeDatabase(data, (database) => {
      database.exec('CREATE TABLE filler (n INTEGER PRIMARY KEY, text TEXT NOT NULL)');
      const insert = database.prepare('INSERT INTO filler (n, text) VALUES (?, ?)');
      for (let n = 1; n <= 400_000; n++) insert.run(n, `${n}`.padEnd(200, 'x'));
    });
    assert.ok((await stat(db)).size > CHECK_AT_OPEN_MAX_BYTES);
    await overwrite(db, 10_000 * 4096, 4096, 0xab);
    const started = await runServiceToExit(await writeServiceConfig(root, port, { log: { level: 'info' } }));
    assert.equal(started.code, 1);
    const listening = started.output.indexOf('crateflow is listening');
    assert.ok(listening >= 0, `it started serving first:\n${started.output}`);
    assert.ok(started.output.indexOf(`the database ${db} is damaged`, listening) > listening, started.output);
    assert.doesNotMatch(started.output, /\n\s+at /, 'no stack trace');
  });

  it('refuses to start on a file that is not a database at all (its header overwritten)', async () => {
    const { config, db } = await dataDirWithItems('stop');
    await overwrite(db, 0, 16, 0x23);
    assertRefusedAsDamaged(await runServiceToExit(config), db);
  });

  it('refuses a database written by a newer version, naming both schema versions, and leaves it as it was', async () => {
    const { config, data, db } = await dataDirWithItems('stop');
    changeDatabase(data, (database) => database.pragma('user_version = 99'));
    const before = await readFile(db);
    const started = await runServiceToExit(config);
    assert.equal(started.code, 1);
    assert.ok(started.output.includes(`${db} was written by a newer Crateflow (schema version 99; this one knows up to ${SCHEMA_VERSION})`), started.output);
    assert.doesNotMatch(started.output, /\n\s+at /, 'no stack trace');
    assert.deepEqual(await readFile(db), before);
  });

  it('starts on a torn write-ahead log (a crash mid-write) and keeps every complete change', async () => {
    const { config, data, port } = await dataDirWithItems('kill9');
    // Half a frame after the last committed one: its checksum cannot match, so SQLite ignores it.
    await appendFile(join(data, `${DATABASE_FILE}-wal`), randomBytes(3000));
    const service = await startServiceProcess({ script: SERVICE_CHILD, args: ['--config', config], port });
    const pending = await api<{ items: { artist: string }[] }>(service.baseUrl, 'GET', '/api/v1/queue/pending');
    assert.deepEqual(pending.body.items.map((item) => item.artist).sort(), ['Low', 'Ride']);
    assert.equal((await api(service.baseUrl, 'POST', '/api/v1/queue', { artist: 'After', album: 'A' })).status, 201, 'and takes new writes');
    await service.stop();
  });

  it('refuses to start on a storage dir it cannot write, naming storage.dir', async (t) => {
    // Root ignores file permissions, so the dir is a read-only mount.
    const { root, disk: data } = await mountTmpfs(t, 'ro,size=1m', 'ro');
    const config = await writeServiceConfig(root, await freePort(), { storage: { dir: data } });
    const started = await runServiceToExit(config);
    assert.equal(started.code, 1);
    assert.match(started.output, /storage\.dir: cannot use ".*ro".*read-only/i);
  });
});
