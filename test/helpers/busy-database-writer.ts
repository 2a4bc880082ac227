// A process that holds a data dir as the service does (Store.open with the dir's lock) and commits without pause,
// for tests of what another process may do meanwhile (a backup). Usage: node --import tsx busy-database-writer.ts
// DIR. Every change adds one 4 KB plugin_entries row and, in the same transaction, sets source_state 'writer' to the
// number of rows, so any consistent copy holds exactly that many. It prints `ready` once the database holds more
// than a few hundred pages (more than one step of SQLite's default backup), then `wrote N` at SIGTERM and exits 0.
import { Store } from '../../core/storage/store.js';

const dir = process.argv[2];
if (!dir) throw new Error('usage: busy-database-writer.ts DIR');
const IN_FLIGHT = 8; // changes waiting at once, so the group commit has something to group
const READY_AFTER = 400;
const payload = 'x'.repeat(4096);

const store = await Store.open(dir, { exclusive: true });
const insert = store.db.prepare('INSERT INTO plugin_entries (plugin, key, seq, value) VALUES (?, ?, ?, ?)');
const setCount = store.db.prepare("INSERT INTO source_state (name, record) VALUES ('writer', ?) ON CONFLICT (name) DO UPDATE SET record = excluded.record");
let written = 0;
let stopping = false;
let announced = false;

async function writeUntilStopped(): Promise<void> {
  while (!stopping) {
    await store.change(() => {
      written++;
      insert.run('writer', `key-${written}`, written, JSON.stringify({ n: written, payload }));
      setCount.run(String(written));
    });
    if (!announced && written >= READY_AFTER) {
      announced = true;
      process.stdout.write('ready\n');
    }
  }
}

const writers = Array.from({ length: IN_FLIGHT }, () => writeUntilStopped());
process.once('SIGTERM', () => {
  stopping = true;
});
await Promise.all(writers);
await store.close();
process.stdout.write(`wrote ${written}\n`);
