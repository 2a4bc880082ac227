import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { definePlugin, PLUGIN_API_VERSION, Type, type SourceCandidate } from '@crateflow/sdk';
import { createTestSourceRun, sourceContractChecks, testSourceContract } from '@crateflow/sdk/testing';

type Flaw = 'none' | 'ignores-abort' | 'malformed-candidate' | 'yields-object' | 'ignores-known' | 'progress-past-total' | 'no-progress' | 'leaves-timer';

const Config = Type.Object({ batches: Type.Integer({ minimum: 1, default: 3, description: 'batches per run' }) }, { additionalProperties: false });

function proposal(batch: number, i: number): SourceCandidate {
  return {
    artist: 'Autechre',
    album: `Album ${batch}${i}`,
    type: 'album',
    mbid: `0000000${batch}-0000-4000-8000-00000000000${i}`,
    score: 0.5,
    reasons: [{ kind: 'similar-artists', text: 'similar to Boards of Canada', refs: [{ type: 'artist', name: 'Boards of Canada' }] }],
  };
}

/** A source proposing two candidates in each of `batches` batches, with an optional flaw. */
function sampleSource(flaw: Flaw = 'none') {
  return definePlugin({
    manifest: { name: 'sample-source', kind: 'source', apiVersion: PLUGIN_API_VERSION, configSchema: Config },
    create: ({ config, clock }) => {
      let cancelTimer: (() => void) | undefined;
      return {
        async *discover(run): AsyncIterable<SourceCandidate[]> {
          if (flaw === 'leaves-timer') cancelTimer = clock.schedule(60_000, () => undefined);
          for (let batch = 0; batch < config.batches; batch++) {
            if (run.signal.aborted && flaw !== 'ignores-abort') return;
            if (flaw === 'progress-past-total') run.progress(batch + 5, config.batches);
            else if (flaw !== 'no-progress') run.progress(batch, config.batches);
            const candidates = [proposal(batch, 1), proposal(batch, 2)].filter((c) => flaw === 'ignores-known' || run.known(c) === undefined);
            if (flaw === 'malformed-candidate') yield JSON.parse(JSON.stringify([{ ...candidates[0], score: 2 }]));
            else if (flaw === 'yields-object') yield JSON.parse(JSON.stringify({ candidates }));
            else yield candidates;
          }
        },
        stop: async () => {
          if (flaw !== 'leaves-timer') cancelTimer?.();
        },
      };
    },
  });
}

testSourceContract(sampleSource(), { config: { batches: 3 }, minBatches: 2, minCandidates: 4, libraryArtists: [{ name: 'Boards of Canada', albums: 4 }] });

function check(flaw: Flaw, name: RegExp) {
  const found = sourceContractChecks(sampleSource(flaw), { config: {} }).find((c) => name.test(c.name));
  assert.ok(found, `no check matching ${name}`);
  return found;
}

describe('source contract kit', () => {
  it('fails a source that keeps yielding after the signal aborts', async () => {
    await assert.rejects(check('ignores-abort', /signal aborts/).run(), /yielded 2 batch\(es\) after the signal was aborted/);
  });

  it('fails a source that yields an invalid candidate, naming the field', async () => {
    await assert.rejects(check('malformed-candidate', /valid candidates/).run(), /candidate 0 of batch 1 is not valid[\s\S]*\/score: must be <= 1/);
  });

  it('fails a source that yields something other than an array', async () => {
    await assert.rejects(check('yields-object', /valid candidates/).run(), /must yield arrays of candidates/);
  });

  it('fails a source that proposes what run.known() said the server has', async () => {
    await assert.rejects(check('ignores-known', /known\(\)/).run(), /proposed 6 candidate\(s\) that run.known\(\) answered "library" for, e.g. Autechre — Album 01/);
  });

  it('passes the known() check for a source that asks before proposing', async () => {
    await check('none', /known\(\)/).run();
  });

  it('fails a source whose progress says more is done than there is', async () => {
    await assert.rejects(check('progress-past-total', /progress/).run(), /progress call 1 \(5, 3\): done is more than total/);
  });

  it('fails a source that never reports progress, unless the author says it does not', async () => {
    await assert.rejects(check('no-progress', /progress/).run(), /never called run.progress\(\)/);
    const optedOut = sourceContractChecks(sampleSource('no-progress'), { config: {}, reportsProgress: false }).find((c) => /progress/.test(c.name));
    assert.ok(optedOut);
    await optedOut.run();
  });

  it('fails a source that leaves a timer on its clock after stop()', async () => {
    await assert.rejects(check('leaves-timer', /no timer pending/).run(), /still has 1 timer\(s\) scheduled after stop\(\)/);
  });

  it('fails a source with fewer batches than the author promised', async () => {
    const checks = sourceContractChecks(sampleSource(), { config: { batches: 1 }, minBatches: 2 });
    const batches = checks.find((c) => /valid candidates/.test(c.name));
    assert.ok(batches);
    await assert.rejects(batches.run(), /yielded 1 batch\(es\), expected at least 2/);
  });
});

describe('createTestSourceRun', () => {
  it('records progress and known() calls and answers with what it was given', async () => {
    const run = createTestSourceRun({ libraryArtists: [{ name: 'Low', albums: 3 }], known: (c) => (c.artist === 'Low' ? 'wishlist' : undefined) });
    run.progress(1, 4);
    assert.equal(run.known({ artist: 'Low', album: 'C\'mon' }), 'wishlist');
    assert.equal(run.known({ artist: 'Plaid' }), undefined);
    assert.deepEqual(await run.libraryArtists(), [{ name: 'Low', albums: 3 }]);
    assert.deepEqual(run.progressCalls, [{ done: 1, total: 4 }]);
    assert.equal(run.knownCalls.length, 2);
    assert.equal(run.signal.aborted, false);
  });
});
