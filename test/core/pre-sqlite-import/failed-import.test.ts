// An import that cannot finish: a damaged old file stops it before the commit, naming the file and line, with every
// old file left as it was; a move of the old files cut short after the commit is finished at the next start,
// without importing twice.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { access, appendFile, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PreSqliteImportError } from '../../../core/pre-sqlite-import/pre-sqlite-import-error.js';
import { Store } from '../../../core/storage/store.js';
import { copyOfFixture, filesOf, heldBy, openAndImport } from './old-data-dir.js';

const C086EC1 = {
  pending: 3, approved: 4, rejected: 2, wishlist: 1, waiting: 5, downloads: 1, archived_downloads: 0, jobs: 1, archived_jobs: 0,
  events: 17, undelivered: 1, library_albums: 2, sources: 0, plugin_entries: 14,
};

/** Replaces line `number` of a file by as many bytes of `x`: the file keeps its length (and its acknowledged one). */
async function garbleLine(path: string, number: number): Promise<void> {
  const lines = (await readFile(path, 'utf8')).split('\n');
  lines[number - 1] = 'x'.repeat(Buffer.byteLength(lines[number - 1] ?? ''));
  await writeFile(path, lines.join('\n'));
}

/** The import must fail naming `file` and `place`; then nothing is imported and the old files are as they were. */
async function assertRefused(t: Parameters<typeof openAndImport>[0], dir: string, before: Map<string, Buffer>, file: string, place: string): Promise<void> {
  await assert.rejects(openAndImport(t, dir), (err: unknown) => {
    assert.ok(err instanceof PreSqliteImportError, String(err));
    assert.equal(err.file, join(dir, file));
    assert.equal(err.place, place);
    assert.match(err.message, new RegExp(`${file.replace('.', '\\.')}: ${place}: .*nothing was imported`));
    return true;
  });
  const after = await filesOf(dir);
  for (const name of ['crateflow.db', 'crateflow.db-wal', 'crateflow.db-shm']) after.delete(name);
  assert.deepEqual(after, before, 'every old file byte-identical, in place');
  await assert.rejects(access(join(dir, 'pre-sqlite')), { code: 'ENOENT' });
  const store = await Store.open(dir);
  try {
    assert.deepEqual(Object.values(heldBy(store)).filter((n) => n !== 0), [], 'no record imported');
    assert.equal(store.db.prepare('SELECT count(*) FROM pre_sqlite_import').pluck().get(), 0);
  } finally {
    await store.close();
  }
}

describe('an import that cannot finish', () => {
  it('stops at a damaged line of queue-history.jsonl within its acknowledged length, naming the file and line, and imports it all once the file is restored', async (t) => {
    const dir = await copyOfFixture(t, 'data-dir-c086ec1');
    const good = await readFile(join(dir, 'queue-history.jsonl'));
    await garbleLine(join(dir, 'queue-history.jsonl'), 3);
    await assertRefused(t, dir, await filesOf(dir), 'queue-history.jsonl', 'line 3');

    await writeFile(join(dir, 'queue-history.jsonl'), good);
    const opened = await openAndImport(t, dir);
    assert.deepEqual(opened.result?.counts, C086EC1);
  });

  it('stops at a decision whose record is not JSON, and at a change-log line that is not JSON, leaving every file as it was', async (t) => {
    const history = await copyOfFixture(t, 'data-dir-c086ec1');
    const path = join(history, 'queue-history.jsonl');
    await writeFile(path, (await readFile(path, 'utf8')).replace('{"id":"01m8fzdjjnzwetkghnkcky",', '{"id" "01m8fzdjjnzwetkghnkcky",'));
    await assertRefused(t, history, await filesOf(history), 'queue-history.jsonl', 'line 3');

    const log = await copyOfFixture(t, 'data-dir-c086ec1');
    const changes = join(log, 'crateflow.json.changes');
    const lines = (await readFile(changes, 'utf8')).split('\n');
    lines.splice(1, 0, '{"set":[["queue","torn"');
    await writeFile(changes, lines.join('\n'));
    await assertRefused(t, log, await filesOf(log), 'crateflow.json.changes', 'line 2');
  });

  it('leaves out a torn last line of a change log (a crash in the middle of an append, never acknowledged)', async (t) => {
    const dir = await copyOfFixture(t, 'data-dir-c086ec1');
    await appendFile(join(dir, 'crateflow.json.changes'), '{"set":[["queue","01torn",{"id":"01torn","artist":"Torn"');
    const opened = await openAndImport(t, dir);
    assert.deepEqual(opened.result?.counts, C086EC1);
  });

  it('finishes a move of the old files cut short after the commit at the next start, without importing twice', async (t) => {
    const dir = await copyOfFixture(t, 'data-dir-c086ec1');
    const before = await filesOf(dir);
    // A file of the same name waiting in pre-sqlite/ stops the move after the first file (never overwritten): the
    // state a crash between the moves leaves.
    await mkdir(join(dir, 'pre-sqlite'));
    await writeFile(join(dir, 'pre-sqlite', 'crateflow.json'), 'in the way');
    await assert.rejects(openAndImport(t, dir), /cannot move .*crateflow\.json .*a file of that name is there already/);
    assert.deepEqual((await readdir(join(dir, 'pre-sqlite'))).sort(), ['archive.jsonl', 'crateflow.json']);

    await rm(join(dir, 'pre-sqlite', 'crateflow.json'));
    const opened = await openAndImport(t, dir);
    assert.equal(opened.result?.importedNow, false);
    assert.deepEqual(opened.result?.counts, C086EC1, 'the counts of the import that was committed');
    assert.deepEqual(heldBy(opened.store), C086EC1, 'nothing twice');
    assert.ok(opened.log.some((line) => typeof line.msg === 'string' && line.msg.includes('moving them now')));
    assert.deepEqual(await filesOf(join(dir, 'pre-sqlite')), before);
    assert.deepEqual((await readdir(dir)).filter((name) => !name.startsWith('crateflow.db') && name !== 'crateflow.lock'), ['pre-sqlite']);
  });
});
