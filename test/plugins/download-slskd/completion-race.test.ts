import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { albumFiles, pollUntilDone, WANTED } from './slskd-fixtures.js';
import { setup } from './slskd-setup.js';

const PEERS = [{ username: 'steady', files: albumFiles('@@s\\Music\\Low', 'Double Negative (2018)', 'flac') }];

describe('download-slskd: the search completion race', () => {
  it('reads a complete search again while slskd has not saved its responses, and deletes it only after reading them', async (t) => {
    const { fake, client } = await setup(t, PEERS, { fake: { completionRaceReads: 4 } });
    const { ref } = await client.request(WANTED);
    const last = (await pollUntilDone(client, ref)).at(-1);
    assert.equal(last?.state, 'completed', 'the album is found although the first reads of the complete search had no responses');
    const searchCalls = fake.received.filter((r) => r.path.startsWith('/api/v0/searches/'));
    const responseReads = searchCalls.filter((r) => r.method === 'GET' && r.path.endsWith('/responses'));
    assert.equal(responseReads.length, 1, 'responses are fetched once endedAt says they are saved');
    const deleted = searchCalls.findIndex((r) => r.method === 'DELETE');
    const read = searchCalls.findIndex((r) => r.method === 'GET' && r.path.endsWith('/responses'));
    assert.ok(read >= 0 && deleted > read, 'the search is deleted after its responses were read');
    const completeReads = searchCalls.filter((r) => r.method === 'GET' && !r.path.endsWith('/responses'));
    assert.ok(completeReads.length >= 5, `the window was read through (${completeReads.length} reads)`);
  });

  it('never deletes a search whose responses were not read; after search.max_wait_ms it tries the next query instead', async (t) => {
    const { fake, client, harness } = await setup(t, PEERS, {
      fake: { completionRaceReads: 1_000_000 },
      config: { search: { max_wait_ms: 60_000 }, retry_after_no_results_ms: 60_000 },
    });
    const { ref } = await client.request(WANTED);
    for (const query of ['Low Double Negative', 'Double Negative']) {
      for (let i = 0; i < 4; i++) assert.equal((await client.status(ref, WANTED)).state, 'searching', `"${query}" waits for its responses`);
      harness.context.clock.advance(61_000);
    }
    const last = (await pollUntilDone(client, ref)).at(-1);
    // Both query templates end the same way: responses never saved, so nothing usable, and the item goes back to wanted.
    assert.equal(last?.state, 'failed');
    assert.equal(last?.retry_after_ms, 60_000);
    assert.equal(fake.received.filter((r) => r.method === 'DELETE' && r.path.startsWith('/api/v0/searches/')).length, 0);
    assert.equal(fake.state.searches.all().length, 2, 'both searches are left in slskd');
  });
});
