import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startProblems } from '../../helpers/start-problems.js';
import { SCRIPTED_SOURCE } from './source-fixture.js';

/** The problems start-up reports for `sources`, as `path: message` lines. */
async function problemsOf(sources: unknown[]): Promise<string[]> {
  return (await startProblems({ sources })).map((p) => `${p.path}: ${p.message}`);
}

const files = { script_file: '/tmp/s.json', gate_file: '/tmp/g', calls_file: '/tmp/c' };

describe('config: sources', () => {
  it('names an unknown type at sources[N].type and lists the built-in ones', async () => {
    const problems = await problemsOf([{ name: 'mine', type: 'spotify' }]);
    assert.deepEqual(problems, [
      'sources[0].type: unknown type "spotify": must be one of "listenbrainz-recommendations", "similar-artists", "new-releases" (or write "use" for a third-party source plugin)',
    ]);
  });

  it('refuses a second source with the same name, naming both entries', async () => {
    const problems = await problemsOf([
      { name: 'picks', use: SCRIPTED_SOURCE, ...files },
      { name: 'picks', use: SCRIPTED_SOURCE, ...files },
    ]);
    assert.ok(problems.includes('sources[1].name: "picks" is already the name of sources[0]; names must be unique'), problems.join('\n'));
  });

  it('wants exactly one of type and use', async () => {
    const problems = await problemsOf([{ name: 'a' }, { name: 'b', type: 'similar-artists', use: SCRIPTED_SOURCE, ...files }]);
    assert.ok(problems.some((p) => p.startsWith('sources[0]: needs "type"')), problems.join('\n'));
    assert.ok(problems.includes('sources[1]: give either "type" (a built-in source) or "use" (a source plugin), not both'), problems.join('\n'));
  });

  it('checks the plugin\'s own keys against its configSchema, named sources[N].<key> with the plugin', async () => {
    const problems = await problemsOf([{ name: 'picks', use: SCRIPTED_SOURCE, script_file: 5, gate_file: '/tmp/g', calls_file: '/tmp/c', colour: 'red' }]);
    assert.ok(problems.some((p) => /^sources\[0\]\.script_file: .*string.*\(scripted-source\)$/.test(p)), problems.join('\n'));
    assert.ok(problems.some((p) => /^sources\[0\].*colour.*\(scripted-source\)$/.test(p)), problems.join('\n'));
  });

  it('names sources[N].use when the plugin cannot be found', async () => {
    const problems = await problemsOf([{ name: 'gone', use: './no-such-source.js' }]);
    assert.equal(problems.length, 1);
    assert.match(problems[0] ?? '', /^sources\[0\]\.use: cannot find plugin ".\/no-such-source.js"/);
  });

  it('refuses a plugin of another kind in a sources entry', async () => {
    const library = new URL('../../fixtures/plugins/scripted-library.ts', import.meta.url).pathname;
    const problems = await problemsOf([{ name: 'wrong', use: library, ...files }]);
    assert.deepEqual(problems, ['sources[0].use: plugin "scripted-library" is a library plugin, but this block needs a source plugin']);
  });

  it('refuses a schedule longer than ten years at sources[N].schedule, suggesting manual', async () => {
    const problems = await problemsOf([
      { name: 'yearly', use: SCRIPTED_SOURCE, schedule: '3650d', ...files },
      { name: 'never', use: SCRIPTED_SOURCE, schedule: '3651d', ...files },
      { name: 'typo', use: SCRIPTED_SOURCE, schedule: '99999999999999999999d', ...files },
    ]);
    assert.deepEqual(problems, [
      'sources[1].schedule: must be at most 3650d (ten years), got "3651d"; write "manual" for a source that runs only when started through the API',
      'sources[2].schedule: must be at most 3650d (ten years), got "99999999999999999999d"; write "manual" for a source that runs only when started through the API',
    ]);
  });

  it('refuses a name that cannot appear in a URL, and a schedule that is not a duration', async () => {
    const problems = await problemsOf([{ name: 'My Picks', use: SCRIPTED_SOURCE, schedule: 'daily', ...files }]);
    assert.ok(problems.some((p) => p.startsWith('sources[0].name: ')), problems.join('\n'));
    assert.ok(problems.some((p) => p.startsWith('sources[0].schedule: ')), problems.join('\n'));
  });
});
