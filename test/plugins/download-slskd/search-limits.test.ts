import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WantedItem } from '@crateflow/sdk';
import type { FakeSlskdPeer } from '../../fakes/fake-slskd.js';
import { albumFiles, pollUntilDone, WANTED } from './slskd-fixtures.js';
import { posted, setup } from './slskd-setup.js';

const ABBA: WantedItem = { id: 'w_abba', artist: 'ABBA', album: 'Greatest Hits', type: 'album' };

/** `users` peers sharing other artists' "Greatest Hits" folders, `filesEach` tracks each, with paths `pad` characters longer. */
function crowd(users: number, filesEach: number, pad = 0): FakeSlskdPeer[] {
  return Array.from({ length: users }, (_, u) => ({
    username: `crowd${u}`,
    files: Array.from({ length: filesEach }, (_, f) => ({
      filename: `@@c${u}\\Music\\${'x'.repeat(pad)}Artist ${u}-${Math.floor(f / 20)}\\Greatest Hits\\${String((f % 20) + 1).padStart(2, '0')} - Song number ${f}.mp3`,
      size: 5_000_000 + f,
      bitRate: 320,
    })),
  }));
}

describe('download-slskd: search limits', () => {
  it('reads a response set bigger than the http client\'s 8 MiB default when file_limit asks for ~50,000 files, and finds the album in it', async (t) => {
    const abba = { username: 'abba fan', files: albumFiles('@@a\\Music\\ABBA', 'Greatest Hits', 'flac') };
    const peers = [abba, ...crowd(200, 250, 60)];
    const { fake, client } = await setup(t, peers, { config: { search: { file_limit: 60_000, response_limit: 1000 } } });
    const { ref } = await client.request(ABBA);
    const last = (await pollUntilDone(client, ref, ABBA)).at(-1);
    assert.equal(last?.state, 'completed');
    const reads = fake.received.filter((r) => r.path.endsWith('/responses'));
    assert.equal(reads.length, 1, 'read once, not retried as "unreachable"');
    // A lower bound: slskd's response JSON carries more members per file than the catalogue does.
    const bytes = JSON.stringify(peers.map((p) => p.files)).length;
    assert.ok(bytes > 8 * 1_048_576, `the response set was ${bytes} bytes`);
  });

  it('gives up a search whose responses exceed even the raised cap and tries the next query, instead of an endless "unreachable" loop', async (t) => {
    const { client, fake } = await setup(t, crowd(1, 100, 12_000), { config: { search: { file_limit: 100 }, retry_after_no_results_ms: 60_000 } });
    const { ref } = await client.request(ABBA);
    const last = (await pollUntilDone(client, ref, ABBA)).at(-1);
    assert.equal(last?.state, 'failed');
    assert.equal(last?.retry_after_ms, 60_000);
    assert.match(last?.error ?? '', /responses over 1 MiB \(lower search\.file_limit\)/);
    assert.equal(fake.received.filter((r) => r.path.endsWith('/responses')).length, 2, 'each query\'s responses are read once, none retried');
  });

  it('counts search.max_wait_ms from when slskd starts running a search, not while it waits for one of its 2 slots', async (t) => {
    const peers = [{ username: 'steady', files: albumFiles('@@s\\Music\\Low', 'Double Negative', 'flac') }];
    const { fake, client, harness } = await setup(t, peers, { fake: { searchCompletion: { afterPolls: 1_000_000 } }, config: { search: { max_wait_ms: 60_000 } } });
    const items = [1, 2, 3].map((n): WantedItem => ({ ...WANTED, id: `w${n}` }));
    const refs = await Promise.all(items.map((item) => client.request(item)));
    const pollAll = async () => {
      for (const [i, { ref }] of refs.entries()) await client.status(ref, items[i] ?? WANTED);
    };
    await pollAll();
    await pollAll();
    assert.deepEqual(fake.state.searches.all().map((s) => s.state), ['InProgress', 'InProgress', 'Requested'], 'the third search waits for a slot');
    harness.context.clock.advance(61_000);
    await pollAll(); // stops the first two (running for 61 s); the third gets a slot and starts running now
    await pollAll();
    const stopped = () => fake.received.filter((r) => r.method === 'PUT' && r.path.startsWith('/api/v0/searches/')).map((r) => r.path.split('/').at(-1));
    const [, , third] = fake.state.searches.all();
    assert.equal(stopped().length, 2);
    assert.equal(third?.state, 'InProgress');
    assert.ok(!stopped().includes(third?.id), 'the queued search is not stopped for time it spent waiting');
    harness.context.clock.advance(61_000);
    await pollAll();
    assert.ok(stopped().includes(third?.id), 'once it has run for max_wait_ms it is stopped too');
  });

  it('spaces searches search.min_interval_ms apart, even when many wanted albums start at once', async (t) => {
    const peers = [{ username: 'steady', files: albumFiles('@@s\\Music\\Low', 'Double Negative', 'flac') }];
    const { fake, client, harness } = await setup(t, peers, { config: { search: { min_interval_ms: 10_000 } } });
    const items = [1, 2, 3, 4].map((n): WantedItem => ({ ...WANTED, id: `w${n}` }));
    const refs = await Promise.all(items.map((item) => client.request(item)));
    const pollAll = async () => {
      for (const [i, { ref }] of refs.entries()) assert.notEqual((await client.status(ref, items[i] ?? WANTED)).state, 'failed');
    };
    await pollAll();
    await pollAll();
    assert.equal(posted(fake, '/searches').length, 1, 'one search, the others wait their turn as "searching"');
    harness.context.clock.advance(9_999);
    await pollAll();
    assert.equal(posted(fake, '/searches').length, 1);
    harness.context.clock.advance(1);
    await pollAll();
    assert.equal(posted(fake, '/searches').length, 2);
    harness.context.clock.advance(10_000);
    await pollAll();
    assert.equal(posted(fake, '/searches').length, 3);
  });
});
