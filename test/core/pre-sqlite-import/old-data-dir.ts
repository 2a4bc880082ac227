// Shared by the importer's tests: an old data dir copied to a temp dir, its import, and what the tables then hold.
import type { TestContext } from 'node:test';
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { AlbumIdentity } from '../../../core/library/album-keys.js';
import { createLogger } from '../../../core/logging/create-logger.js';
import { DownloadsTable } from '../../../core/downloads/downloads-table.js';
import { EventLogTable } from '../../../core/events/event-log-table.js';
import { JobsTable } from '../../../core/jobs/jobs-table.js';
import { LibraryTable } from '../../../core/library/library-table.js';
import { importPreSqliteData, type PreSqliteImport } from '../../../core/pre-sqlite-import/import-pre-sqlite-data.js';
import { QueueTable } from '../../../core/queue/queue-table.js';
import { Store } from '../../../core/storage/store.js';
import { WishlistTable } from '../../../core/wishlist/wishlist-table.js';

export const fixture = (name: string) => fileURLToPath(new URL(`../../fixtures/${name}`, import.meta.url));

export async function tempDir(t: TestContext, prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A copy of a fixture data dir in a temp dir. */
export async function copyOfFixture(t: TestContext, name: string): Promise<string> {
  const dir = join(await tempDir(t, 'crateflow-pre-sqlite-'), 'data');
  await cp(fixture(name), dir, { recursive: true });
  return dir;
}

/** Every file of `dir` (not in sub-folders) with its bytes. */
export async function filesOf(dir: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for (const entry of await readdir(dir, { withFileTypes: true })) if (entry.isFile()) files.set(entry.name, await readFile(join(dir, entry.name)));
  return files;
}

export interface Opened {
  store: Store;
  result: PreSqliteImport | undefined;
  /** The log lines the import wrote, parsed. */
  log: Record<string, unknown>[];
  close(): Promise<void>;
}

/** Opens the store of `dir` as the service does and runs the import (closing the store again on failure). */
export async function openAndImport(t: TestContext, dir: string): Promise<Opened> {
  const log: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) log.push(JSON.parse(line));
      done();
    },
  });
  const store = await Store.open(dir, { exclusive: true });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await store.close();
  };
  t.after(close);
  try {
    const result = await importPreSqliteData(dir, store, createLogger('info', sink));
    return { store, result, log, close };
  } catch (err: unknown) {
    await close();
    throw err;
  }
}

/** What the tables hold, counted through their own reads. */
export function heldBy(store: Store) {
  const queue = new QueueTable(store);
  const wishlist = new WishlistTable(store);
  const downloads = new DownloadsTable(store);
  const jobs = new JobsTable(store);
  const entered = store.db.prepare('SELECT count(*) FROM wishlist_items WHERE entered_seq IS NOT NULL').pluck().get() as number;
  const liveDownloads = downloads.liveCount();
  const allDownloads = downloads.page({ offset: 0, limit: 1 }).total;
  const allJobs = jobs.page({ offset: 0, limit: 1 }).total;
  const archivedJobs = store.db.prepare('SELECT count(*) FROM jobs WHERE archived_seq IS NOT NULL').pluck().get() as number;
  return {
    pending: queue.count('pending'),
    approved: queue.count('approved'),
    rejected: queue.count('rejected'),
    wishlist: entered,
    waiting: wishlist.count() - entered,
    downloads: liveDownloads,
    archived_downloads: allDownloads - liveDownloads,
    jobs: allJobs - archivedJobs,
    archived_jobs: archivedJobs,
    events: store.db.prepare('SELECT count(*) FROM events').pluck().get() as number,
    undelivered: new EventLogTable(store).undelivered().length,
    library_albums: new LibraryTable(store).count,
    sources: store.db.prepare('SELECT count(*) FROM source_state').pluck().get() as number,
    plugin_entries: store.db.prepare('SELECT count(*) FROM plugin_entries').pluck().get() as number,
  };
}

/**
 * What an album asked about is a duplicate of, in the order the queue's intake asks: the wishlist, the pending
 * queue, the decided queue, the library.
 */
export function duplicateOf(store: Store, album: AlbumIdentity): [string, string] | undefined {
  const queue = new QueueTable(store);
  const wishlist = new WishlistTable(store);
  const wanted = wishlist.findWanted(album);
  if (wanted !== undefined) return ['wishlist', wishlist.get(wanted)?.status ?? '?'];
  if (queue.findPending(album) !== undefined) return ['queue', 'pending'];
  const decided = queue.findDecided(album);
  if (decided !== undefined) return ['queue', decided.status];
  if (new LibraryTable(store).owns(album)) return ['library', 'in_library'];
  return undefined;
}
